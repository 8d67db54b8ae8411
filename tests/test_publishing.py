"""The publishing engine: the target state machine on the queue, sandbox publishing, the sweeper."""
import datetime as dt
from dataclasses import replace

import pytest

from fanout.models import Account, Event, Post, Target, db
from fanout.models.account import connect_account
from fanout.models.lifecycle import Outcome, claim, resolve
from fanout.tasks import publishing

from .conftest import IMAGE, bearer, run_queue, upload_post




def read(client, auth, post_id):
    return client.get(f"/v1/posts/{post_id}", headers=auth).json()


def test_a_sandbox_post_reaches_completed_when_the_worker_runs(client, auth, accounts, rt, clock):
    post = upload_post(client, auth)
    assert run_queue(rt, clock) == 3
    done = read(client, auth, post["id"])
    assert done["status"] == "completed"
    for target in done["targets"]:
        assert target["status"] == "published"
        assert target["external_url"] == f"http://testserver/sandbox/{target['platform']}/{target['id']}"
        assert target["published_at"] == "2026-11-22T10:00:00.000Z"
        assert target["error_code"] is None and target["error_message"] is None


def test_a_caption_over_one_platforms_cap_fails_only_that_target(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, caption="a" * 600)
    run_queue(rt, clock)
    done = read(client, auth, post["id"])
    by_platform = {t["platform"]: t for t in done["targets"]}
    assert by_platform["threads"]["status"] == "failed"
    assert by_platform["threads"]["error_code"] == "caption_too_long"
    assert "500" in by_platform["threads"]["error_message"]
    assert by_platform["x"]["status"] == "failed"  # 600 > 280 weighted as well
    assert by_platform["instagram"]["status"] == "published"
    assert done["status"] == "partial"


def test_simulate_error_fails_every_target_with_that_code(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, simulate_error="platform_rate_limited")
    run_queue(rt, clock)
    done = read(client, auth, post["id"])
    assert done["status"] == "failed"
    assert {(t["error_code"], t["error_message"]) for t in done["targets"]} == {
        ("platform_rate_limited", "simulated platform_rate_limited (sandbox simulate_error)")}


def test_the_same_request_always_gives_the_same_outcome(client, auth, accounts, rt, clock):
    first = upload_post(client, auth, caption="b" * 300)
    second = upload_post(client, auth, caption="b" * 300)
    run_queue(rt, clock)

    def outcome(post_id):
        return [(t["platform"], t["status"], t["error_code"], t["error_message"]) for t in read(client, auth, post_id)["targets"]]

    assert outcome(first["id"]) == outcome(second["id"])


def test_the_post_is_processing_while_a_target_is_in_flight(client, auth, accounts, rt, clock):
    post = upload_post(client, auth)
    with db.connection_context():
        claim(post["targets"][0]["id"], clock.now, dt.timedelta(minutes=5))
    assert read(client, auth, post["id"])["status"] == "processing"


def test_a_target_is_claimed_by_one_worker_only(client, auth, accounts, rt, clock):
    target_id = upload_post(client, auth)["targets"][0]["id"]
    with db.connection_context():
        assert claim(target_id, clock.now, dt.timedelta(minutes=5)) is not None
        assert claim(target_id, clock.now, dt.timedelta(minutes=5)) is None


def test_a_duplicate_task_publishes_once_and_emits_one_event(client, auth, accounts, rt, clock):
    post = upload_post(client, auth)
    for target in post["targets"]:
        rt.tasks.publish(target["id"])  # a second wake-up call for every target
    run_queue(rt, clock)
    with db.connection_context():
        assert Event.select().where(Event.post == post["id"]).count() == 3
        assert [t.attempts for t in Target.select()] == [1, 1, 1]


