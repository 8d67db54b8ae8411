"""Live Instagram end to end, through HTTP only: the app on a real loopback server with
Instagram and Threads apps, both emulators, a browser for the connect flow, a media server
and a webhook receiver; the queue is run by the test, at the test's clock, as a worker
would. Connect (a personal account refused, a reconnect re-activating the account), an
image to Instagram and Threads, a carousel, a Reel, the rules checked before any call, the
daily quota, and the mapping table of docs/platforms.md#instagram row by row through the
engine (with the token refresh an auth error earns).
"""
from __future__ import annotations

import json

import pytest
import requests

from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.media import jpeg_bytes, png_bytes
from ...emulators.media.server import sample_media_server
from .test_adapter import CONTAINER_ROWS, CREATE, GRAPH_ROWS, PUBLISH, TRANSIENT_ROWS, graph_error
from ..threads.test_live import publish_with_a_death
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect_link, emulator, headers, hook, live, only_target, port, query_of, run_for, served_with,
    threads_server,
)
from ..live import (  # noqa: F401 (fixtures)
    INSTAGRAM_APP, THREADS_APP, connected_account, insecure_urls, instagram_server, stored, uploader,
)

IG_USER, IG_USERNAME = "17841400000000002", "emu_instagram"
AUTH_ROWS = {row for row, *_, code in GRAPH_ROWS if code == "platform_auth_expired"}


@pytest.fixture
def ig(instagram_server, live):
    instagram_server.reset()
    instagram_server.set_quota(50)
    instagram_server.consent_as(IG_USER)
    instagram_server.redirect_uris = {f"{live}/connect/instagram/callback"}
    yield instagram_server
    assert not instagram_server.errors, instagram_server.errors[0]


@pytest.fixture
def settings(settings, port, threads_server, instagram_server):
    """The suite's settings, served on `port`, with Instagram and Threads apps and both
    emulators' hosts."""
    return served_with(settings, port, {"instagram": (instagram_server, INSTAGRAM_APP),
                                        "threads": (threads_server, THREADS_APP)})


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/tall.jpg", jpeg_bytes(300, 600), "image/jpeg")  # 1:2, narrower than 4:5
        server.put("/png-named.jpg", png_bytes(800, 600), "image/jpeg")  # a PNG, whatever its name says
        yield server


def connect_instagram(browser, live, headers) -> dict:
    landed = browser.get(connect_link(live, headers, "instagram"), timeout=10)
    assert landed.status_code == 200, landed.text
    return {**query_of(landed.url), "page": landed.text}


@pytest.fixture
def account(browser, live, headers, ig) -> str:
    return connected_account(browser, live, headers, "instagram")


def photo(media, name="photo.jpg") -> dict:
    return {"url": media.url(name), "type": "image"}


def clip(media) -> dict:
    return {"url": media.url("clip.mp4"), "type": "video"}


upload = uploader("instagram")


def posts(ig) -> list:
    return ig.posts.get(IG_USER, [])


def account_status(account_id) -> str:
    return stored(account_id).status


# --- connect -------------------------------------------------------------------------------

def test_connecting_adds_an_active_account_with_the_instagram_username(browser, live, headers, ig):
    query = connect_instagram(browser, live, headers)
    assert (query["platform"], query["status"]) == ("instagram", "connected")
    assert "Your Instagram account is connected" in query["page"]
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"], listed["sandbox"]) == (
        query["account_id"], "instagram", IG_USERNAME, "active", False)


def test_the_browser_is_sent_to_instagram_with_its_scopes_and_a_state(browser, live, headers, ig):
    to_platform = browser.get(connect_link(live, headers, "instagram"), allow_redirects=False, timeout=10)
    location = to_platform.headers["location"]
    assert location.startswith(f"{ig.base_url}/oauth/authorize?")
    query = query_of(location)
    assert query["scope"] == ("instagram_business_basic,instagram_business_content_publish,"
                              "instagram_business_manage_comments")
    assert query["redirect_uri"] == f"{live}/connect/instagram/callback" and len(query["state"]) >= 40


def test_a_personal_account_is_refused_with_a_clear_page_and_no_account(browser, live, headers, ig):
    ig.add_user("just_me", user_id="17841400000000099", account_type="PERSONAL")
    ig.consent_as("17841400000000099")
    query = connect_instagram(browser, live, headers)
    assert query["error"] == "account_not_eligible" and "account_id" not in query
    assert "professional" in query["page"] and "Business or Creator" in query["page"]
    assert accounts(live, headers) == []


def test_a_personal_account_sends_the_error_to_the_clients_redirect_url(browser, live, headers, ig):
    ig.add_user("just_me", user_id="17841400000000099", account_type="PERSONAL")
    ig.consent_as("17841400000000099")
    link = connect_link(live, headers, "instagram", redirect_url="https://app.example.com/done")
    to_platform = browser.get(link, allow_redirects=False, timeout=10)
    back = browser.get(to_platform.headers["location"], allow_redirects=False, timeout=10).headers["location"]
    landed = browser.get(back, allow_redirects=False, timeout=10)
    assert landed.headers["location"] == "https://app.example.com/done?platform=instagram&error=account_not_eligible"


