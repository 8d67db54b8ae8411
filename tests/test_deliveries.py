"""Events and signed webhook deliveries with retries (docs/decisions.md#events, #signatures,
#deliveries-and-retries)."""
import datetime as dt
import hashlib
import hmac
import json
from dataclasses import replace
from pathlib import Path

import jsonschema
from standardwebhooks.webhooks import Webhook as StandardWebhook

from fanout.models import Delivery, DeliveryAttempt, db
from fanout.models.deliveries import claim_attempt, record_attempt
from fanout.outbound.client import Outbound
from fanout.tasks.publishing import publish_target

from .conftest import free_port, run_queue, upload_post
from .webhook_receiver import insecure_urls, receiver, register, register_failing  # noqa: F401 (fixtures)

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "contracts/events/post_event.schema.json").read_text())


def assert_standard_signature(secret: str, request) -> None:
    """Check `webhook-signature` with the standardwebhooks reference code. Its `verify` also
    compares `webhook-timestamp` with the real time, which this test's clock is not."""
    sent_at = dt.datetime.fromtimestamp(int(request.headers["webhook-timestamp"]), tz=dt.timezone.utc)
    expected = StandardWebhook(secret).sign(request.headers["webhook-id"], sent_at, request.get_data().decode())
    assert request.headers["webhook-signature"] == expected


def received(server):
    return [request for request, _ in server.log]


