"""Live Bluesky end to end, through HTTP only: the app on a real loopback server with the
Bluesky emulator's hosts (entryway, plc.directory, the PDS, the video service), the
credentials form of the connect page, a media server; the queue is run by the test, at the
test's clock, as a worker would. Connect, text, image and video posts with their
permalinks, the session refresh, the mapping table of docs/platforms.md#bluesky row by row
through the engine, sandbox accounts and posts, and never twice when a worker dies at any
call.
"""
from __future__ import annotations

import dataclasses

import pytest
import requests

from fanout.platforms.http import parse_hosts
from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.bluesky import BlueskyAccount, BlueskyEmulator
from ...emulators.media.server import sample_media_server
from ...media_files import mp4
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect_link, headers, only_target, port, query_of, run_for, serve_app,
)
from ..live import insecure_urls, stored, uploader  # noqa: F401 (fixtures)
from ..threads.test_live import publish_with_a_death
from .test_adapter import BLUESKY_ROWS, DID, HANDLE, APP_PASSWORD, CREATE, item_of, rkey_of, xrpc_error

FRIEND = BlueskyAccount("did:plc:friend2account3second4xx", "friend.bsky.social", app_passwords=("ffff-ffff-ffff-ffff",))
AUTH_ROWS = {row for row, *_, code in BLUESKY_ROWS if code == "platform_auth_expired"}


@pytest.fixture(scope="module")
def sky_server():
    with BlueskyEmulator(accounts=[BlueskyEmulator.DEFAULT_ACCOUNT, FRIEND]) as server:
        yield server


@pytest.fixture
def sky(sky_server, clock):
    """The emulator, its clock at the test's: a PDS and Fanout share the time of day (the
    video service's token carries an absolute expiry)."""
    sky_server.reset()
    sky_server.set_clock(clock.now)
    yield sky_server
    assert not sky_server.errors, sky_server.errors[0]


@pytest.fixture
def settings(settings, port, sky_server):
    """The suite's settings served on `port`, every Bluesky host sent to the emulator (no app:
    Bluesky has none)."""
    here = f"http://127.0.0.1:{port}"
    return dataclasses.replace(settings, base_url=here, connect_url=here,
                               platform_hosts=parse_hosts(sky_server.hosts_setting))


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", mp4(seconds=20, padding=2_500_000), "video/mp4")
        yield server


def sign_in(live, headers, identifier: str = HANDLE, password: str = APP_PASSWORD) -> requests.Response:
    """The connect page's form, as a browser fills it in: the link, then the form posted."""
    link = connect_link(live, headers, "bluesky")
    form = requests.get(link, timeout=10)
    assert form.status_code == 200 and 'name="identifier"' in form.text, form.text
    return requests.post(f"{live}/connect/bluesky", allow_redirects=False, timeout=10, data={
        "session": query_of(link)["session"], "identifier": identifier, "password": password})


@pytest.fixture
def account(live, headers, sky) -> str:
    landed = sign_in(live, headers)
    assert landed.status_code == 302, landed.text
    return query_of(landed.headers["location"])["account_id"]


upload = uploader("bluesky")


def posts(sky) -> list:
    return sky.posts[DID]


def permalink(record) -> str:
    return f"https://bsky.app/profile/{DID}/post/{rkey_of(record)}"


# --- connect -------------------------------------------------------------------------------

def test_the_form_connects_an_active_account_named_by_its_handle_and_did(live, headers, sky, rt):
    landed = sign_in(live, headers)
    query = query_of(landed.headers["location"])
    assert query["status"] == "connected"
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "bluesky", HANDLE, "active")
    assert stored(query["account_id"]).platform_user_id == DID


def test_a_wrong_app_password_shows_the_form_again_and_connects_nothing(live, headers, sky):
    page = sign_in(live, headers, password="wrong-wrong-wrong-wrong")
    assert page.status_code == 401 and "Bluesky did not accept this handle and app password." in page.text
    assert accounts(live, headers) == []


def test_the_session_is_refreshed_before_its_two_hours_and_posts_go_on(live, headers, account, sky, rt, clock):
    before = stored(account)
    assert before.refresh_at <= before.token_expires_at
    clock.advance(hours=2)
    sky.advance(7200)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.refresh_token) != rt.keyring.decrypt(before.refresh_token)
    post = upload(live, headers, "with the new session")
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"


def test_a_revoked_app_password_expires_the_account_at_its_refresh(live, headers, account, sky, rt, clock):
    sky.revoke_refresh(DID)
    clock.advance(hours=2)
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}
    assert stored(account).status == "expired"


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_publishes_with_its_permalink_and_facets(live, headers, account, sky, rt, clock):
    post = upload(live, headers, "see https://example.com/a #launch @friend.bsky.social")
    run_queue(rt, clock)
    [made] = posts(sky)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made)
    assert [f["features"][0]["$type"].rsplit("#", 1)[1] for f in made.value["facets"]] == ["link", "tag", "mention"]