def test_refused_consent_comes_back_as_access_denied(browser, live, headers, ig):
    ig.deny_consent()
    assert connect_instagram(browser, live, headers)["error"] == "access_denied"


def test_a_reconnect_re_activates_the_same_account(browser, live, headers, ig, account, media, rt, clock):
    ig.revoke_tokens(IG_USER)
    ig.fail_refresh()
    post = upload(live, headers, media_items=[photo(media)])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["error_code"] == "platform_auth_expired"
    assert account_status(account) == "expired"
    again = connect_instagram(browser, live, headers)
    assert again["account_id"] == account and account_status(account) == "active"
    assert [a["id"] for a in accounts(live, headers)] == [account]


# --- publishing ----------------------------------------------------------------------------

def test_an_image_post_to_instagram_and_threads_is_published_on_both_and_the_webhook_carries_them(
        browser, live, headers, account, emulator, hook, httpserver, ig, media, rt, clock):
    threads_account = query_of(browser.get(connect_link(live, headers), timeout=10).url)["account_id"]
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "one photo, two platforms", "account_ids": [account, threads_account],
        "media": [photo(media)]})
    assert answer.status_code == 201, answer.text
    run_queue(rt, clock)
    post = requests.get(f"{live}/v1/posts/{answer.json()['id']}", headers=headers, timeout=10).json()
    assert post["status"] == "completed"
    urls = {t["platform"]: t["external_url"] for t in post["targets"]}
    [on_instagram] = posts(ig)
    [on_threads] = emulator.posts[next(iter(emulator.posts))]
    assert urls == {"instagram": on_instagram.permalink, "threads": on_threads.permalink}
    assert on_instagram.caption == "one photo, two platforms"
    delivered = [json.loads(request.get_data()) for request, _ in httpserver.log]
    assert {e["target"]["external_url"] for e in delivered} == set(urls.values())


def test_a_carousel_of_three_publishes_as_one_post(live, headers, account, ig, media, rt, clock):
    post = upload(live, headers, "three", [photo(media), clip(media), photo(media)])
    run_for(rt, clock, ig, 120, every=60)
    published = only_target(live, headers, post["id"])
    [made] = posts(ig)
    assert published["status"] == "published" and published["external_url"] == made.permalink
    assert made.media_type == "CAROUSEL_ALBUM" and len(made.children) == 3


def test_a_reel_publishes_after_its_processing(live, headers, account, ig, media, rt, clock):
    post = upload(live, headers, "a reel", [clip(media)])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing"  # parked, not slept on
    run_for(rt, clock, ig, 120, every=60)
    published = only_target(live, headers, post["id"])
    [made] = posts(ig)
    assert published["status"] == "published" and published["external_url"] == made.permalink


# --- rules before any call -----------------------------------------------------------------

@pytest.mark.parametrize("caption, why", [
    ("x" * 2201, "2200"),
    (" ".join(f"#tag{i}" for i in range(31)), "hashtags"),
    (" ".join(f"@user{i}" for i in range(21)), "@mentions"),
], ids=["2201 characters", "31 hashtags", "21 mentions"])
def test_a_caption_over_instagrams_caps_fails_before_any_call(live, headers, account, ig, media, rt, clock,
                                                              caption, why):
    ig.reset()  # forget the connect flow's calls
    post = upload(live, headers, caption, [photo(media)])
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "caption_too_long" and why in failed["error_message"]
    assert ig.calls == []


@pytest.mark.parametrize("name, why", [("png-named.jpg", "PNG"), ("tall.jpg", "aspect")])
def test_an_image_instagram_does_not_take_fails_from_its_fetched_bytes_before_any_call(
        live, headers, account, ig, media, rt, clock, name, why):
    ig.reset()
    post = upload(live, headers, "look", [photo(media, name)])
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "unsupported_media_for_platform" and why in failed["error_message"]
    assert ig.calls == []


def test_a_text_only_post_to_instagram_is_refused_at_create(live, headers, account):
    refused = upload(live, headers, "no media", expect=422)
    assert refused["error"]["code"] == "unsupported_media_for_platform"


def test_a_carousel_of_eleven_is_refused_at_create(live, headers, account, media):
    refused = upload(live, headers, "too many", [photo(media)] * 11, expect=422)
    assert refused["error"]["code"] == "unsupported_media_for_platform"


def test_the_post_over_the_daily_quota_fails_rate_limited_without_a_publish_call(
        live, headers, account, ig, media, rt, clock):
    ig.set_quota(1)
    first = upload(live, headers, "the first", [photo(media)])
    run_queue(rt, clock)
    second = upload(live, headers, "the second", [photo(media)])
    run_queue(rt, clock)
    assert only_target(live, headers, first["id"])["status"] == "published"
    assert only_target(live, headers, second["id"])["error_code"] == "platform_rate_limited"
    assert len(ig.calls_to(*PUBLISH)) == 1 and len(ig.calls_to(*CREATE)) == 1


