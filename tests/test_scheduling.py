"""Scheduled posts (docs/decisions.md#posts-in-time): `scheduled_at` on upload, no target
claimed before it, wake-ups enqueued only for what falls due soon, the sweeper for the
rest, and the lists' `scheduled` filter. The queue is run by the test at its clock."""
import datetime as dt

import pytest

from fanout.models import Post, Target, db
from fanout.models.account import connect_account
from fanout.models.upload import WAKE_AHEAD
from fanout.tasks import publishing

from .conftest import bearer, connect_sandbox_account, run_queue

NOW = dt.datetime(2026, 11, 22, 10, 0, 0)


def at(**delta) -> str:
    return (NOW + dt.timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def upload(client, auth, **body):
    return client.post("/v1/upload", headers=auth, json={"caption": "later", "platforms": ["x"], **body})


def scheduled(client, auth, **body) -> dict:
    answer = upload(client, auth, **body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def read(client, auth, post_id) -> dict:
    return client.get(f"/v1/posts/{post_id}", headers=auth).json()


def queued(rt) -> int:
    """Wake-up tasks in the queue: enqueued now, or scheduled for later."""
    return rt.queue.pending_count() + rt.queue.scheduled_count()


# --- the upload ---------------------------------------------------------------------------

def test_a_scheduled_upload_answers_201_pending_with_the_time_in_utc_milliseconds(client, auth, account):
    post = scheduled(client, auth, scheduled_at="2026-11-22T12:30:00.5+01:00")
    assert post["scheduled_at"] == "2026-11-22T11:30:00.500Z"
    assert post["status"] == "pending" and [t["status"] for t in post["targets"]] == ["pending"]
    assert read(client, auth, post["id"])["scheduled_at"] == "2026-11-22T11:30:00.500Z"


@pytest.mark.parametrize("value", [None, "absent"])
def test_a_null_or_absent_scheduled_at_publishes_at_once(client, auth, account, rt, clock, value):
    post = scheduled(client, auth) if value == "absent" else scheduled(client, auth, scheduled_at=None)
    assert post["scheduled_at"] is None
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"


@pytest.mark.parametrize("value, words", [
    (at(seconds=-61), "more than 60 s in the past"),
    (at(days=365, seconds=1), "more than 365 days ahead"),
    ("2026-11-22T12:00:00", "scheduled_at"),  # no offset
    ("tomorrow at noon", "scheduled_at"),
    ("2026-02-30T12:00:00Z", "scheduled_at"),
])
def test_a_time_out_of_range_or_not_a_time_is_400_naming_scheduled_at(client, auth, account, value, words):
    answer = upload(client, auth, scheduled_at=value)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "validation_error" and "scheduled_at" in error["message"] and words in error["message"]


@pytest.mark.parametrize("value", [at(seconds=-60), at(days=365)])
def test_the_edges_of_the_range_are_accepted(client, auth, account, value):
    assert upload(client, auth, scheduled_at=value).status_code == 201


def test_the_monthly_count_is_taken_at_creation(client, auth, account):
    scheduled(client, auth, scheduled_at=at(days=3))
    assert client.get("/v1/usage", headers=auth).json()["posts"]["used"] == 1


def test_every_upload_rule_applies_at_creation(client, auth, account):
    answer = upload(client, auth, scheduled_at=at(hours=1), platforms=["tiktok"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (422, "account_not_connected")


def test_an_idempotent_replay_answers_the_same_scheduled_post(client, auth, account):
    headers = {**auth, "Idempotency-Key": "later-1"}
    body = {"caption": "later", "platforms": ["x"], "scheduled_at": at(hours=1)}
    first = client.post("/v1/upload", headers=headers, json=body)
    again = client.post("/v1/upload", headers=headers, json=body)
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()


# --- publishing on time -------------------------------------------------------------------

def test_no_target_is_claimed_before_its_time_whatever_the_queue_holds(client, auth, account, rt, clock):
    post = scheduled(client, auth, scheduled_at=at(seconds=30))
    target_id = post["targets"][0]["id"]
    rt.tasks.publish(target_id)  # a stray wake-up, due at once
    publishing.publish_target(rt, target_id)  # and a worker running it directly
    run_queue(rt, clock)
    clock.advance(seconds=29, milliseconds=999)
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "pending"
    clock.advance(milliseconds=1)
    run_queue(rt, clock)
    done = read(client, auth, post["id"])
    assert done["status"] == "completed"
    assert done["targets"][0]["published_at"] == at(seconds=30)


def test_a_live_scheduled_post_waits_for_its_time_too(client, rt, clock, workspace, live_key):
    with db.connection_context():
        account = connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id="1",
                                  username="someone", access_token="t")
    headers = bearer(live_key)
    answer = client.post("/v1/upload", headers=headers, json={
        "caption": "later", "account_ids": [account.id], "scheduled_at": at(minutes=2)})
    assert answer.status_code == 201, answer.text
    post = answer.json()
    run_queue(rt, clock)
    assert read(client, headers, post["id"])["status"] == "pending"
    clock.advance(minutes=2)
    run_queue(rt, clock)
    # This app has no X app configured: the target is claimed at its time, and fails saying so.
    target = read(client, headers, post["id"])["targets"][0]
    assert (target["status"], target["error_code"]) == ("failed", "unknown_platform_error")


def test_a_post_falling_due_soon_gets_its_wake_up_with_the_upload(client, auth, account, rt, clock):
    scheduled(client, auth, scheduled_at=at(minutes=4))
    assert queued(rt) == 1


def test_a_post_far_ahead_puts_nothing_in_the_queue_until_the_sweeper_finds_it_near(client, auth, account, rt,
                                                                                     clock):
    post = scheduled(client, auth, scheduled_at=at(hours=2))
    assert queued(rt) == 0
    assert publishing.sweep(rt)["woken"] == []
    clock.advance(hours=2, seconds=-WAKE_AHEAD.total_seconds())
    assert publishing.sweep(rt)["woken"] == [post["targets"][0]["id"]]
    assert publishing.sweep(rt)["woken"] == []  # once
    assert queued(rt) == 1
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "pending"
    clock.advance(seconds=WAKE_AHEAD.total_seconds())
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"


def test_many_posts_far_ahead_leave_the_queue_empty(client, auth, account, rt, clock):
    for days in range(1, 21):
        scheduled(client, auth, scheduled_at=at(days=days))
    publishing.sweep(rt)
    assert queued(rt) == 0


def test_a_due_post_whose_wake_up_was_lost_is_found_by_the_sweeper(client, auth, account, rt, clock):
    post = scheduled(client, auth, scheduled_at=at(seconds=10))
    rt.queue.flush()  # the wake-up is lost
    clock.advance(seconds=10)
    assert publishing.sweep(rt)["targets"] == []  # due for less than 30 s: its task may be on its way
    clock.advance(seconds=30)
    assert publishing.sweep(rt)["targets"] == [post["targets"][0]["id"]]
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"


def test_a_worker_starting_takes_whatever_fell_due_while_none_ran(client, auth, account, rt, clock):
    post = scheduled(client, auth, scheduled_at=at(seconds=10))
    rt.queue.flush()
    clock.advance(seconds=11)
    assert publishing.sweep(rt, stale=dt.timedelta(0))["targets"] == [post["targets"][0]["id"]]


def test_a_wake_up_that_comes_early_enqueues_the_one_for_its_time(client, auth, account, rt, clock):
    post = scheduled(client, auth, scheduled_at=at(minutes=2))
    target_id = post["targets"][0]["id"]
    with db.connection_context():  # as if the wake-up had been enqueued for another time
        Target.update(wake_at=None).where(Target.id == target_id).execute()
    rt.queue.flush()
    publishing.publish_target(rt, target_id)
    assert queued(rt) == 1
    clock.advance(minutes=2)
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"


def test_a_post_scheduled_in_the_last_minute_publishes_at_once(client, auth, account, rt, clock):
    post = scheduled(client, auth, scheduled_at=at(seconds=-30))
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"


# --- lists ----------------------------------------------------------------------------------

def test_the_list_filters_by_scheduled_and_shows_scheduled_at(client, auth, account, rt, clock):
    later = scheduled(client, auth, scheduled_at=at(hours=1))
    clock.advance(seconds=1)
    now = scheduled(client, auth)
    clock.advance(seconds=1)
    past = scheduled(client, auth, scheduled_at=at(seconds=-10))

    def listed(**query) -> list:
        answer = client.get("/v1/posts", headers=auth, params=query)
        assert answer.status_code == 200, answer.text
        return [(p["id"], p["scheduled_at"]) for p in answer.json()["data"]]

    assert listed(scheduled="true") == [(later["id"], at(hours=1))]
    assert listed(scheduled="false") == [(past["id"], at(seconds=-10)), (now["id"], None)]
    assert len(listed()) == 3
    clock.advance(hours=1)  # its time has come: no longer in the future
    assert listed(scheduled="true") == []
