"""Live LinkedIn end to end, through HTTP only: the app on a real loopback server with a
LinkedIn app and the LinkedIn emulator's hosts (www.linkedin.com, api.linkedin.com), a
browser for the OAuth flow, a media server; the queue is run by the test, at the test's
clock, as a worker would. Connect, text, image and video posts with their feed URLs, the
caps, tokens with and without refresh tokens, the mapping table of
docs/platforms.md#linkedin row by row through the engine, sandbox accounts and posts, and
never twice when a worker dies at any call.
"""
from __future__ import annotations

import pytest

from fanout.platforms.base import App
from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.linkedin import LinkedInEmulator
from ...emulators.media.server import sample_media_server
from ...media_files import mp4
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect, connect_link, headers, only_target, port, query_of, run_for, serve_app,
    served_with,
)
from ..live import connected_account, insecure_urls, stored, uploader  # noqa: F401 (fixtures)
from ..threads.test_live import publish_with_a_death
from .test_adapter import LINKEDIN_ROWS, NAME, POSTS, SUB, item_of, rest_error

AUTH_ROWS = {row for row, *_, code in LINKEDIN_ROWS if code == "platform_auth_expired"}


@pytest.fixture(scope="module")
def li_server():
    with LinkedInEmulator("li-client-id", "li-client-secret") as server:
        yield server


@pytest.fixture
def settings(settings, port, li_server):
    return served_with(settings, port, {"linkedin": (li_server, App("li-client-id", "li-client-secret"))})


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


@pytest.fixture
def li(li_server, live, clock):
    """The emulator, its clock at the test's (token ends are told as instants), the app's
    redirect URI registered."""
    li_server.reset()
    li_server.set_clock(clock.now)
    li_server.configure(refresh_tokens=False, daily_posts=150)
    li_server.redirect_uris = {f"{live}/connect/linkedin/callback"}
    yield li_server
    assert not li_server.errors, li_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", mp4(seconds=20, padding=9_000_000), "video/mp4")
        yield server


@pytest.fixture
def account(browser, live, headers, li) -> str:
    return connected_account(browser, live, headers, "linkedin")


upload = uploader("linkedin")


def posts(li) -> list:
    return li.posts[SUB]


def feed_url(post) -> str:
    return f"https://www.linkedin.com/feed/update/{post.urn}/"


# --- connect -------------------------------------------------------------------------------

def test_connecting_adds_an_active_account_named_by_the_member(browser, live, headers, li):
    query = connect(browser, live, headers, "linkedin")
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "linkedin", NAME, "active")
    assert stored(query["account_id"]).platform_user_id == SUB


def test_the_consent_asks_for_openid_profile_and_w_member_social(browser, live, headers, li):
    to_platform = browser.get(connect_link(live, headers, "linkedin"), allow_redirects=False, timeout=10)
    assert query_of(to_platform.headers["location"])["scope"] == "openid profile w_member_social"


def test_a_member_who_cancels_comes_back_as_access_denied(browser, live, headers, li):
    li.deny_consent()
    assert connect(browser, live, headers, "linkedin")["error"] == "access_denied"


def test_without_refresh_tokens_the_account_lives_until_its_token_ends_then_expires(
        live, headers, account, li, rt, clock):
    before = stored(account)
    assert before.refresh_token is None and before.refresh_at <= before.token_expires_at
    clock.advance(days=59, hours=23, minutes=30)
    li.advance((59 * 24 + 23.5) * 3600)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}  # still alive: kept, asked again later
    assert stored(account).token_expires_at == before.token_expires_at
    clock.advance(minutes=31)
    li.advance(31 * 60)
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}
    assert stored(account).status == "expired"


def test_with_refresh_tokens_the_token_is_renewed_before_its_60_days(browser, live, headers, li, rt, clock):
    li.configure(refresh_tokens=True)
    account = connect(browser, live, headers, "linkedin")["account_id"]
    before = stored(account)
    clock.advance(days=60)
    li.advance(60 * 86400)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.access_token) != rt.keyring.decrypt(before.access_token)
    post = upload(live, headers, "with the renewed token")
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_publishes_with_its_feed_url(live, headers, account, li, rt, clock):
    post = upload(live, headers, "plain text (with brackets) and #hashtags")
    run_queue(rt, clock)
    [made] = posts(li)
    assert only_target(live, headers, post["id"])["external_url"] == feed_url(made)
    assert made.text == "plain text (with brackets) and #hashtags"


