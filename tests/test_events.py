"""The events log: GET /v1/events and /v1/events/{id}, the account events, the schema of
every event type, pruning (docs/decisions.md#the-events-log, #events)."""
import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from fanout.models import db
from fanout.models.account import connect_account
from fanout.models.tokens import expire_account
from fanout.models.webhook import disable_if_failing
from fanout.tasks.maintenance import prune_events
from fanout.tasks.publishing import publish_target

from . import webhook_receiver
from .conftest import assert_error, connect_sandbox_account, run_queue, upload_post
from .webhook_receiver import insecure_urls, reachable  # noqa: F401 (fixtures)

EVENTS_DIR = Path(__file__).resolve().parent.parent / "contracts" / "events"
SCHEMAS = {path.name: json.loads(path.read_text()) for path in EVENTS_DIR.glob("*.schema.json")}
SUBSCRIBABLE = ["post.completed", "post.failed", "account.connected", "account.disconnected", "account.expired",
                "webhook.disabled"]


def schema_of(kind: str) -> dict:
    """The one schema of contracts/events/ whose `event` enum names `kind`."""
    [schema] = [s for s in SCHEMAS.values() if kind in s["properties"]["event"]["enum"]]
    return schema


@pytest.fixture
def receiver(rt, resolver, httpserver):
    """A loopback endpoint answering 200; the local-development setting lets the service reach it."""
    reachable(rt, resolver, httpserver).expect_request("/hook").respond_with_data("ok")
    return httpserver


def register(client, auth, url, events=SUBSCRIBABLE):
    return webhook_receiver.register(client, auth, url, events)


def received(server) -> list[bytes]:
    return [request.get_data() for request, _ in server.log]


