"""Live X end to end, through HTTP only: the app on a real loopback server with X and
Threads apps, both emulators, a browser for the connect flow (PKCE), a media server; the
queue is run by the test, at the test's clock, as a worker would. Connect, text, image
and video posts with their permalinks, X and Threads together, the caps, the mapping table
of docs/platforms.md#the-x-adapter row by row through the engine, refresh-token rotation,
and never twice when a post's answer is lost or a worker dies at any call.
"""
from __future__ import annotations

import pytest
import requests

from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.media.server import sample_media_server
from ...media_files import mp4
from ..threads.test_live import publish_with_a_death
from .test_adapter import TWEETS, X_ROWS, problem
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect, connect_link, emulator, headers, live, only_target, port, query_of, run_for,
    served_with, threads_server,
)
from ..live import (  # noqa: F401 (fixtures)
    THREADS_APP, X_APP, connected_account, insecure_urls, stored, uploader, x_server,
)

X_USER, X_USERNAME = "1600000000000000001", "emu_x"
AUTH_ROWS = {row for row, *_, code in X_ROWS if code == "platform_auth_expired"}


@pytest.fixture
def xe(x_server, live):
    x_server.reset()
    x_server.consent_as(X_USER)
    x_server.redirect_uris = {f"{live}/connect/x/callback"}
    yield x_server
    assert not x_server.errors, x_server.errors[0]


@pytest.fixture
def settings(settings, port, threads_server, x_server):
    return served_with(settings, port, {"x": (x_server, X_APP), "threads": (threads_server, THREADS_APP)})


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", mp4(seconds=20, padding=2_500_000), "video/mp4")
        yield server


@pytest.fixture
def account(browser, live, headers, xe) -> str:
    return connected_account(browser, live, headers, "x")


upload = uploader("x")


def posts(xe) -> list:
    return xe.posts.get(X_USER, [])


def permalink(post) -> str:
    return f"https://x.com/{X_USERNAME}/status/{post.id}"


# --- connect -------------------------------------------------------------------------------

def test_connecting_adds_an_active_account_with_the_x_username(browser, live, headers, xe):
    query = connect(browser, live, headers, "x")
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "x", X_USERNAME, "active")


def test_the_browser_sees_the_challenge_never_the_verifier(browser, live, headers, xe):
    to_platform = browser.get(connect_link(live, headers, "x"), allow_redirects=False, timeout=10)
    query = query_of(to_platform.headers["location"])
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) == 43
    assert "code_verifier" not in to_platform.headers["location"]
    assert "offline.access" in query["scope"].split()


def test_refused_consent_comes_back_as_access_denied(browser, live, headers, xe):
    xe.deny_consent()
    assert connect(browser, live, headers, "x")["error"] == "access_denied"


def test_the_token_refreshes_before_its_two_hours_and_the_rotated_refresh_token_is_kept(
        live, headers, account, xe, rt, clock):
    before = stored(account)
    assert before.refresh_at <= before.token_expires_at and before.refresh_token
    clock.advance(hours=2)
    xe.advance(7200)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.refresh_token) != rt.keyring.decrypt(before.refresh_token)
    post = upload(live, headers, "with the new token")
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"


def test_a_refresh_token_x_no_longer_takes_expires_the_account_without_retrying(live, headers, account, xe, rt,
                                                                                clock):
    xe.revoke_tokens(X_USER)
    clock.advance(hours=2)
    xe.advance(7200)
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}
    assert stored(account).status == "expired"
    assert tokens.refresh_due_tokens(rt) == {}  # never tried again: the account must reconnect
    assert len(xe.calls_to("POST", r"/2/oauth2/token$")) == 2  # the exchange, the one refresh


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_publishes_with_its_permalink(live, headers, account, xe, rt, clock):
    post = upload(live, headers, "plain text")
    run_queue(rt, clock)
    [made] = posts(xe)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made)


def test_an_image_post_publishes_with_its_permalink(live, headers, account, xe, media, rt, clock):
    post = upload(live, headers, "a photo", [{"url": media.url("photo.jpg"), "type": "image"}])
    run_queue(rt, clock)
    [made] = posts(xe)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made) and len(made.media_ids) == 1