def test_an_image_post_publishes_once_linkedin_has_the_image(live, headers, account, li, media, rt, clock):
    post = upload(live, headers, "a photo", [{"url": media.url("photo.jpg"), "type": "image"}])
    run_for(rt, clock, li, 10, every=1)
    [made] = posts(li)
    assert only_target(live, headers, post["id"])["external_url"] == feed_url(made)


def test_a_video_post_publishes_after_processing_by_scheduled_steps(live, headers, account, li, media, rt, clock):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    post = upload(live, headers, "a clip", [{"url": media.url("long.mp4"), "type": "video"}])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing" and posts(li) == []
    run_for(rt, clock, li, 60, every=5)
    [made] = posts(li)
    assert only_target(live, headers, post["id"])["external_url"] == feed_url(made)


def test_a_caption_over_3000_characters_once_escaped_fails_before_any_call(live, headers, account, li, rt, clock):
    li.reset()
    post = upload(live, headers, "a_" * 1001)
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "caption_too_long" and "linkedin allows 3000" in failed["error_message"]
    assert li.calls == []


# --- sandbox -------------------------------------------------------------------------------

def test_a_sandbox_account_and_post_need_no_linkedin_at_all(client, auth, li, rt, clock):
    started = client.post("/v1/accounts/linkedin/connect", headers=auth, json={})
    landed = client.get(started.json()["url"].replace(rt.settings.connect_url, ""), follow_redirects=False)
    assert query_of(landed.headers["location"])["status"] == "connected"
    answer = client.post("/v1/upload", headers=auth, json={"caption": "hello", "platforms": ["linkedin"]})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["status"] == "published" and "/sandbox/linkedin/" in target["external_url"]
    assert li.calls == []


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_published_once(live, headers, account, li, rt, clock):
    li.drop(*POSTS)
    post = upload(live, headers, "said once")
    run_for(rt, clock, li, 120, every=30)
    [made] = posts(li)
    assert only_target(live, headers, post["id"])["external_url"] == feed_url(made)


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_image_post_leaves_exactly_one_post(
        live, headers, account, li, media, rt, clock, after):
    n = 1
    while True:
        before = len(posts(li))
        post = upload(live, headers, f"death at call {n} {after}", [{"url": media.url("photo.jpg"), "type": "image"}])
        died = publish_with_a_death(rt, clock, n, after)
        run_for(rt, clock, li, 60, every=10)  # LinkedIn's clock catches up: the image is processed
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(posts(li)) == before + 1, f"death at call {n}: {len(posts(li)) - before} posts"
        assert published["external_url"] == feed_url(posts(li)[-1]), (n, published)
        if not died:
            break
        n += 1
    assert n > 3  # initialize, the PUT, the read back, the post


# --- the caps and the mapping table, through the engine --------------------------------------

def test_past_the_members_posts_of_the_day_the_next_fails_rate_limited_without_a_call(
        live, headers, account, li, rt, clock):
    li.configure(daily_posts=3)
    for i in range(3):
        upload(live, headers, f"post {i}")
    run_queue(rt, clock)
    post = upload(live, headers, "one too many")
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["error_code"] == "platform_rate_limited"


@pytest.mark.parametrize("row, call, status, body, kind, code", LINKEDIN_ROWS, ids=[r[0] for r in LINKEDIN_ROWS])
def test_each_linkedin_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, li, media, rt, clock, row, call, status, body, kind, code):
    li.fail(*call, status, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        li.revoke_tokens(SUB)  # the token the auth error earns a look at has ended too
    post = upload(live, headers, "hello", item_of(kind, media))
    run_for(rt, clock, li, 60, every=5)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")
    assert posts(li) == []


def test_a_5xx_through_the_engine_is_retried_then_ends_unknown(live, headers, account, li, rt, clock):
    li.fail(*POSTS, 503, rest_error(503, "Service Unavailable"), times=None)
    post = upload(live, headers, "hello")
    run_for(rt, clock, li, 4 * 3600, every=1800)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "unknown_platform_error" and "gave up after 5 retries" in failed["error_message"]
