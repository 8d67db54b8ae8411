"""Webhook signatures: the GitHub test vector, and Standard Webhooks headers checked by the
reference `standardwebhooks` library rather than by our own code."""
from __future__ import annotations

import base64
import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from fanout.security.signing import (
    TIMESTAMP_TOLERANCE,
    check_secret,
    service_signature,
    service_signature_problem,
    standard_webhook_headers,
    standard_webhook_problem,
    verify_service_signature,
)

# GitHub's published test vector for its sha256= signatures (docs/reliability.md#webhook-signatures).
GITHUB_SECRET = "It's a Secret to Everybody"
GITHUB_PAYLOAD = b"Hello, World!"
GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
BODY = b'{"event":"post.completed","post_id":"post_01","target":{"platform":"x"}}'


def test_service_signature_matches_the_github_test_vector():
    assert service_signature(GITHUB_SECRET, GITHUB_PAYLOAD) == GITHUB_SIGNATURE


def test_service_signature_is_keyed_with_the_whole_secret_string_as_shown():
    # The key is the secret exactly as the register response showed it, prefix included.
    assert service_signature(SECRET, BODY) != service_signature(SECRET.removeprefix("whsec_"), BODY)


def test_verify_service_signature_accepts_the_github_vector():
    assert verify_service_signature(GITHUB_SECRET, GITHUB_PAYLOAD, GITHUB_SIGNATURE)


def test_verify_service_signature_rejects_a_changed_body():
    assert not verify_service_signature(GITHUB_SECRET, b"Hello, World?", GITHUB_SIGNATURE)


def test_verify_service_signature_rejects_missing_or_non_ascii_headers():
    assert not verify_service_signature(GITHUB_SECRET, GITHUB_PAYLOAD, None)
    assert not verify_service_signature(GITHUB_SECRET, GITHUB_PAYLOAD, "sha256=é")


def test_service_signature_covers_the_exact_raw_bytes():
    reformatted = BODY.replace(b",", b", ")  # the same JSON, re-serialized with spaces
    assert not verify_service_signature(SECRET, reformatted, service_signature(SECRET, BODY))


def test_standard_webhook_headers_verify_with_the_reference_library():
    headers = standard_webhook_headers(SECRET, "evt_01", int(time.time()), BODY)
    assert Webhook(SECRET).verify(BODY, headers) == {
        "event": "post.completed", "post_id": "post_01", "target": {"platform": "x"},
    }


def test_standard_webhook_headers_have_the_spec_shape():
    headers = standard_webhook_headers(SECRET, "evt_01", 1_700_000_000, BODY)
    assert headers["webhook-id"] == "evt_01"
    assert headers["webhook-timestamp"] == "1700000000"
    version, signature = headers["webhook-signature"].split(",")
    assert version == "v1" and len(base64.b64decode(signature)) == 32


def verifies(secret: str, body: bytes, headers: dict) -> bool:
    """Whether the reference library accepts `headers` for `body` under `secret`."""
    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return False
    return True


# Each refusal below starts from headers our function produced, shown first to verify
# untouched, so a refusal can only come from the change, never from a bad signature.


