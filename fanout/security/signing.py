"""Signatures on webhook deliveries, made and checked (docs/decisions.md#signatures).

Two schemes, both over the exact body bytes that are sent:

- `X-Service-Signature: sha256=<hex>`, GitHub style, keyed with the registration's secret
  string exactly as the register response showed it. It covers no timestamp.
- The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
  which put the message id and the attempt's timestamp inside the MAC, so receivers can
  reject replays and dedupe (docs/reliability.md#webhook-signatures).

The `*_problem` functions are the receiving side, for `fanout listen`: each says why a
delivery fails its scheme, or None when it passes.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping, Sequence

SERVICE_SIGNATURE_HEADER = "X-Service-Signature"
SECRET_PREFIX = "whsec_"
# How far `webhook-timestamp` may be from the receiver's clock, either way, as the
# Standard Webhooks reference libraries allow: older is a replay, newer a wrong clock.
TIMESTAMP_TOLERANCE = 300


def service_signature(secret: str, body: bytes) -> str:
    """`sha256=` + hex HMAC-SHA256 of `body`, keyed with the UTF-8 bytes of `secret`."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_service_signature(secret: str, body: bytes, header: str | None) -> bool:
    """Whether `header` is the service signature of `body`; compared in constant time."""
    if not isinstance(header, str):
        return False
    expected = service_signature(secret, body).encode("ascii")
    # Bytes, not str: compare_digest refuses non-ASCII str, and a forged header may hold any.
    return hmac.compare_digest(expected, header.encode("utf-8", "replace"))


def standard_webhook_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """`webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` for one attempt.

    The MAC is HMAC-SHA256 over `f"{message_id}.{timestamp}."` + body, keyed with the
    base64-decoded part of the `whsec_` secret. `message_id` stays the same on every retry;
    `timestamp` (unix seconds) is the attempt's.
    """
    if "." in message_id or not message_id:
        # The spec forbids "." in the id: it separates the signed parts.
        raise ValueError("message id must be non-empty and must not contain '.'")
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
        raise ValueError("timestamp must be a non-negative integer of unix seconds")
    signed = f"{message_id}.{timestamp}.".encode("ascii") + body
    digest = hmac.new(_secret_key(secret), signed, hashlib.sha256).digest()
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": "v1," + base64.b64encode(digest).decode("ascii"),
    }


def signature_headers(secrets: Sequence[str], message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """Every signature header of one attempt, with the registration's secrets current
    first: `X-Service-Signature` with the current one, and a `v1,` entry of
    `webhook-signature` for each, in that order (during a rotation's overlap the previous
    secret signs too: docs/decisions.md#secret-rotation)."""
    if not secrets:
        raise ValueError("at least one secret signs")
    standard = standard_webhook_headers(secrets[0], message_id, timestamp, body)
    entries = [standard["webhook-signature"]]
    entries += [standard_webhook_headers(s, message_id, timestamp, body)["webhook-signature"] for s in secrets[1:]]
    return {SERVICE_SIGNATURE_HEADER: service_signature(secrets[0], body), **standard,
            "webhook-signature": " ".join(entries)}


def service_signature_problem(secret: str, body: bytes, header: str | None) -> str | None:
    """Why `header` is not the `X-Service-Signature` of `body`, or None when it is."""
    if not header:
        return f"no {SERVICE_SIGNATURE_HEADER} header"
    if not header.startswith("sha256="):
        return "the value does not start with sha256="
    if not verify_service_signature(secret, body, header):
        return "does not match the body under this secret"
    return None


def standard_webhook_problem(secret: str, body: bytes, headers: Mapping[str, str], now: int) -> str | None:
    """Why `headers` (names in lower case) do not sign `body` the Standard Webhooks way at
    unix time `now`, or None when they do. Any `v1,` entry of the space-separated
    `webhook-signature` list may match, as during a key rotation."""
    missing = [name for name in ("webhook-id", "webhook-timestamp", "webhook-signature") if not headers.get(name)]
    if missing:
        return f"no {', '.join(missing)} header{'s' if len(missing) > 1 else ''}"
    raw_timestamp = headers["webhook-timestamp"]
    if not (raw_timestamp.isascii() and raw_timestamp.isdigit()):
        return f"webhook-timestamp {raw_timestamp[:40]!r} is not unix seconds"
    skew = now - int(raw_timestamp)
    if skew > TIMESTAMP_TOLERANCE:
        return f"webhook-timestamp is {skew} s old, past the {TIMESTAMP_TOLERANCE} s tolerance (a replay?)"
    if -skew > TIMESTAMP_TOLERANCE:
        return f"webhook-timestamp is {-skew} s ahead, past the {TIMESTAMP_TOLERANCE} s tolerance (a clock off?)"
    message_id = headers["webhook-id"]
    if not message_id.isascii() or "." in message_id:
        return "webhook-id is not an ASCII id without '.'"
    expected = standard_webhook_headers(secret, message_id, int(raw_timestamp), body)["webhook-signature"]
    offered = [entry for entry in headers["webhook-signature"].split(" ") if entry.startswith("v1,")]
    if not offered:
        return "webhook-signature has no v1, entry"
    # Bytes, for the same reason as in verify_service_signature.
    if any(hmac.compare_digest(expected.encode("ascii"), entry.encode("utf-8", "replace")) for entry in offered):
        return None
    return "does not match the id, timestamp and body under this secret"


def check_secret(secret: str) -> str:
    """`secret` if it is a `whsec_` secret Fanout could have made; ValueError saying why not."""
    _secret_key(secret)
    return secret


def _secret_key(secret: str) -> bytes:
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"secret must start with {SECRET_PREFIX!r}")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX):], validate=True)
    except binascii.Error:
        raise ValueError("secret is not base64 after its prefix") from None
    if not key:
        raise ValueError("secret is empty")
    return key
