"""Changing and cancelling a post before it publishes (docs/decisions.md#posts-in-time):
PATCH and DELETE /v1/posts/{id}, allowed while every target is pending and unclaimed. The
queue is run by the test at its clock; what a sandbox target published is told by the
caption's cap (x takes 280: a caption over it fails the target with caption_too_long)."""
import datetime as dt

import pytest

from fanout.models import Account, Event, Target, db
from fanout.models.account import connect_account
from fanout.models.lifecycle import claim
from fanout.tasks import publishing

from .conftest import bearer, run_queue

LONG = "x" * 300  # over x's 280


def at(clock, **delta) -> str:
    return (clock.now + dt.timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@pytest.fixture
def post(client, auth, account, clock) -> dict:
    """A sandbox post to x, due in an hour."""
    answer = client.post("/v1/upload", headers=auth, json={
        "caption": "the first words", "platforms": ["x"], "scheduled_at": at(clock, hours=1)})
    assert answer.status_code == 201, answer.text
    return answer.json()


def patch(client, auth, post_id, **body):
    return client.patch(f"/v1/posts/{post_id}", headers=auth, json=body)


def read(client, auth, post_id):
    return client.get(f"/v1/posts/{post_id}", headers=auth)


def error_of(answer, status) -> dict:
    assert answer.status_code == status, answer.text
    return answer.json()["error"]


def publish_all(rt, clock, hours=1) -> None:
    """`hours` pass, and a worker runs: its sweeper, then the queue."""
    clock.advance(hours=hours)
    publishing.sweep(rt)
    run_queue(rt, clock)


def target_of(client, auth, post_id) -> dict:
    [target] = read(client, auth, post_id).json()["targets"]
    return target


# --- PATCH ----------------------------------------------------------------------------------

def test_an_edit_answers_200_with_the_post_as_it_now_is(client, auth, post):
    answer = patch(client, auth, post["id"], caption="new words")
    assert answer.status_code == 200, answer.text
    edited = answer.json()
    assert edited["caption"] == "new words"
    assert {k: v for k, v in edited.items() if k != "caption"} == {k: v for k, v in post.items() if k != "caption"}
    assert read(client, auth, post["id"]).json() == edited


def test_the_edited_content_is_what_publishes(client, auth, post, rt, clock):
    assert patch(client, auth, post["id"], caption=LONG).status_code == 200
    publish_all(rt, clock)
    assert target_of(client, auth, post["id"])["error_code"] == "caption_too_long"


def test_fields_left_out_keep_their_values(client, auth, post):
    media = [{"url": "https://cdn.example.com/a.jpg", "type": "image"}]
    edited = patch(client, auth, post["id"], media=media).json()
    assert (edited["caption"], edited["media"], edited["scheduled_at"]) == ("the first words", media,
                                                                          post["scheduled_at"])


def test_a_later_time_moves_the_publish(client, auth, post, rt, clock):
    edited = patch(client, auth, post["id"], scheduled_at=at(clock, hours=3)).json()
    assert edited["scheduled_at"] == at(clock, hours=3)
    publish_all(rt, clock, hours=1)  # the old time: the wake-up enqueued for it finds nothing due
    assert target_of(client, auth, post["id"])["status"] == "pending"
    publish_all(rt, clock, hours=2)
    assert target_of(client, auth, post["id"])["status"] == "published"


def test_an_earlier_time_near_enough_gets_its_wake_up_with_the_edit(client, auth, post, rt, clock):
    patch(client, auth, post["id"], scheduled_at=at(clock, minutes=2))
    run_queue(rt, clock)
    clock.advance(minutes=2)
    run_queue(rt, clock)  # no sweep ran: the edit enqueued it
    assert target_of(client, auth, post["id"])["status"] == "published"


def test_a_null_time_publishes_at_once(client, auth, post, rt, clock):
    assert patch(client, auth, post["id"], scheduled_at=None).json()["scheduled_at"] is None
    run_queue(rt, clock)
    assert target_of(client, auth, post["id"])["status"] == "published"


def test_a_post_published_at_once_can_be_changed_until_a_worker_claims_it(client, auth, account, rt, clock):
    created = client.post("/v1/upload", headers=auth, json={"caption": "now", "platforms": ["x"]}).json()
    assert patch(client, auth, created["id"], caption=LONG).status_code == 200
    run_queue(rt, clock)
    assert target_of(client, auth, created["id"])["error_code"] == "caption_too_long"


@pytest.mark.parametrize("field, value", [
    ("account_ids", ["acc_01"]), ("platforms", ["x"]), ("accounts", {"x": "acc_01"}), ("sandbox", True),
    ("simulate_error", "platform_rate_limited"),
])
def test_destinations_and_mode_cannot_change(client, auth, post, field, value):
    message = error_of(patch(client, auth, post["id"], **{field: value}), 400)["message"]
    assert message.startswith(field) and "cannot change" in message


@pytest.mark.parametrize("value, words", [
    ("2026-11-22T09:58:59.000Z", "more than 60 s in the past"),
    ("2027-11-23T10:00:00.000Z", "more than 365 days ahead"),
])
def test_a_time_out_of_range_is_400_as_on_upload(client, auth, post, value, words):
    error = error_of(patch(client, auth, post["id"], scheduled_at=value), 400)
    assert error["code"] == "validation_error" and words in error["message"]


def test_an_unchanged_time_past_its_range_does_not_stop_another_change(client, auth, account, rt, clock):
    created = client.post("/v1/upload", headers=auth, json={
        "caption": "soon", "platforms": ["x"], "scheduled_at": at(clock, seconds=1)}).json()
    clock.advance(minutes=5)  # no worker ran: still pending, its time long past
    assert patch(client, auth, created["id"], caption="still").status_code == 200


def test_media_the_platform_cannot_take_is_422_as_on_upload(client, auth, post):
    five = [{"url": f"https://cdn.example.com/{n}.jpg", "type": "image"} for n in range(5)]
    error = error_of(patch(client, auth, post["id"], media=five), 422)
    assert error["code"] == "unsupported_media_for_platform" and "media[4]" in error["message"]


def test_an_account_expired_since_is_422_account_not_connected(client, auth, post, account):
    with db.connection_context():
        Account.update(status="expired").where(Account.id == account["id"]).execute()
    assert error_of(patch(client, auth, post["id"], caption="again"), 422)["code"] == "account_not_connected"


def test_a_media_url_the_upload_refuses_is_400(client, auth, post):
    error = error_of(patch(client, auth, post["id"], media=[{"url": "http://cdn.example.com/a.jpg", "type": "image"}]),
                     400)
    assert error["message"].startswith("media[0].url: must be")


@pytest.mark.parametrize("how", ["published", "claimed"])
def test_a_post_a_worker_has_claimed_or_finished_is_409_post_not_editable(client, auth, post, rt, clock, how):
    if how == "published":
        publish_all(rt, clock)
    else:
        clock.advance(hours=1)
        with db.connection_context():
            claim(post["targets"][0]["id"], clock.now, dt.timedelta(minutes=5))
    error = error_of(patch(client, auth, post["id"], caption="too late"), 409)
    assert error["code"] == "post_not_editable"
    assert ("published" if how == "published" else "processing") in error["message"] and "x target" in error["message"]
    assert read(client, auth, post["id"]).json()["caption"] == "the first words"


def test_one_started_target_of_several_is_enough_for_409(client, auth, accounts, clock, rt):
    created = client.post("/v1/upload", headers=auth, json={
        "caption": "two", "platforms": ["x", "threads"], "scheduled_at": at(clock, hours=1)}).json()
    clock.advance(hours=1)
    with db.connection_context():
        claim(created["targets"][1]["id"], clock.now, dt.timedelta(minutes=5))
    assert "threads target is processing" in error_of(patch(client, auth, created["id"], caption="x"), 409)["message"]


def test_an_unknown_or_foreign_post_is_404(client, auth, post, other_auth):
    assert error_of(patch(client, auth, "post_00000000000000000000000000", caption="x"), 404)["code"] == "not_found"
    assert error_of(patch(client, other_auth, post["id"], caption="x"), 404)["code"] == "not_found"


def test_a_sandbox_key_cannot_change_or_cancel_a_live_post(client, rt, workspace, live_key, sandbox_key, clock):
    with db.connection_context():
        account = connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id="1",
                                  username="someone", access_token="t")
    created = client.post("/v1/upload", headers=bearer(live_key), json={
        "caption": "live", "account_ids": [account.id], "scheduled_at": at(clock, hours=1)}).json()
    sandbox = bearer(sandbox_key)
    assert error_of(patch(client, sandbox, created["id"], caption="x"), 403)["code"] == "sandbox_key_not_allowed"
    assert error_of(client.delete(f"/v1/posts/{created['id']}", headers=sandbox), 403)["code"] == \
        "sandbox_key_not_allowed"
    assert patch(client, bearer(live_key), created["id"], caption="changed").status_code == 200