def test_a_worker_whose_lease_was_taken_back_cannot_settle_the_target(client, auth, accounts, rt, clock):
    target_id = upload_post(client, auth)["targets"][0]["id"]
    with db.connection_context():
        stale = claim(target_id, clock.now, dt.timedelta(seconds=1))
        clock.advance(seconds=2)
        publishing.sweep(rt)
        fresh = claim(target_id, clock.now, dt.timedelta(minutes=5))
        assert resolve(rt, stale, Outcome(external_url="https://late")) == []
        resolve(rt, fresh, Outcome(external_url="https://on-time"))
        assert Target.get_by_id(target_id).external_url == "https://on-time"
        assert Event.select().where(Event.target == target_id).count() == 1


def test_the_sweeper_takes_back_an_expired_lease_and_publishes_once(client, auth, accounts, rt, clock):
    post = upload_post(client, auth)
    target_id = post["targets"][0]["id"]
    with db.connection_context():
        claim(target_id, clock.now, dt.timedelta(seconds=rt.settings.publish_lease))  # a worker that then died
    run_queue(rt, clock)  # its task is gone: nothing moves the claimed target
    assert read(client, auth, post["id"])["status"] == "processing"
    clock.advance(seconds=rt.settings.publish_lease + 1)
    swept = publishing.sweep(rt)
    assert swept["reclaimed"] == [target_id]
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"
    with db.connection_context():
        assert Target.get_by_id(target_id).attempts == 2
        assert Event.select().where(Event.target == target_id).count() == 1


def test_the_sweeper_re_enqueues_targets_whose_task_was_lost(client, auth, accounts, rt, clock):
    post = upload_post(client, auth)
    rt.queue.flush()  # the queue lost every wake-up call
    clock.advance(seconds=29)
    assert publishing.sweep(rt)["targets"] == []
    clock.advance(seconds=2)
    assert len(publishing.sweep(rt)["targets"]) == 3
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"


def test_the_sweeper_runs_every_minute(rt):
    due = [t.name for t in rt.queue.read_periodic(dt.datetime(2026, 11, 22, 10, 1))]
    assert "sweep" in due


def test_disconnecting_fails_the_accounts_pending_targets_at_once(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, platforms=["x"], media=[])
    client.delete(f"/v1/accounts/{accounts['x']['id']}", headers=auth)
    [target] = read(client, auth, post["id"])["targets"]
    assert (target["status"], target["error_code"]) == ("failed", "platform_auth_expired")
    assert read(client, auth, post["id"])["status"] == "failed"
    run_queue(rt, clock)  # the publish task finds nothing left to do
    with db.connection_context():
        assert Event.select().where(Event.post == post["id"]).count() == 1


def test_a_target_whose_account_vanished_before_publishing_fails_with_auth_expired(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, platforms=["x"], media=[])
    with db.connection_context():
        Account.delete().where(Account.id == accounts["x"]["id"]).execute()
    run_queue(rt, clock)
    [target] = read(client, auth, post["id"])["targets"]
    assert (target["status"], target["error_code"]) == ("failed", "platform_auth_expired")


def test_a_live_target_on_a_platform_without_an_app_fails_naming_the_settings(client, rt, clock, workspace, live_key):
    with db.connection_context():
        connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id="1", username="me", access_token="t")
    live = bearer(live_key)
    post = client.post("/v1/upload", headers=live, json={"caption": "hi", "platforms": ["x"]}).json()
    run_queue(rt, clock)
    [target] = read(client, live, post["id"])["targets"]
    assert target["error_code"] == "unknown_platform_error"
    assert "FANOUT_X_CLIENT_ID and FANOUT_X_CLIENT_SECRET" in target["error_message"]


def test_the_sandbox_page_shows_the_published_post(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, caption="<b>Launch</b> day")
    run_queue(rt, clock)
    url = read(client, auth, post["id"])["targets"][0]["external_url"]
    page = client.get(url.replace("http://testserver", ""))
    assert page.status_code == 200
    assert "&lt;b&gt;Launch&lt;/b&gt; day" in page.text and "no platform was called" in page.text