def test_a_three_part_thread_of_the_override_publishes_in_order_as_replies(live, headers, account, sky, rt, clock):
    post = upload(live, headers, "1/3", overrides={"bluesky": {"thread": [{"caption": "2/3"}, {"caption": "3/3"}]}})
    run_queue(rt, clock)
    first = min(posts(sky), key=lambda r: r.parent is not None)
    chain = sky.thread(first.uri)
    assert [r.value["text"] for r in chain] == ["1/3", "2/3", "3/3"]
    assert all(r.value["reply"]["root"]["uri"] == first.uri for r in chain[1:])
    assert only_target(live, headers, post["id"])["external_url"] == permalink(first)


def test_an_image_post_publishes_with_its_permalink(live, headers, account, sky, media, rt, clock):
    post = upload(live, headers, "a photo", [{"url": media.url("photo.jpg"), "type": "image"}])
    run_queue(rt, clock)
    [made] = posts(sky)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made)
    assert made.embed["images"][0]["aspectRatio"] == {"width": 640, "height": 480}


def test_a_video_post_publishes_after_processing_by_scheduled_steps(live, headers, account, sky, media, rt, clock):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    post = upload(live, headers, "a clip", [{"url": media.url("long.mp4"), "type": "video"}])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing" and posts(sky) == []
    run_for(rt, clock, sky, 60, every=5)
    [made] = posts(sky)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made)
    assert made.embed["$type"] == "app.bsky.embed.video"


def test_a_caption_over_300_graphemes_fails_before_any_call(live, headers, account, sky, rt, clock):
    sky.reset()
    post = upload(live, headers, "é" * 301)
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "caption_too_long" and "bluesky allows 300" in failed["error_message"]
    assert sky.calls == []


# --- sandbox -------------------------------------------------------------------------------

def test_a_sandbox_account_and_post_need_no_bluesky_at_all(client, auth, sky, rt, clock):
    started = client.post("/v1/accounts/bluesky/connect", headers=auth, json={})
    landed = client.get(started.json()["url"].replace("http://connect.testserver", ""), follow_redirects=False)
    assert query_of(landed.headers["location"])["status"] == "connected"
    answer = client.post("/v1/upload", headers=auth, json={"caption": "hello", "platforms": ["bluesky"]})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["status"] == "published" and "/sandbox/bluesky/" in target["external_url"]
    assert sky.calls == []


def test_a_sandbox_post_is_held_to_blueskys_rules(client, auth, sky, rt, clock):
    started = client.post("/v1/accounts/bluesky/connect", headers=auth, json={})
    client.get(started.json()["url"].replace("http://connect.testserver", ""), follow_redirects=False)
    answer = client.post("/v1/upload", headers=auth, json={"caption": "x" * 301, "platforms": ["bluesky"]})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["error_code"] == "caption_too_long"


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_read_back_and_published_once(live, headers, account, sky, rt, clock):
    sky.drop(*CREATE)
    post = upload(live, headers, "said once")
    run_for(rt, clock, sky, 120, every=30)
    [made] = posts(sky)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made)
    assert len(sky.calls_to(*CREATE)) == 1


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_image_post_leaves_exactly_one_post(
        live, headers, account, sky, media, rt, clock, after):
    n = 1
    while True:
        before = len(posts(sky))
        post = upload(live, headers, f"death at call {n} {after}", [{"url": media.url("photo.jpg"), "type": "image"}])
        died = publish_with_a_death(rt, clock, n, after)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(posts(sky)) == before + 1, f"death at call {n}: {len(posts(sky)) - before} posts"
        assert published["external_url"] == permalink(posts(sky)[-1]), (n, published)
        if not died:
            break
        n += 1
    assert n > 3  # the DID document, the upload, the record


# --- the mapping table, through the engine ----------------------------------------------------

@pytest.mark.parametrize("row, call, status, body, kind, code", BLUESKY_ROWS, ids=[r[0] for r in BLUESKY_ROWS])
def test_each_bluesky_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, sky, media, rt, clock, row, call, status, body, kind, code):
    sky.fail(*call, status, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        sky.revoke_refresh(DID)  # the one refresh the auth error earns is refused too
    post = upload(live, headers, "hello", item_of(kind, media))
    run_for(rt, clock, sky, 60, every=5)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")
    assert posts(sky) == []


def test_a_5xx_through_the_engine_is_retried_then_ends_unknown(live, headers, account, sky, rt, clock):
    sky.fail(*CREATE, 502, xrpc_error("UpstreamFailure", "upstream failed"), times=None)
    post = upload(live, headers, "hello")
    run_for(rt, clock, sky, 4 * 3600, every=1800)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "unknown_platform_error" and "gave up after 5 retries" in failed["error_message"]
    assert posts(sky) == []