def test_a_video_post_publishes_after_processing_by_scheduled_steps(live, headers, account, xe, media, rt, clock):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    post = upload(live, headers, "a clip", [{"url": media.url("long.mp4"), "type": "video"}])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing" and posts(xe) == []
    run_for(rt, clock, xe, 60, every=10)
    [made] = posts(xe)
    assert only_target(live, headers, post["id"])["external_url"] == permalink(made)


def test_a_post_to_x_and_threads_publishes_on_both(browser, live, headers, account, emulator, xe, rt, clock):
    threads_account = query_of(browser.get(connect_link(live, headers), timeout=10).url)["account_id"]
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "both at once", "account_ids": [account, threads_account]})
    assert answer.status_code == 201, answer.text
    run_queue(rt, clock)
    post = requests.get(f"{live}/v1/posts/{answer.json()['id']}", headers=headers, timeout=10).json()
    urls = {t["platform"]: t["external_url"] for t in post["targets"]}
    [on_x] = posts(xe)
    [on_threads] = next(iter(emulator.posts.values()))
    assert post["status"] == "completed" and urls == {"x": permalink(on_x), "threads": on_threads.permalink}


def test_a_caption_over_280_weighted_fails_before_any_call(live, headers, account, xe, rt, clock):
    xe.reset()
    post = upload(live, headers, "世界" * 141)  # 282: CJK counts 2
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "caption_too_long" and xe.calls == []


# --- never twice -----------------------------------------------------------------------------

def test_an_ambiguous_post_leaves_exactly_one_post(live, headers, account, xe, rt, clock):
    xe.drop(*TWEETS)  # X posts it, then the connection is cut before the answer
    post = upload(live, headers, "said once https://example.com/a")
    run_queue(rt, clock)
    run_for(rt, clock, xe, 120, every=30)
    [made] = posts(xe)
    published = only_target(live, headers, post["id"])
    assert published["status"] == "published" and published["external_url"] == permalink(made)
    assert len(xe.calls_to(*TWEETS)) == 1


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_image_post_leaves_exactly_one_post(
        live, headers, account, xe, media, rt, clock, after):
    n = 1
    while True:
        before = len(posts(xe))
        post = upload(live, headers, f"death at call {n} {after}", [{"url": media.url("photo.jpg"), "type": "image"}])
        died = publish_with_a_death(rt, clock, n, after)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(posts(xe)) == before + 1, f"death at call {n}: {len(posts(xe)) - before} posts"
        assert published["external_url"] == permalink(posts(xe)[-1]), (n, published)  # read back, not left null
        if not died:
            break
        n += 1
    assert n > 2


# --- the caps and the mapping table, through the engine ------------------------------------

def test_the_101st_post_in_15_minutes_fails_rate_limited_without_a_call(live, headers, account, xe, rt, clock):
    for i in range(100):
        upload(live, headers, f"post {i}")
    run_queue(rt, clock)
    assert len(posts(xe)) == 100
    calls = len(xe.calls)
    post = upload(live, headers, "one too many")
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["error_code"] == "platform_rate_limited" and len(xe.calls) == calls


@pytest.mark.parametrize("row, call, status, body, with_image, code", X_ROWS, ids=[r[0] for r in X_ROWS])
def test_each_x_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, xe, media, rt, clock, row, call, status, body, with_image, code):
    xe.fail(*call, status, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        xe.revoke_tokens(X_USER)  # the one refresh the auth error earns is refused too
    items = [{"url": media.url("photo.jpg"), "type": "image"}] if with_image else []
    post = upload(live, headers, "hello", items)
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")
    assert posts(xe) == []


def test_a_5xx_through_the_engine_is_retried_then_ends_unknown(live, headers, account, xe, rt, clock):
    xe.fail(*TWEETS, 503, problem(503, "Service Unavailable", "Service Unavailable"), times=None)
    post = upload(live, headers, "hello")
    run_for(rt, clock, xe, 4 * 3600, every=1800)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "unknown_platform_error" and "gave up after 5 retries" in failed["error_message"]