def test_an_edit_counts_nothing_toward_the_month(client, auth, post):
    patch(client, auth, post["id"], caption="again")
    assert client.get("/v1/usage", headers=auth).json()["posts"]["used"] == 1


# --- DELETE ---------------------------------------------------------------------------------

def test_a_cancel_answers_204_and_the_post_is_gone(client, auth, post):
    answer = client.delete(f"/v1/posts/{post['id']}", headers=auth)
    assert (answer.status_code, answer.content) == (204, b"")
    assert error_of(read(client, auth, post["id"]), 404)["code"] == "not_found"
    assert client.get("/v1/posts", headers=auth).json()["data"] == []
    assert client.get("/v1/posts?scheduled=true", headers=auth).json()["data"] == []


def test_nothing_of_a_cancelled_post_is_published_whatever_the_queue_holds(client, auth, post, rt, clock):
    target_id = post["targets"][0]["id"]
    client.delete(f"/v1/posts/{post['id']}", headers=auth)
    rt.tasks.publish(target_id)  # a stray wake-up besides the one enqueued for its time
    publish_all(rt, clock)
    publishing.sweep(rt, stale=dt.timedelta(0))
    run_queue(rt, clock)
    with db.connection_context():
        assert Target.get_or_none(Target.id == target_id) is None
        assert Event.select().where(Event.type.startswith("post.")).count() == 0  # nothing published