# --- the mapping table, row by row, through the engine -------------------------------------

@pytest.mark.parametrize("row, call, status, body, code", GRAPH_ROWS, ids=[r[0] for r in GRAPH_ROWS])
def test_each_graph_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, ig, media, rt, clock, row, call, status, body, code):
    ig.fail(*call, status, body)
    if row in AUTH_ROWS:
        ig.fail_refresh()  # the one refresh the auth error earns is refused too
    post = upload(live, headers, "hello", [photo(media)])
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert account_status(account) == ("expired" if row in AUTH_ROWS else "active")
    assert posts(ig) == []


@pytest.mark.parametrize("row, call, status, body", TRANSIENT_ROWS, ids=[r[0] for r in TRANSIENT_ROWS])
def test_each_transient_error_through_the_engine_is_retried_then_ends_unknown(
        live, headers, account, ig, media, rt, clock, row, call, status, body):
    ig.fail(*call, status, body, times=None)
    post = upload(live, headers, "hello", [photo(media)])
    run_for(rt, clock, ig, 4 * 3600, every=1800)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", "unknown_platform_error")
    assert "gave up after 5 retries" in failed["error_message"] and posts(ig) == []


@pytest.mark.parametrize("status_code, status, code", CONTAINER_ROWS, ids=[r[1] or r[0] for r in CONTAINER_ROWS])
def test_each_container_outcome_through_the_engine_ends_in_its_code(
        live, headers, account, ig, media, rt, clock, status_code, status, code):
    ig.force_next_container(status_code, status)
    post = upload(live, headers, "a reel", [clip(media)])
    run_for(rt, clock, ig, 180, every=60)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert account_status(account) == "active"


def test_not_ready_for_publishing_through_the_engine_polls_and_publishes(live, headers, account, ig, media, rt,
                                                                         clock):
    ig.fail(*PUBLISH, 400, graph_error(9007, "The media is not ready for publishing", 2207027))
    post = upload(live, headers, "patience", [photo(media)])
    run_for(rt, clock, ig, 120, every=60)
    assert only_target(live, headers, post["id"])["status"] == "published" and len(posts(ig)) == 1


def test_a_builder_that_does_not_exist_through_the_engine_fails_container_expired_after_two_tries(
        live, headers, account, ig, media, rt, clock):
    ig.fail(*PUBLISH, 400, graph_error(24, "The media builder does not exist or has been expired", 2207008),
            times=None)
    post = upload(live, headers, "gone", [photo(media)])
    run_for(rt, clock, ig, 3600, every=300)
    assert only_target(live, headers, post["id"])["error_code"] == "container_expired"
    assert len(ig.calls_to(*PUBLISH)) == 3


def test_a_container_never_ready_fails_container_expired_at_the_window(live, headers, account, ig, media, rt, clock,
                                                                        settings):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    ig.force_next_container("IN_PROGRESS")
    post = upload(live, headers, "never", [clip(media)])
    run_for(rt, clock, ig, settings.of("instagram").container_window + 7200, every=3600)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "container_expired" and posts(ig) == []


# --- tokens and never twice ----------------------------------------------------------------

def test_an_auth_error_earns_one_refresh_and_one_replay_that_publishes(live, headers, account, ig, media, rt, clock):
    clock.advance(hours=25)  # Instagram refreshes tokens at least a day old
    ig.advance(25 * 3600)
    ig.fail(*CREATE, 400, graph_error(190, "Error validating access token: Session has expired", 463))
    post = upload(live, headers, "again", [photo(media)])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"
    assert len(ig.calls_to("GET", r"/refresh_access_token$")) == 1 and account_status(account) == "active"


def test_the_periodic_refresh_renews_the_token_once_its_time_came(live, headers, account, ig, media, rt, clock):
    before = stored(account)
    assert tokens.refresh_due_tokens(rt) == {}
    days = (before.refresh_at - clock.now).days + 1
    clock.advance(days=days)
    ig.advance(days * 86400)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.access_token) != rt.keyring.decrypt(before.access_token)
    assert after.token_expires_at > before.token_expires_at
    post = upload(live, headers, "with the new token", [photo(media)])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_image_post_leaves_exactly_one_post(
        live, headers, account, ig, media, rt, clock, after):
    n = 1
    while True:
        before = len(posts(ig))
        post = upload(live, headers, f"death at call {n} {after}", [photo(media)])
        died = publish_with_a_death(rt, clock, n, after)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(posts(ig)) == before + 1, f"death at call {n}: {len(posts(ig)) - before} posts"
        assert published["external_url"] == posts(ig)[-1].permalink, (n, published)  # read back, not left null
        if not died:
            break
        n += 1
    assert n > 4