def test_reference_library_rejects_a_modified_body():
    now = int(time.time())
    headers = standard_webhook_headers(SECRET, "evt_01", now, BODY)
    changed = BODY.replace(b"completed", b"failed")
    assert verifies(SECRET, BODY, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(changed, headers)
    assert verifies(SECRET, changed, standard_webhook_headers(SECRET, "evt_01", now, changed))


def test_reference_library_rejects_a_whitespace_change():
    headers = standard_webhook_headers(SECRET, "evt_01", int(time.time()), BODY)
    assert verifies(SECRET, BODY, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(BODY + b"\n", headers)


def test_reference_library_rejects_another_secret():
    now = int(time.time())
    headers = standard_webhook_headers(SECRET, "evt_01", now, BODY)
    other = "whsec_" + base64.b64encode(bytes(32)).decode()
    assert verifies(SECRET, BODY, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(BODY, headers)
    assert verifies(other, BODY, standard_webhook_headers(other, "evt_01", now, BODY))


def test_timestamp_and_id_are_inside_the_signature():
    now = int(time.time())
    headers = standard_webhook_headers(SECRET, "evt_01", now, BODY)
    assert verifies(SECRET, BODY, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(BODY, {**headers, "webhook-id": "evt_02"})
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(BODY, {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 1)})
    for other in (standard_webhook_headers(SECRET, "evt_02", now, BODY), standard_webhook_headers(SECRET, "evt_01", now - 1, BODY)):
        assert other["webhook-signature"] != headers["webhook-signature"]
        assert verifies(SECRET, BODY, other)


@pytest.mark.parametrize("message_id", ["", "evt.01"])
def test_message_ids_that_would_break_the_signed_format_are_refused(message_id):
    with pytest.raises(ValueError):
        standard_webhook_headers(SECRET, message_id, 1_700_000_000, BODY)


@pytest.mark.parametrize("secret", ["not-a-whsec-secret", "whsec_", "whsec_***"])
def test_secrets_not_in_whsec_form_are_refused(secret):
    with pytest.raises(ValueError):
        standard_webhook_headers(secret, "evt_01", 1_700_000_000, BODY)


# --- the receiving side: why a delivery fails each scheme -----------------------------------

NOW = 1_700_000_000


def test_a_signed_delivery_has_no_problem_with_either_scheme():
    headers = standard_webhook_headers(SECRET, "evt_01", NOW, BODY)
    assert service_signature_problem(SECRET, BODY, service_signature(SECRET, BODY)) is None
    assert standard_webhook_problem(SECRET, BODY, headers, NOW) is None


@pytest.mark.parametrize("header, reason", [
    (None, "no X-Service-Signature header"),
    ("", "no X-Service-Signature header"),
    ("sha1=abc", "does not start with sha256="),
    (service_signature(SECRET, BODY + b" "), "does not match the body"),
    (service_signature("whsec_" + base64.b64encode(bytes(32)).decode(), BODY), "does not match the body"),
])
def test_service_signature_problem_says_why(header, reason):
    assert reason in service_signature_problem(SECRET, BODY, header)


@pytest.mark.parametrize("skew", [-TIMESTAMP_TOLERANCE, 0, TIMESTAMP_TOLERANCE])
def test_timestamps_within_five_minutes_either_way_pass(skew):
    headers = standard_webhook_headers(SECRET, "evt_01", NOW - skew, BODY)
    assert standard_webhook_problem(SECRET, BODY, headers, NOW) is None


def test_a_timestamp_older_than_five_minutes_is_a_replay():
    headers = standard_webhook_headers(SECRET, "evt_01", NOW - TIMESTAMP_TOLERANCE - 1, BODY)
    assert standard_webhook_problem(SECRET, BODY, headers, NOW) == (
        "webhook-timestamp is 301 s old, past the 300 s tolerance (a replay?)"
    )


def test_a_timestamp_more_than_five_minutes_ahead_is_refused():
    headers = standard_webhook_headers(SECRET, "evt_01", NOW + TIMESTAMP_TOLERANCE + 1, BODY)
    assert "301 s ahead" in standard_webhook_problem(SECRET, BODY, headers, NOW)


@pytest.mark.parametrize("change, reason", [
    ({"webhook-id": None}, "no webhook-id header"),
    ({"webhook-id": None, "webhook-signature": None}, "no webhook-id, webhook-signature headers"),
    ({"webhook-timestamp": "17e8"}, "is not unix seconds"),
    ({"webhook-timestamp": "-5"}, "is not unix seconds"),
    ({"webhook-id": "evt_02"}, "does not match"),
    ({"webhook-id": "evt.01"}, "without '.'"),
    ({"webhook-signature": "v1a,abc"}, "has no v1, entry"),
    ({"webhook-signature": "v1,é"}, "does not match"),
])
def test_standard_webhook_problem_says_why(change, reason):
    headers = {**standard_webhook_headers(SECRET, "evt_01", NOW, BODY), **change}
    headers = {name: value for name, value in headers.items() if value is not None}
    assert reason in standard_webhook_problem(SECRET, BODY, headers, NOW)


def test_a_changed_body_fails_both_schemes():
    headers = standard_webhook_headers(SECRET, "evt_01", NOW, BODY)
    changed = BODY.replace(b"completed", b"failed")
    assert service_signature_problem(SECRET, changed, service_signature(SECRET, BODY))
    assert "does not match" in standard_webhook_problem(SECRET, changed, headers, NOW)


def test_any_v1_entry_of_a_rotation_list_may_match():
    ours = standard_webhook_headers(SECRET, "evt_01", NOW, BODY)
    other = standard_webhook_headers("whsec_" + base64.b64encode(bytes(32)).decode(), "evt_01", NOW, BODY)
    listed = {**ours, "webhook-signature": f"{other['webhook-signature']} {ours['webhook-signature']}"}
    assert standard_webhook_problem(SECRET, BODY, listed, NOW) is None


@pytest.mark.parametrize("mutate", [
    lambda h, b: (h, b),
    lambda h, b: (h, b + b"\n"),
    lambda h, b: ({**h, "webhook-id": "evt_02"}, b),
    lambda h, b: ({**h, "webhook-timestamp": str(int(h["webhook-timestamp"]) - 600)}, b),
    lambda h, b: ({**h, "webhook-timestamp": str(int(h["webhook-timestamp"]) + 600)}, b),
])
def test_our_check_agrees_with_the_reference_library(mutate):
    now = int(time.time())
    headers, body = mutate(standard_webhook_headers(SECRET, "evt_01", now, BODY), BODY)
    assert (standard_webhook_problem(SECRET, body, headers, now) is None) == verifies(SECRET, body, headers)


def test_check_secret_takes_our_secrets_and_refuses_others():
    assert check_secret(SECRET) == SECRET
    for bad in ("not-a-whsec-secret", "whsec_", "whsec_***"):
        with pytest.raises(ValueError):
            check_secret(bad)