def test_the_months_count_is_not_given_back(client, auth, post):
    client.delete(f"/v1/posts/{post['id']}", headers=auth)
    assert client.get("/v1/usage", headers=auth).json()["posts"]["used"] == 1


def test_a_post_a_worker_has_started_cannot_be_cancelled(client, auth, post, rt, clock):
    publish_all(rt, clock)
    error = error_of(client.delete(f"/v1/posts/{post['id']}", headers=auth), 409)
    assert error["code"] == "post_not_editable" and "cancelled" in error["message"]
    assert read(client, auth, post["id"]).status_code == 200


def test_cancelling_an_unknown_post_is_404(client, auth, post, other_auth):
    assert error_of(client.delete("/v1/posts/post_00000000000000000000000000", headers=auth), 404)["code"] == \
        "not_found"
    assert error_of(client.delete(f"/v1/posts/{post['id']}", headers=other_auth), 404)["code"] == "not_found"
    assert client.delete(f"/v1/posts/{post['id']}", headers=auth).status_code == 204
    assert error_of(client.delete(f"/v1/posts/{post['id']}", headers=auth), 404)["code"] == "not_found"


# --- the race with a claim, decided by the database ---------------------------------------

def test_an_edit_committed_before_the_claim_is_what_the_worker_publishes(client, auth, post, rt, clock):
    clock.advance(hours=1)
    assert patch(client, auth, post["id"], caption=LONG).status_code == 200  # due now, not claimed yet
    publishing.publish_target(rt, post["targets"][0]["id"])
    assert target_of(client, auth, post["id"])["error_code"] == "caption_too_long"


def test_a_claim_committed_before_the_edit_makes_it_409_and_the_old_content_publishes(client, auth, post, rt,
                                                                                        clock):
    clock.advance(hours=1)
    with db.connection_context():
        claim(post["targets"][0]["id"], clock.now, dt.timedelta(minutes=5))
    assert patch(client, auth, post["id"], caption=LONG).status_code == 409
    # The claiming worker dies; once its lease runs out the next one publishes what the post holds.
    clock.advance(minutes=6)
    publishing.sweep(rt)
    run_queue(rt, clock)
    assert target_of(client, auth, post["id"])["status"] == "published"


def test_a_change_that_leaves_the_post_without_text_or_media_is_400_and_changes_nothing(client, auth, post):
    error = error_of(patch(client, auth, post["id"], caption="  "), 400)
    assert error["message"].startswith("the post has no text and no media, and x needs a caption or media")
    assert read(client, auth, post["id"]).json()["caption"] == "the first words"


def test_new_media_with_alt_text_over_the_platforms_cap_is_422(client, auth, post):
    media = [{"url": "https://cdn.example.com/a.jpg", "type": "image", "alt_text": "a" * 1001}]
    error = error_of(patch(client, auth, post["id"], media=media), 422)
    assert error["code"] == "unsupported_media_for_platform" and "x allows 1000" in error["message"]