def test_three_targets_give_three_signed_events(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook", method="POST").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    post = upload_post(client, auth)
    run_queue(rt, clock)
    requests = received(receiver)
    assert len(requests) == 3
    seen_targets = set()
    for request in requests:
        raw = request.get_data()
        expected = "sha256=" + hmac.new(hook["secret"].encode(), raw, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(request.headers["X-Service-Signature"], expected)
        assert_standard_signature(hook["secret"], request)
        payload = json.loads(raw)
        jsonschema.validate(payload, SCHEMA)
        assert payload["event"] == "post.completed" and payload["post_id"] == post["id"]
        assert request.headers["webhook-id"] == payload["id"]
        assert request.headers["Content-Type"] == "application/json"
        seen_targets.add(payload["target"]["id"])
    assert seen_targets == {t["id"] for t in post["targets"]}


def test_a_failed_target_sends_post_failed_with_its_error(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    register(client, auth, receiver.url_for("/hook"))
    upload_post(client, auth, simulate_error="platform_rejected_media")
    run_queue(rt, clock)
    payloads = [json.loads(r.get_data()) for r in received(receiver)]
    assert len(payloads) == 3  # one per target
    for payload in payloads:
        jsonschema.validate(payload, SCHEMA)
        assert payload["event"] == "post.failed"
        assert payload["target"]["error_code"] == "platform_rejected_media"
        assert "external_url" not in payload["target"]


def test_only_subscribed_events_are_delivered(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/failed-only").respond_with_data("ok")
    register(client, auth, receiver.url_for("/failed-only"), events=["post.failed"])
    upload_post(client, auth, caption="a" * 600)  # threads and x fail, instagram publishes
    run_queue(rt, clock)
    events = sorted(json.loads(r.get_data())["target"]["platform"] for r in received(receiver))
    assert events == ["threads", "x"]


def test_every_registration_gets_its_own_delivery_signed_with_its_own_secret(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/a").respond_with_data("ok")
    receiver.expect_request("/b").respond_with_data("ok")
    a = register(client, auth, receiver.url_for("/a"))
    b = register(client, auth, receiver.url_for("/b"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    by_path = {r.path: r for r in received(receiver)}
    assert set(by_path) == {"/a", "/b"}
    for hook, path in ((a, "/a"), (b, "/b")):
        assert_standard_signature(hook["secret"], by_path[path])


def test_a_failing_endpoint_gets_six_attempts_on_the_schedule_then_the_delivery_fails(client, auth, accounts, rt, clock, receiver):
    hook = register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    start = clock.now
    run_queue(rt, clock)
    for _ in range(40):  # step through the next 9 hours a quarter hour at a time
        clock.advance(minutes=15)
        run_queue(rt, clock)
    with db.connection_context():
        [delivery] = Delivery.select()
        offsets = [(a.attempted_at - start).total_seconds() for a in
                   DeliveryAttempt.select().order_by(DeliveryAttempt.number)]
    assert len(received(receiver)) == 6
    assert delivery.status == "failed" and delivery.next_attempt_at is None
    # Each retry is due a set delay after the previous attempt; this test's clock moves in
    # quarter hours, so each lands at the first step on or after its due time.
    gaps = [b - a for a, b in zip(offsets, offsets[1:])]
    assert offsets[0] == 0
    for gap, delay in zip(gaps, [60, 300, 1800, 7200, 21600]):
        assert delay <= gap < delay + 900
    listed = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert listed[0]["status"] == "failed" and len(listed[0]["attempts"]) == 6
    assert {a["status_code"] for a in listed[0]["attempts"]} == {500}
    assert all(isinstance(a["duration_ms"], int) and a["duration_ms"] >= 0 for a in listed[0]["attempts"])
    # The post is untouched by its failed deliveries.
    post = client.get(f"/v1/posts/{listed[0]['post_id']}", headers=auth)
    assert post.status_code == 200 and post.json()["status"] == "completed"


def test_retries_come_exactly_on_the_schedule_with_a_precise_clock(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/down").respond_with_data("no", status=503)
    register(client, auth, receiver.url_for("/down"))
    upload_post(client, auth, platforms=["x"], media=[])
    start = clock.now
    run_queue(rt, clock)
    for due in [60, 360, 2160, 9360, 30960]:
        clock.now = start + dt.timedelta(seconds=due - 1)
        run_queue(rt, clock)
        attempts_before = len(received(receiver))
        clock.now = start + dt.timedelta(seconds=due)
        run_queue(rt, clock)
        assert len(received(receiver)) == attempts_before + 1, f"attempt due at {due} s"
    assert len(received(receiver)) == 6


def test_the_same_event_id_and_body_on_every_retry(client, auth, accounts, rt, clock, receiver):
    register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(seconds=60)
    run_queue(rt, clock)
    first, second = received(receiver)
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert first.get_data() == second.get_data()


def test_a_later_2xx_ends_the_retries(client, auth, accounts, rt, clock, receiver):
    receiver.expect_ordered_request("/flaky").respond_with_data("no", status=502)
    receiver.expect_ordered_request("/flaky").respond_with_data("ok", status=204)
    hook = register(client, auth, receiver.url_for("/flaky"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(hours=12)
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert delivery["status"] == "succeeded" and [a["status_code"] for a in delivery["attempts"]] == [502, 204]
    assert delivery["next_attempt_at"] is None


def test_a_redirect_is_not_followed_and_counts_as_a_failure(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/moved").respond_with_data("", status=302, headers={"Location": receiver.url_for("/elsewhere")})
    receiver.expect_request("/elsewhere").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/moved"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    assert [r.path for r in received(receiver)] == ["/moved"]
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert delivery["status"] == "pending" and delivery["attempts"][0]["status_code"] == 302


def test_an_unreachable_endpoint_records_the_error_class(client, auth, accounts, rt, clock, receiver):
    hook = register(client, auth, f"http://127.0.0.1:{free_port()}/nobody")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert delivery["attempts"][0]["status_code"] is None
    assert delivery["attempts"][0]["error"] == "connect"


def test_an_unreachable_endpoint_keeps_the_readable_reason_in_the_attempt(client, auth, accounts, rt, clock, receiver):
    hook = register(client, auth, f"http://127.0.0.1:{free_port()}/nobody")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert delivery["attempts"][0]["error_message"] == "could not connect to 127.0.0.1: connection refused"


def test_an_attempt_that_got_an_answer_has_no_error_message(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("", status=204)
    hook = register(client, auth, receiver.url_for("/hook"))
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert (delivery["attempts"][0]["error"], delivery["attempts"][0]["error_message"]) == (None, None)


def test_a_connection_error_is_retried_on_the_schedule(client, auth, accounts, rt, clock, receiver):
    hook = register(client, auth, f"http://127.0.0.1:{free_port()}/nobody")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(seconds=60)
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert [a["error"] for a in delivery["attempts"]] == ["connect", "connect"]
    assert delivery["status"] == "pending" and delivery["next_attempt_at"] == "2026-11-22T10:06:00.000Z"  # 5 min after the second


def test_a_private_address_is_refused_at_delivery_too(client, auth, accounts, rt, clock, resolver):
    hook = register(client, auth, "https://hooks.example.com/x")
    resolver.names["hooks.example.com"] = ["10.0.0.9"]  # the name moved to a private address
    rt.outbound = Outbound(resolve=rt.resolve, insecure=False)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth).json()["data"]
    assert delivery["attempts"][0]["error"] == "unsafe_url"


def test_deleting_a_registration_stops_its_deliveries(client, auth, accounts, rt, clock, receiver):
    hook = register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    client.delete(f"/v1/webhooks/{hook['id']}", headers=auth)
    clock.advance(hours=12)
    run_queue(rt, clock)
    assert len(received(receiver)) == 1


def test_deliveries_list_is_paged_newest_first(client, auth, accounts, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    for _ in range(3):
        upload_post(client, auth, platforms=["x"], media=[])
        run_queue(rt, clock)
        clock.advance(seconds=1)
    first = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth, params={"limit": 2}).json()
    rest = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=auth,
                      params={"limit": 2, "cursor": first["next_cursor"]}).json()
    created = [d["created_at"] for d in first["data"] + rest["data"]]
    assert created == sorted(created, reverse=True) and len(created) == 3
    assert first["has_more"] is True and rest["has_more"] is False
    assert all(d["status"] == "succeeded" for d in first["data"] + rest["data"])


def test_deliveries_of_another_workspaces_registration_are_404(client, auth, other_auth, receiver):
    hook = register(client, auth, receiver.url_for("/hook"))
    assert client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=other_auth).status_code == 404
    assert client.get("/v1/webhooks/wh_nope/deliveries", headers=auth).status_code == 404


def test_the_retry_schedule_setting_changes_the_delays(client, auth, accounts, rt, clock, receiver):
    rt.settings = replace(rt.settings, webhook_retry_schedule=(5, 10))
    register_failing(client, auth, receiver)
    upload_post(client, auth, platforms=["x"], media=[])
    start = clock.now
    run_queue(rt, clock)
    for seconds in (5, 15, 3600):
        clock.now = start + dt.timedelta(seconds=seconds)
        run_queue(rt, clock)
    assert len(received(receiver)) == 3


def test_an_attempt_that_ends_after_its_registration_was_deleted_is_dropped(client, auth, accounts, rt, clock, receiver):
    hook = register(client, auth, receiver.url_for("/hook"))
    target_id = upload_post(client, auth, platforms=["x"], media=[])["targets"][0]["id"]
    with db.connection_context():
        publish_target(rt, target_id)
        [delivery] = Delivery.select()
        claimed = claim_attempt(delivery.id, clock.now)
    client.delete(f"/v1/webhooks/{hook['id']}", headers=auth)  # while the attempt is under way
    with db.connection_context():
        assert record_attempt(claimed, started_at=clock.now, status_code=200, error=None, duration_ms=5,
                              schedule=(60,)) is None
        assert DeliveryAttempt.select().count() == 0
