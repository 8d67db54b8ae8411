"""Registrations after they are made: PATCH, redelivery, the test ping, secret rotation and
automatic disabling (docs/decisions.md#webhook-registrations, #redelivery, #test-pings,
#secret-rotation, #automatic-disabling)."""
import datetime as dt
import json

import pytest

from fanout.models import Webhook, db
from fanout.outbound.client import Outbound
from fanout.security.signing import service_signature_problem, standard_webhook_problem
from fanout.tasks.maintenance import forget_rotated_secrets
from fanout.times import to_epoch_ms

from .conftest import assert_error, free_port, run_queue, upload_post
from .webhook_receiver import insecure_urls, receiver, register, register_failing  # noqa: F401 (fixtures)

NOT_FOUND_WEBHOOK = "wh_00000000000000000000000000"


def requests_to(server, path: str) -> list:
    return [request for request, _ in server.log if request.path == path]


def deliveries(client, auth, hook_id: str) -> list[dict]:
    answer = client.get(f"/v1/webhooks/{hook_id}/deliveries", headers=auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


def patch(client, auth, hook_id: str, **body):
    return client.patch(f"/v1/webhooks/{hook_id}", headers=auth, json=body)


def standard_verifies(secret: str, request, entry: int | None = None) -> bool:
    """Whether `webhook-signature` (or only its `entry`-th signature) verifies with `secret`,
    as a receiver would the moment the request arrived."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    if entry is not None:
        headers["webhook-signature"] = headers["webhook-signature"].split(" ")[entry]
    return standard_webhook_problem(secret, request.get_data(), headers, int(headers["webhook-timestamp"])) is None


def verifies(secret: str, request) -> bool:
    """Whether both signatures of a received request verify with `secret`."""
    service = service_signature_problem(secret, request.get_data(), request.headers.get("X-Service-Signature"))
    return service is None and standard_verifies(secret, request)


# --- PATCH ---------------------------------------------------------------------------------


def test_patch_changes_what_is_sent_and_keeps_the_rest(client, auth, receiver):
    hook = register(client, auth, receiver.url_for("/a"))
    answer = patch(client, auth, hook["id"], url=receiver.url_for("/b"), events=["account.expired", "post.failed"])
    assert answer.status_code == 200, answer.text
    assert answer.json() == {**{k: v for k, v in hook.items() if k != "secret"}, "url": receiver.url_for("/b"),
                             "events": ["post.failed", "account.expired"]}
    assert client.get(f"/v1/webhooks/{hook['id']}", headers=auth).json() == answer.json()


def test_a_new_url_goes_to_the_next_attempt_of_a_pending_delivery(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/old").respond_with_data("no", status=503)
    receiver.expect_request("/new").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/old"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    assert patch(client, auth, hook["id"], url=receiver.url_for("/new")).status_code == 200
    clock.advance(seconds=60)
    run_queue(rt, clock)
    assert len(requests_to(receiver, "/old")) == len(requests_to(receiver, "/new")) == 1
    assert deliveries(client, auth, hook["id"])[0]["status"] == "succeeded"


def test_new_events_apply_to_events_recorded_from_then_on(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"), events=["post.failed"])
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    patch(client, auth, hook["id"], events=["post.completed"])
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    assert [json.loads(r.get_data())["event"] for r in requests_to(receiver, "/hook")] == ["post.completed"]


@pytest.mark.parametrize("insecure_urls", [False])
@pytest.mark.parametrize("url, why", [
    ("https://internal.example.com/x", "non-public"),
    ("https://nowhere.example.com/x", "does not resolve"),
    ("https://user:pw@hooks.example.com/x", "user info"),
    ("http://hooks.example.com/x", "https"),
])
def test_a_new_url_passes_the_guard_of_registration(client, auth, url, why):
    hook = register(client, auth, "https://hooks.example.com/x")
    message = assert_error(patch(client, auth, hook["id"], url=url), 400, "validation_error")
    assert why in message and message.startswith("url")
    assert client.get(f"/v1/webhooks/{hook['id']}", headers=auth).json()["url"] == "https://hooks.example.com/x"


@pytest.mark.parametrize("body", [{}, {"events": []}, {"events": ["webhook.test"]}, {"enabled": "no"},
                                  {"secret": "whsec_x"}, {"url": "ftp://hooks.example.com/x"}])
def test_patch_refuses_bodies_that_break_the_schema(client, auth, body):
    hook = register(client, auth, "https://hooks.example.com/x")
    assert_error(patch(client, auth, hook["id"], **body), 400, "validation_error")


def test_patch_of_an_unknown_or_foreign_registration_is_404(client, auth, other_auth):
    hook = register(client, auth, "https://hooks.example.com/x")
    assert_error(patch(client, other_auth, hook["id"], enabled=False), 404, "not_found")
    assert_error(patch(client, auth, NOT_FOUND_WEBHOOK, enabled=False), 404, "not_found")
    assert client.get(f"/v1/webhooks/{hook['id']}", headers=auth).json()["enabled"] is True


def test_a_disabled_registration_gets_no_new_deliveries(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    disabled = patch(client, auth, hook["id"], enabled=False).json()
    assert (disabled["enabled"], disabled["disabled_reason"]) == (False, "disabled by request")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    assert requests_to(receiver, "/hook") == [] and deliveries(client, auth, hook["id"]) == []
    enabled = patch(client, auth, hook["id"], enabled=True).json()
    assert (enabled["enabled"], enabled["disabled_reason"]) == (True, None)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    assert len(requests_to(receiver, "/hook")) == 1


def test_disabling_stops_the_pending_attempts(client, auth, accounts, rt, clock, receiver):
    hook = register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    patch(client, auth, hook["id"], enabled=False)
    [delivery] = deliveries(client, auth, hook["id"])
    assert (delivery["status"], delivery["next_attempt_at"]) == ("failed", None)
    for _ in range(10):
        clock.advance(hours=1)
        run_queue(rt, clock)
    assert len(requests_to(receiver, "/down")) == 1


# --- redelivery ----------------------------------------------------------------------------


def failed_delivery(client, auth, rt, clock, receiver) -> tuple[dict, dict]:
    """A registration whose one delivery failed its six attempts (its endpoint answered
    500), and that delivery."""
    receiver.expect_request("/flaky").respond_with_data("no", status=500)
    hook = register(client, auth, receiver.url_for("/flaky"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    for _ in range(40):
        clock.advance(minutes=15)
        run_queue(rt, clock)
    [delivery] = deliveries(client, auth, hook["id"])
    assert delivery["status"] == "failed" and len(delivery["attempts"]) == 6
    receiver.clear_all_handlers()  # the endpoint is fixed
    receiver.expect_request("/flaky").respond_with_data("", status=204)
    return hook, delivery


def test_a_failed_delivery_redelivered_arrives_with_the_same_event_id_and_body_signed_afresh(
        client, auth, accounts, rt, clock, receiver):
    hook, delivery = failed_delivery(client, auth, rt, clock, receiver)
    clock.advance(hours=3)
    answer = client.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", headers=auth)
    assert answer.status_code == 202, answer.text
    assert answer.json()["next_attempt_at"] == "2026-11-22T23:00:00.000Z" and answer.json()["status"] == "failed"
    run_queue(rt, clock)
    *before, last = requests_to(receiver, "/flaky")
    assert last.get_data() == before[0].get_data()
    assert last.headers["webhook-id"] == before[0].headers["webhook-id"] == delivery["event_id"]
    assert int(last.headers["webhook-timestamp"]) == to_epoch_ms(clock.now) // 1000 != int(before[-1].headers["webhook-timestamp"])
    assert verifies(hook["secret"], last)
    [after] = deliveries(client, auth, hook["id"])
    assert after["status"] == "succeeded" and after["next_attempt_at"] is None
    assert [(a["number"], a["status_code"], a["redelivery"]) for a in after["attempts"]][-2:] == [
        (6, 500, False), (7, 204, True)]


def test_a_failed_redelivery_leaves_a_failed_delivery_failed_and_is_not_retried(client, auth, accounts, rt, clock, receiver):
    hook = register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    for _ in range(40):
        clock.advance(minutes=15)
        run_queue(rt, clock)
    [delivery] = deliveries(client, auth, hook["id"])
    client.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", headers=auth)
    run_queue(rt, clock)
    clock.advance(hours=12)
    run_queue(rt, clock)
    [after] = deliveries(client, auth, hook["id"])
    assert after["status"] == "failed" and after["next_attempt_at"] is None and len(after["attempts"]) == 7
    assert len(requests_to(receiver, "/down")) == 7


def test_a_redelivery_of_a_pending_delivery_keeps_its_schedule(client, auth, accounts, rt, clock, receiver):
    hook = register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = deliveries(client, auth, hook["id"])
    clock.advance(seconds=10)
    client.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", headers=auth)
    run_queue(rt, clock)
    [after] = deliveries(client, auth, hook["id"])
    assert after["status"] == "pending" and after["next_attempt_at"] == delivery["next_attempt_at"]
    clock.advance(seconds=50)  # the second scheduled attempt, a minute after the first
    run_queue(rt, clock)
    [later] = deliveries(client, auth, hook["id"])
    assert [a["redelivery"] for a in later["attempts"]] == [False, True, False]
    assert later["next_attempt_at"] == "2026-11-22T10:06:00.000Z"  # then 5 min: the schedule counts its own


def test_redelivering_a_delivery_twice_before_it_is_sent_asks_for_one_attempt(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = deliveries(client, auth, hook["id"])
    for _ in range(2):
        client.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", headers=auth)
    run_queue(rt, clock)
    assert len(requests_to(receiver, "/hook")) == 2  # the first delivery and one redelivery


def test_redelivery_of_a_delivery_not_this_registrations_is_404(client, auth, other_auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    other = register(client, auth, receiver.url_for("/hook"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = deliveries(client, auth, hook["id"])
    for path in (f"/v1/webhooks/{other['id']}/deliveries/{delivery['id']}/redeliver",
                 f"/v1/webhooks/{hook['id']}/deliveries/dlv_00000000000000000000000000/redeliver",
                 f"/v1/webhooks/{hook['id']}/deliveries/nope/redeliver"):
        assert_error(client.post(path, headers=auth), 404, "not_found")
    assert_error(client.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", headers=other_auth),
                 404, "not_found")


# --- the test ping -------------------------------------------------------------------------


def test_the_ping_answers_the_endpoints_status_and_is_signed(client, auth, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("", status=204)
    hook = register(client, auth, receiver.url_for("/hook"))
    answer = client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert (result["succeeded"], result["status_code"], result["error"]) == (True, 204, None)
    assert result["duration_ms"] >= 0 and result["attempted_at"] == "2026-11-22T10:00:00.000Z"
    [request] = requests_to(receiver, "/hook")
    body = json.loads(request.get_data())
    assert body == {"id": result["event_id"], "event": "webhook.test",
                    "webhook": {k: v for k, v in hook.items() if k != "secret"}, "timestamp": "2026-11-22T10:00:00.000Z"}
    assert request.headers["webhook-id"] == result["event_id"]
    assert verifies(hook["secret"], request)


def test_the_ping_reports_a_non_2xx_and_an_endpoint_that_does_not_answer(client, auth, receiver):
    receiver.expect_request("/teapot").respond_with_data("", status=418)
    refused = register(client, auth, receiver.url_for("/teapot"))
    nobody = register(client, auth, f"http://127.0.0.1:{free_port()}/nobody")
    teapot = client.post(f"/v1/webhooks/{refused['id']}/test", headers=auth).json()
    assert (teapot["succeeded"], teapot["status_code"], teapot["error"]) == (False, 418, None)
    down = client.post(f"/v1/webhooks/{nobody['id']}/test", headers=auth).json()
    assert (down["succeeded"], down["status_code"], down["error"]) == (False, None, "connect")


def test_the_ping_of_an_endpoint_that_does_not_answer_says_why(client, auth, receiver):
    nobody = register(client, auth, f"http://127.0.0.1:{free_port()}/nobody")
    down = client.post(f"/v1/webhooks/{nobody['id']}/test", headers=auth).json()
    assert (down["error"], down["error_message"]) == ("connect", "could not connect to 127.0.0.1: connection refused")


def test_the_ping_goes_to_that_registration_alone_and_leaves_no_trace(client, auth, receiver):
    receiver.expect_request("/a").respond_with_data("ok")
    receiver.expect_request("/b").respond_with_data("ok")
    a = register(client, auth, receiver.url_for("/a"))
    b = register(client, auth, receiver.url_for("/b"))
    client.post(f"/v1/webhooks/{a['id']}/test", headers=auth)
    assert (len(requests_to(receiver, "/a")), len(requests_to(receiver, "/b"))) == (1, 0)
    assert deliveries(client, auth, a["id"]) == [] and deliveries(client, auth, b["id"]) == []
    assert client.get("/v1/events", headers=auth).json()["data"] == []


def test_a_disabled_registration_can_still_be_pinged(client, auth, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    patch(client, auth, hook["id"], enabled=False)
    assert client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth).json()["succeeded"] is True


def test_the_ping_passes_the_url_guard(client, auth, rt, resolver):
    hook = register(client, auth, "https://hooks.example.com/x")
    resolver.names["hooks.example.com"] = ["10.0.0.9"]  # the name moved to a private address
    rt.outbound = Outbound(resolve=rt.resolve, insecure=False)
    result = client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth).json()
    assert (result["succeeded"], result["error"]) == (False, "unsafe_url")


def test_the_ping_of_an_unknown_or_foreign_registration_is_404(client, auth, other_auth):
    hook = register(client, auth, "https://hooks.example.com/x")
    assert_error(client.post(f"/v1/webhooks/{hook['id']}/test", headers=other_auth), 404, "not_found")
    assert_error(client.post(f"/v1/webhooks/{NOT_FOUND_WEBHOOK}/test", headers=auth), 404, "not_found")


# --- secret rotation -----------------------------------------------------------------------


def rotate(client, auth, hook_id: str, **body) -> dict:
    answer = client.post(f"/v1/webhooks/{hook_id}/rotate-secret", headers=auth, json=body or None)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_rotation_answers_a_new_secret_once_and_the_overlaps_end(client, auth):
    hook = register(client, auth, "https://hooks.example.com/x")
    rotated = rotate(client, auth, hook["id"])
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != hook["secret"]
    assert rotated["previous_secret_expires_at"] == "2026-11-23T10:00:00.000Z"  # 24 hours by default
    got = client.get(f"/v1/webhooks/{hook['id']}", headers=auth)
    assert got.json() == {k: v for k, v in rotated.items() if k != "secret"}
    assert rotated["secret"] not in got.text + client.get("/v1/webhooks", headers=auth).text
    assert rotate(client, auth, hook["id"], expire_after_seconds=60)["previous_secret_expires_at"] == (
        "2026-11-22T10:01:00.000Z")
    assert rotate(client, auth, hook["id"], expire_after_seconds=0)["previous_secret_expires_at"] is None


@pytest.mark.parametrize("body", [{"expire_after_seconds": -1}, {"expire_after_seconds": 604801},
                                  {"expire_after_seconds": "60"}, {"overlap": 60}])
def test_rotation_refuses_an_overlap_outside_0_to_7_days(client, auth, body):
    hook = register(client, auth, "https://hooks.example.com/x")
    answer = client.post(f"/v1/webhooks/{hook['id']}/rotate-secret", headers=auth, json=body)
    assert_error(answer, 400, "validation_error")


def test_rotation_of_an_unknown_or_foreign_registration_is_404(client, auth, other_auth):
    hook = register(client, auth, "https://hooks.example.com/x")
    assert_error(client.post(f"/v1/webhooks/{hook['id']}/rotate-secret", headers=other_auth), 404, "not_found")
    assert_error(client.post(f"/v1/webhooks/{NOT_FOUND_WEBHOOK}/rotate-secret", headers=auth), 404, "not_found")


def test_both_secrets_are_encrypted_at_rest(client, auth, rt):
    hook = register(client, auth, "https://hooks.example.com/x")
    rotated = rotate(client, auth, hook["id"])
    with db.connection_context():
        stored = Webhook.get_by_id(hook["id"])
    assert hook["secret"] not in stored.previous_secret and rotated["secret"] not in stored.secret
    assert (rt.keyring.decrypt(stored.secret), rt.keyring.decrypt(stored.previous_secret)) == (
        rotated["secret"], hook["secret"])


def test_during_the_overlap_both_sign_new_first_and_after_it_only_the_new(client, auth, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    new = rotate(client, auth, hook["id"], expire_after_seconds=3600)
    client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)
    clock.advance(seconds=3599)
    client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)
    clock.advance(seconds=1)
    client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)
    first, last_second, after = requests_to(receiver, "/hook")
    for during in (first, last_second):
        assert len(during.headers["webhook-signature"].split(" ")) == 2
        assert standard_verifies(new["secret"], during, entry=0) and standard_verifies(hook["secret"], during, entry=1)
        assert verifies(new["secret"], during)  # X-Service-Signature is the new secret's
        assert not verifies(hook["secret"], during)
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    assert verifies(new["secret"], after) and not standard_verifies(hook["secret"], after)


def test_a_second_rotation_ends_the_first_ones_overlap(client, auth, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    second = rotate(client, auth, hook["id"])
    third = rotate(client, auth, hook["id"])
    client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)
    [request] = requests_to(receiver, "/hook")
    assert verifies(third["secret"], request) and standard_verifies(second["secret"], request, entry=1)
    assert len(request.headers["webhook-signature"].split(" ")) == 2 and not standard_verifies(hook["secret"], request)


def test_housekeeping_forgets_a_previous_secret_once_its_overlap_is_over(client, auth, rt, clock):
    hook = register(client, auth, "https://hooks.example.com/x")
    rotate(client, auth, hook["id"], expire_after_seconds=600)
    assert forget_rotated_secrets() == 0
    clock.advance(seconds=600)
    assert forget_rotated_secrets() == 1
    with db.connection_context():
        stored = Webhook.get_by_id(hook["id"])
    assert (stored.previous_secret, stored.previous_secret_expires_at) == (None, None)
    assert client.get(f"/v1/webhooks/{hook['id']}", headers=auth).json()["previous_secret_expires_at"] is None


# --- automatic disabling -------------------------------------------------------------------


def failing_for(client, auth, rt, clock, receiver, days: float) -> dict:
    """A registration whose endpoint answers 500, with a post to deliver every 6 hours for `days`."""
    hook = register_failing(client, auth, receiver)
    end = clock.now + dt.timedelta(days=days)
    while clock.now < end:
        upload_post(client, auth, platforms=["x"], media=[])
        run_queue(rt, clock)
        clock.advance(hours=6)
    return hook


def test_a_registration_whose_every_attempt_failed_for_5_days_is_disabled(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/watch").respond_with_data("ok")
    watcher = register(client, auth, receiver.url_for("/watch"), events=["webhook.disabled"])
    hook = failing_for(client, auth, rt, clock, receiver, days=5.25)
    got = client.get(f"/v1/webhooks/{hook['id']}", headers=auth).json()
    assert got["enabled"] is False
    assert got["disabled_reason"].startswith("every delivery attempt failed from 2026-11-22T10:00:00.000Z to ")
    assert all(d["status"] == "failed" for d in deliveries(client, auth, hook["id"]))
    [disabled] = client.get("/v1/events", headers=auth, params={"type": "webhook.disabled"}).json()["data"]
    assert disabled["webhook"] == got
    [sent] = requests_to(receiver, "/watch")
    assert json.loads(sent.get_data()) == disabled
    assert client.get(f"/v1/webhooks/{watcher['id']}", headers=auth).json()["enabled"] is True
    reenabled = patch(client, auth, hook["id"], enabled=True).json()
    assert (reenabled["enabled"], reenabled["disabled_reason"]) == (True, None)


def test_four_days_of_failures_do_not_disable(client, auth, accounts, rt, clock, receiver):
    hook = failing_for(client, auth, rt, clock, receiver, days=4)
    assert client.get(f"/v1/webhooks/{hook['id']}", headers=auth).json()["enabled"] is True


def test_one_success_starts_the_five_days_again(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = failing_for(client, auth, rt, clock, receiver, days=4)
    patch(client, auth, hook["id"], url=receiver.url_for("/hook"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)  # the new post's delivery succeeds
    with db.connection_context():
        assert Webhook.get_by_id(hook["id"]).failing_since is None