def listed(client, auth, **params) -> dict:
    answer = client.get("/v1/events", headers=auth, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def ids(page: dict) -> list[str]:
    return [e["id"] for e in page["data"]]


def test_each_entry_is_exactly_the_json_delivered_for_it(client, auth, accounts, rt, clock, receiver):
    register(client, auth, receiver.url_for("/hook"))
    upload_post(client, auth)
    run_queue(rt, clock)
    delivered = {json.loads(body)["id"]: json.loads(body) for body in received(receiver)}
    entries = listed(client, auth, type=["post.completed"])["data"]
    assert len(entries) == 3 and {e["id"]: e for e in entries} == {i: delivered[i] for i in (e["id"] for e in entries)}
    for entry in entries:
        assert client.get(f"/v1/events/{entry['id']}", headers=auth).json() == entry


def test_events_are_logged_with_no_registration_to_deliver_them(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [event] = listed(client, auth, post_id=post["id"])["data"]
    assert event["event"] == "post.completed" and event["target"]["id"] == post["targets"][0]["id"]


def test_the_list_is_newest_first_and_paged_by_cursor(client, auth, rt, clock):
    made = []
    for platform in ("x", "threads", "instagram", "tiktok", "x"):
        made.append(connect_sandbox_account(client, auth, platform)["id"])
        clock.advance(seconds=1)
    first = listed(client, auth, limit=2)
    second = listed(client, auth, limit=2, cursor=first["next_cursor"])
    last = listed(client, auth, limit=2, cursor=second["next_cursor"])
    assert (first["has_more"], second["has_more"], last["has_more"], last["next_cursor"]) == (True, True, False, None)
    walked = ids(first) + ids(second) + ids(last)
    assert [client.get(f"/v1/events/{i}", headers=auth).json()["account"]["id"] for i in walked] == made[::-1]


def test_type_repeated_filters_by_several_types(client, auth, rt, clock):
    account = connect_sandbox_account(client, auth, "x")
    upload_post(client, auth, platforms=["x"], media=[])
    upload_post(client, auth, platforms=["x"], media=[], simulate_error="caption_too_long")
    run_queue(rt, clock)
    assert client.delete(f"/v1/accounts/{account['id']}", headers=auth).status_code == 204
    kinds = lambda *types: sorted(e["event"] for e in listed(client, auth, type=list(types))["data"])  # noqa: E731
    assert kinds("post.failed") == ["post.failed"]
    assert kinds("post.completed", "account.disconnected") == ["account.disconnected", "post.completed"]
    assert kinds() == ["account.connected", "account.disconnected", "post.completed", "post.failed"]
    assert_error(client.get("/v1/events", headers=auth, params={"type": "post.created"}), 400, "validation_error")


def test_post_id_and_account_id_filter_the_log(client, auth, accounts, rt, clock):
    one = upload_post(client, auth, platforms=["x", "threads"], media=[])
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    by_post = listed(client, auth, post_id=one["id"])["data"]
    assert sorted(e["target"]["platform"] for e in by_post) == ["threads", "x"]
    by_account = listed(client, auth, account_id=accounts["x"]["id"])["data"]
    # The account's own event and those of its targets, newest first.
    assert [e["event"] for e in by_account] == ["post.completed", "post.completed", "account.connected"]
    assert listed(client, auth, post_id="post_00000000000000000000000000")["data"] == []


def test_after_lists_the_newer_events_oldest_first_and_its_cursor_goes_on(client, auth, accounts, rt, clock):
    mark = listed(client, auth, limit=1)["data"][0]["id"]
    posts = []
    for _ in range(5):
        posts.append(upload_post(client, auth, platforms=["x"], media=[])["id"])
        run_queue(rt, clock)
        clock.advance(seconds=1)
    first = listed(client, auth, after=mark, limit=3)
    rest = listed(client, auth, cursor=first["next_cursor"], limit=3)
    assert first["has_more"] is True and rest["has_more"] is False
    caught_up = first["data"] + rest["data"]
    assert [e["post_id"] for e in caught_up] == posts
    # Passing the last id seen as `after` again gives the same walk.
    again = listed(client, auth, after=first["data"][-1]["id"], limit=3)
    assert again["data"] == rest["data"]


def test_after_the_newest_event_lists_nothing(client, auth, account):
    newest = listed(client, auth)["data"][0]["id"]
    assert listed(client, auth, after=newest) == {"data": [], "next_cursor": None, "has_more": False}


@pytest.mark.parametrize("after", ["evt_00000000000000000000000000", "nope", "post_00000000000000000000000000"])
def test_after_that_names_no_event_of_the_log_is_400(client, auth, account, after):
    message = assert_error(client.get("/v1/events", headers=auth, params={"after": after}), 400, "validation_error")
    assert "after names no event" in message


def test_after_naming_another_workspaces_event_is_400(client, auth, other_auth, account):
    connect_sandbox_account(client, other_auth, "x")
    their_event = listed(client, other_auth)["data"][0]["id"]
    assert_error(client.get("/v1/events", headers=auth, params={"after": their_event}), 400, "validation_error")


def test_a_cursor_of_another_workspace_is_400(client, auth, other_auth, rt, clock):
    for platform in ("x", "threads"):
        connect_sandbox_account(client, other_auth, platform)
    cursor = listed(client, other_auth, limit=1)["next_cursor"]
    assert_error(client.get("/v1/events", headers=auth, params={"cursor": cursor}), 400, "validation_error")
    assert_error(client.get("/v1/events", headers=auth, params={"cursor": "garbage"}), 400, "validation_error")


def test_another_workspaces_event_is_404_like_an_unknown_one(client, auth, other_auth, account):
    event_id = listed(client, auth)["data"][0]["id"]
    foreign = client.get(f"/v1/events/{event_id}", headers=other_auth)
    unknown = client.get("/v1/events/evt_00000000000000000000000000", headers=other_auth)
    assert foreign.status_code == unknown.status_code == 404 and foreign.json() == unknown.json()
    assert client.get("/v1/events/anything", headers=auth).status_code == 404
    assert listed(client, other_auth)["data"] == []


def test_events_recorded_in_the_same_instant_keep_the_order_they_were_recorded_in(client, auth, accounts, rt, clock):
    """The test clock stands still: the log orders by recording, never by the ids' random part."""
    posts = [upload_post(client, auth, platforms=["x"], media=[]) for _ in range(6)]
    rt.queue.flush()
    published = posts[::-1]  # the last uploaded first
    with db.connection_context():
        for post in published:
            publish_target(rt, post["targets"][0]["id"])
    mark = listed(client, auth, type=["account.connected"], limit=1)["data"][0]["id"]
    assert [e["post_id"] for e in listed(client, auth, after=mark)["data"]] == [p["id"] for p in published]
    assert [e["post_id"] for e in listed(client, auth, type=["post.completed"])["data"]] == [p["id"] for p in posts]


def test_a_clock_stepping_back_does_not_reorder_the_log(client, auth, rt, clock):
    first = connect_sandbox_account(client, auth, "x")
    clock.advance(minutes=-5)  # another machine's clock, or this one corrected
    second = connect_sandbox_account(client, auth, "threads")
    newest_first = listed(client, auth)["data"]
    assert [e["account"]["id"] for e in newest_first] == [second["id"], first["id"]]
    # Each event's timestamp is when the log recorded it: in the log's order, as the log reads.
    assert [e["timestamp"] for e in newest_first] == ["2026-11-22T10:00:00.001Z", "2026-11-22T10:00:00.000Z"]


def test_account_connected_is_logged_for_a_new_account_and_for_a_reconnect(rt, workspace, client, auth, clock):
    with db.connection_context():
        account = connect_account(rt, workspace.id, platform="threads", sandbox=False, platform_user_id="17841",
                                  username="ada", access_token="a")
        expire_account(rt, account.id, "refused")
        clock.advance(seconds=1)
        connect_account(rt, workspace.id, platform="threads", sandbox=False, platform_user_id="17841",
                        username="ada_renamed", access_token="b")
    events = listed(client, auth, account_id=account.id)["data"]
    assert [e["event"] for e in events] == ["account.connected", "account.expired", "account.connected"]
    assert events[0]["account"] == {"id": account.id, "platform": "threads", "username": "ada_renamed",
                                    "status": "active", "connected_at": "2026-11-22T10:00:01.000Z", "sandbox": False}
    assert events[1]["account"]["status"] == "expired" and events[1]["reason"] == "refused"


def test_account_disconnected_shows_the_account_as_it_was(client, auth, account, rt, clock):
    clock.advance(seconds=1)
    assert client.delete(f"/v1/accounts/{account['id']}", headers=auth).status_code == 204
    [event] = listed(client, auth, type=["account.disconnected"])["data"]
    assert event["account"] == account


def test_disconnecting_logs_account_disconnected_before_the_failures_it_causes(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, platforms=["x"], media=[])
    client.delete(f"/v1/accounts/{accounts['x']['id']}", headers=auth)
    mark = listed(client, auth, type=["account.connected"])["data"][0]["id"]
    after = listed(client, auth, after=mark)["data"]
    assert [(e["event"], e.get("post_id")) for e in after] == [("account.disconnected", None), ("post.failed", post["id"])]


def test_account_events_go_to_registrations_subscribed_to_them(client, auth, rt, clock, receiver):
    register(client, auth, receiver.url_for("/hook"), events=["account.connected", "account.disconnected"])
    account = connect_sandbox_account(client, auth, "x")
    client.delete(f"/v1/accounts/{account['id']}", headers=auth)
    run_queue(rt, clock)
    bodies = [json.loads(b) for b in received(receiver)]
    assert [(b["event"], b["account"]["id"]) for b in bodies] == [("account.connected", account["id"]),
                                                                   ("account.disconnected", account["id"])]


def test_every_event_type_has_its_json_schema():
    covered = [kind for schema in SCHEMAS.values() for kind in schema["properties"]["event"]["enum"]]
    assert sorted(covered) == sorted([*SUBSCRIBABLE, "webhook.test"])  # each in exactly one schema


def test_every_payload_sent_matches_the_schema_of_its_type(client, auth, rt, clock, receiver, httpserver, workspace):
    """One event of every type, each delivered (the ping answered), each body validated."""
    hook = register(client, auth, receiver.url_for("/hook"))
    httpserver.expect_request("/down").respond_with_data("no", status=500)
    failing = register(client, auth, receiver.url_for("/down"), events=["post.completed"])
    accounts = {p: connect_sandbox_account(client, auth, p) for p in ("x", "threads")}
    upload_post(client, auth, platforms=["x", "threads"], media=[], caption="a" * 400)  # x fails, threads publishes
    run_queue(rt, clock)
    client.delete(f"/v1/accounts/{accounts['threads']['id']}", headers=auth)
    with db.connection_context():
        live = connect_account(rt, workspace.id, platform="threads", sandbox=False, platform_user_id="1",
                               username="ada", access_token="a")
        expired = expire_account(rt, live.id, "Threads refused to refresh the token")
    for delivery_id in expired:  # the token refresh task sends them so (fanout/tasks/tokens.py)
        rt.tasks.deliver(delivery_id)
    clock.advance(days=5)  # the failing registration's one attempt, five days ago
    with db.connection_context():
        assert disable_if_failing(rt, failing["id"], clock.now)
    assert client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth).json()["succeeded"] is True
    run_queue(rt, clock)
    bodies = [json.loads(b) for b in received(receiver)]
    assert sorted({b["event"] for b in bodies}) == sorted([*SUBSCRIBABLE, "webhook.test"])
    for body in bodies:
        Draft202012Validator(schema_of(body["event"])).validate(body)


def test_housekeeping_prunes_events_past_the_retention_with_their_deliveries(client, auth, accounts, rt, clock, receiver):
    register(client, auth, receiver.url_for("/hook"))
    old = upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(days=10)
    new = upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    rt.settings = replace(rt.settings, event_retention_days=7)
    assert prune_events() == 4  # three connects and the old post's event
    remaining = listed(client, auth)["data"]
    assert [e["post_id"] for e in remaining] == [new["id"]]
    assert old["id"] not in json.dumps(remaining)
    hook_id = client.get("/v1/webhooks", headers=auth).json()["data"][0]["id"]
    deliveries = client.get(f"/v1/webhooks/{hook_id}/deliveries", headers=auth).json()["data"]
    assert [d["post_id"] for d in deliveries] == [new["id"]]


def test_pruning_runs_hourly_and_keeps_30_days_by_default(rt, settings):
    assert settings.event_retention_days == 30
    due = [t.name for t in rt.queue.read_periodic(dt.datetime(2026, 11, 22, 10, 23))]
    assert "prune_events" in due


@pytest.mark.parametrize("filters, index", [
    ({}, "event_workspace_id_created_at_id"),
    ({"ascending": True}, "event_workspace_id_created_at_id"),
    ({"account_id": "acc_1"}, "event_workspace_id_account_id_created_at_id"),
    ({"post_id": "post_1"}, "event_post_id_created_at_id"),
])
def test_the_log_is_one_index_range_a_page(rt, workspace, filters, index):
    """A page reads its rows off an index in their order: no sort, no scan of other
    workspaces' events (the figures are bench/bench_events.py's)."""
    from fanout.models import event_log
    from fanout.models.db import is_sqlite

    if not is_sqlite():
        pytest.skip("SQLite's query plan is read here; bench/bench_events.py measures PostgreSQL")
    query = event_log.page_query(workspace.id, limit=20, after=(dt.datetime(2026, 1, 1), "evt_x"), **filters)
    with db.connection_context():
        sql, params = query.sql()
        plan = " ".join(row[-1] for row in db.execute_sql("EXPLAIN QUERY PLAN " + sql, params).fetchall())
    assert index in plan and "TEMP B-TREE" not in plan, plan