def sandbox_page(client, auth, rt, clock, media):
    """The sandbox page of the instagram target of a post with `media`, once published."""
    post = upload_post(client, auth, platforms=["instagram"], media=media)
    run_queue(rt, clock)
    url = read(client, auth, post["id"])["targets"][0]["external_url"]
    return client.get(url.replace("http://testserver", ""))


def test_the_sandbox_page_shows_images_and_plays_videos_each_with_a_link(client, auth, accounts, rt, clock):
    media = [{"url": "https://cdn.example.com/a.jpg?size=1&v=<2>", "type": "image"},
             {"url": "https://cdn.example.com/b.mp4", "type": "video"}]
    page = sandbox_page(client, auth, rt, clock, media)
    assert page.status_code == 200
    assert '<img src="https://cdn.example.com/a.jpg?size=1&amp;v=&lt;2&gt;" alt="Image 1 of the post">' in page.text
    assert '<video src="https://cdn.example.com/b.mp4" controls preload="none"></video>' in page.text
    assert '<a href="https://cdn.example.com/b.mp4">https://cdn.example.com/b.mp4</a>' in page.text


def test_the_sandbox_page_loads_media_over_https_only_and_nothing_else(client, auth, accounts, rt, clock):
    page = sandbox_page(client, auth, rt, clock, [IMAGE])
    assert page.headers["content-security-policy"] == (
        "default-src 'none'; style-src 'self'; img-src https:; media-src https:")
    assert page.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("insecure_urls", [True])
def test_with_insecure_urls_the_sandbox_page_loads_http_media_too(client, auth, accounts, rt, clock):
    page = sandbox_page(client, auth, rt, clock, [{"url": "http://127.0.0.1:9204/photo.jpg", "type": "image"}])
    assert '<img src="http://127.0.0.1:9204/photo.jpg"' in page.text
    assert "img-src https: http:; media-src https: http:" in page.headers["content-security-policy"]


def test_the_sandbox_page_of_an_unpublished_target_is_404(client, auth, accounts):
    post = upload_post(client, auth)
    assert client.get(f"/sandbox/x/{post['targets'][0]['id']}").status_code == 404
    with db.connection_context():
        assert Post.select().count() == 1


class WorkerKilled(BaseException):
    """What a SIGKILL looks like from inside: nothing after it runs, no cleanup."""


def kill_in_flight(seconds):
    raise WorkerKilled()


def test_a_worker_killed_during_a_sandbox_call_leaves_a_target_that_publishes_once(
        client, auth, accounts, rt, clock):
    rt.settings = replace(rt.settings, sandbox_latency=1.0)
    post = upload_post(client, auth, platforms=["x"], media=[])
    target_id = post["targets"][0]["id"]
    rt.sleep = kill_in_flight  # the worker dies while the first (container) call is in flight
    with pytest.raises(WorkerKilled):
        run_queue(rt, clock)
    with db.connection_context():
        assert Target.get_by_id(target_id).status == "processing"
    rt.sleep = lambda seconds: None
    clock.advance(seconds=rt.settings.publish_lease + 1)
    assert publishing.sweep(rt)["reclaimed"] == [target_id]
    run_queue(rt, clock)
    assert read(client, auth, post["id"])["status"] == "completed"
    with db.connection_context():
        assert Target.get_by_id(target_id).attempts == 2
        assert Event.select().where(Event.target == target_id).count() == 1


def test_a_reclaimed_target_stays_processing_until_its_next_worker_settles_it(client, auth, accounts, rt, clock):
    post = upload_post(client, auth, platforms=["x"], media=[])
    target_id = post["targets"][0]["id"]
    with db.connection_context():
        claim(target_id, clock.now, dt.timedelta(seconds=1))
    clock.advance(seconds=2)
    publishing.sweep(rt)
    with db.connection_context():
        target = Target.get_by_id(target_id)
    assert (target.status, target.lease_expires_at, target.next_check_at) == ("processing", None, clock.now)
