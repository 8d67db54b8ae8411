"""Live Facebook end to end, through HTTP only: the app on a real loopback server with a
Facebook app and the Facebook emulator's hosts (www.facebook.com, graph.facebook.com,
graph-video.facebook.com, rupload.facebook.com), a browser for Facebook Login, a media
server; the queue is run by the test, at the test's clock, as a worker would. Connect (one
Page), text, link, photos, a Page video and a Reel with their permalinks, a first comment,
the caption cap, the Reels' day (in the preflight too), the mapping table of
docs/platforms.md#facebook through the engine (the token check an auth error earns, then
the account expired), sandbox accounts and posts, and never twice when a worker dies at
any call.
"""
from __future__ import annotations

import pytest
import requests

from fanout.platforms.base import App

from ...conftest import run_queue
from ...emulators.facebook import FacebookEmulator, movie_bytes
from ...emulators.media.server import sample_media_server
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect, connect_link, headers, only_target, port, query_of, run_for, serve_app,
    served_with,
)
from ..live import connected_account, insecure_urls, stored, uploader  # noqa: F401 (fixtures)
from ..threads.test_live import publish_with_a_death
from .test_adapter import FACEBOOK_ROWS, GRAPH_ROWS, PAGE, PAGE_NAME, USER, error_row, fresh, thirty_reels

FB_APP = App("fb-app-id", "fb-app-secret")


@pytest.fixture(scope="module")
def fb_server():
    with FacebookEmulator(FB_APP.client_id, FB_APP.client_secret) as server:
        yield server


@pytest.fixture
def settings(settings, port, fb_server):
    return served_with(settings, port, {"facebook": (fb_server, FB_APP)})


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


@pytest.fixture
def fb(fb_server, live, clock):
    """The emulator, its clock at the test's, the app's redirect URI registered, its one
    user managing its one Page."""
    fresh(fb_server, clock.now).redirect_uris = {f"{live}/connect/facebook/callback"}
    yield fb_server
    assert not fb_server.errors, fb_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/reel.mp4", movie_bytes(1080, 1920, 15, padding=50_000), "video/mp4")
        server.put("/landscape.mp4", movie_bytes(1920, 1080, 20), "video/mp4")
        yield server


@pytest.fixture
def account(browser, live, headers, fb) -> str:
    return connected_account(browser, live, headers, "facebook")


upload = uploader("facebook")


def posts(fb) -> list:
    return fb.posts[PAGE]


def videos(fb) -> list[dict]:
    return fb.videos[PAGE]


def photo(media, name: str = "photo.jpg") -> dict:
    return {"url": media.url(name), "type": "image"}


def clip(media, name: str) -> dict:
    return {"url": media.url(name), "type": "video"}


def page_token_of(rt, account_id) -> str:
    return rt.keyring.decrypt(stored(account_id).access_token)


# --- connect -------------------------------------------------------------------------------

def test_connecting_a_person_with_one_page_adds_that_page_named_by_its_name(browser, live, headers, fb, rt):
    query = connect(browser, live, headers, "facebook")
    assert query["status"] == "connected", query
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "facebook", PAGE_NAME, "active")
    account = stored(query["account_id"])
    assert account.platform_user_id == PAGE and account.token_expires_at is None and account.refresh_at is None
    [page_token] = [t for t in fb.tokens_of(USER) if t["type"] == "PAGE"]
    assert page_token["expires_at"] is None  # read with the 60-day user token: it does not expire


def test_a_person_with_several_pages_picks_one_on_the_connect_page_and_that_page_is_connected(
        browser, live, headers, fb, rt, clock):
    second = fb.add_page(USER, "Emu Cafe")
    picker = browser.get(connect_link(live, headers, "facebook"), timeout=10)
    assert picker.status_code == 200 and "<h1>Choose the Page to connect</h1>" in picker.text
    assert f'value="{PAGE}" required> {PAGE_NAME}' in picker.text and f'value="{second.id}" required> Emu Cafe' in picker.text
    assert accounts(live, headers) == []
    token = picker.text.split('name="pick" value="', 1)[1].split('"', 1)[0]
    done = browser.post(f"{live}/connect/facebook", data={"pick": token, "page_id": second.id}, timeout=10)
    assert query_of(done.url)["status"] == "connected"
    [listed] = accounts(live, headers)
    assert (listed["username"], stored(listed["id"]).platform_user_id) == ("Emu Cafe", second.id)
    upload(live, headers, "Hello from the cafe")
    run_queue(rt, clock)
    assert [p.message for p in fb.posts.get(second.id, [])] == ["Hello from the cafe"] and not fb.posts.get(PAGE)


def test_the_login_asks_for_the_page_permissions(browser, live, headers, fb):
    to_platform = browser.get(connect_link(live, headers, "facebook"), allow_redirects=False, timeout=10)
    assert query_of(to_platform.headers["location"])["scope"] == (
        "pages_show_list,pages_read_engagement,pages_manage_posts,pages_manage_engagement")


def test_a_person_who_says_no_comes_back_as_access_denied(browser, live, headers, fb):
    fb.deny_consent()
    assert connect(browser, live, headers, "facebook")["error"] == "access_denied"


def test_a_person_who_declines_publishing_comes_back_with_a_platform_error(browser, live, headers, fb):
    fb.decline(USER, ["pages_manage_posts"])
    assert connect(browser, live, headers, "facebook")["error"] == "platform_error"
    assert accounts(live, headers) == []


def test_a_person_who_gives_no_page_is_not_eligible(browser, live, headers, fb):
    fb.select_pages(USER, [])
    assert connect(browser, live, headers, "facebook")["error"] == "account_not_eligible"


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_with_a_link_publishes_with_its_permalink(live, headers, account, fb, rt, clock):
    post = upload(live, headers, "our menu: https://bakery.example.com/menu")
    run_queue(rt, clock)
    [made] = posts(fb)
    assert only_target(live, headers, post["id"])["external_url"] == made.permalink_url
    assert (made.message, made.link) == ("our menu: https://bakery.example.com/menu", "https://bakery.example.com/menu")


def test_one_photo_and_several_photos_are_one_post_each(live, headers, account, fb, media, rt, clock):
    one = upload(live, headers, "a photo", [{**photo(media), "alt_text": "Fresh bread"}])
    three = upload(live, headers, "three", [photo(media), photo(media, "photo.png"), photo(media, "square.jpg")])
    run_queue(rt, clock)
    first, second = posts(fb)
    assert [len(first.photos), len(second.photos)] == [1, 3]
    assert only_target(live, headers, one["id"])["external_url"] == first.permalink_url
    assert only_target(live, headers, three["id"])["external_url"] == second.permalink_url
    assert fb.photos[PAGE][0].alt_text == "Fresh bread"


def test_a_landscape_video_is_a_page_video_published_after_processing(live, headers, account, fb, media, rt, clock):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    post = upload(live, headers, "a clip", [clip(media, "landscape.mp4")])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing"
    run_for(rt, clock, fb, 30, every=5)
    [made] = videos(fb)
    assert made["kind"] == "video"
    assert only_target(live, headers, post["id"])["external_url"] == (
        f"https://www.facebook.com/emubakery/videos/{made['id']}/")


def test_a_vertical_video_is_a_reel_with_its_first_comment(live, headers, account, fb, media, rt, clock):
    post = upload(live, headers, "a reel", [clip(media, "reel.mp4")],
                  overrides={"facebook": {"first_comment": "sound on"}})
    run_for(rt, clock, fb, 30, every=5)
    [made] = videos(fb)
    target = only_target(live, headers, post["id"])
    assert made["kind"] == "reel" and target["external_url"] == f"https://www.facebook.com/reel/{made['id']}/"
    assert [c.message for c in fb.comments[made["id"]]] == ["sound on"] and target["first_comment_error"] is None


def test_the_longest_caption_the_api_takes_is_within_facebooks_cap(live, headers, account, fb, rt, clock):
    # The service's own bound (10,000 characters) lies under Facebook's 63,206, so this cap
    # is met in the rules alone (tests/platforms/test_rules.py).
    post = upload(live, headers, "a" * 10000)
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"
    assert len(posts(fb)[0].message) == 10000


def test_past_the_pages_30_reels_the_preflight_says_so_and_the_reel_fails_rate_limited(
        live, headers, account, fb, media, rt, clock):
    thirty_reels(fb, page_token_of(rt, account))
    body = {"caption": "one too many", "platforms": ["facebook"], "media": [clip(media, "reel.mp4")]}
    answer = requests.post(f"{live}/v1/upload/preflight", headers=headers, json=body, timeout=10).json()
    [target] = answer["targets"]
    assert answer["ok"] is False and [p["code"] for p in target["problems"]] == ["platform_rate_limited"]
    body["media"] = [clip(media, "landscape.mp4")]
    assert requests.post(f"{live}/v1/upload/preflight", headers=headers, json=body, timeout=10).json()["ok"] is True
    post = upload(live, headers, "one too many", [clip(media, "reel.mp4")])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["error_code"] == "platform_rate_limited"


# --- sandbox -------------------------------------------------------------------------------

def test_a_sandbox_account_and_post_need_no_facebook_at_all(client, auth, fb, rt, clock):
    started = client.post("/v1/accounts/facebook/connect", headers=auth, json={})
    landed = client.get(started.json()["url"].replace(rt.settings.connect_url, ""), follow_redirects=False)
    assert query_of(landed.headers["location"])["status"] == "connected"
    answer = client.post("/v1/upload", headers=auth, json={"caption": "hello", "platforms": ["facebook"],
                                                           "overrides": {"facebook": {"first_comment": "hi"}}})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["status"] == "published" and "/sandbox/facebook/" in target["external_url"]
    assert fb.calls == []


# --- the mapping table, through the engine ------------------------------------------------------

AUTH_ROWS = {row for row, *_, code in FACEBOOK_ROWS + GRAPH_ROWS if code == "platform_auth_expired"}
# The conditions of the account's own token (the others make a token of their own).
ENGINE_ROWS = [row for row in FACEBOOK_ROWS if row[1] not in ("unknown token", "no token", "no pages_manage_posts")]


@pytest.mark.parametrize("row, how, kind, code", ENGINE_ROWS, ids=[r[0] for r in ENGINE_ROWS])
def test_each_facebook_condition_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, fb, media, rt, clock, row, how, kind, code):
    items = {None: [], "image": [photo(media)], "reel": [clip(media, "reel.mp4")]}[kind]
    error_row(fb, how, page_token_of(rt, account))
    post = upload(live, headers, "hello", items)
    run_for(rt, clock, fb, 60, every=5)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if code == "platform_auth_expired" else "active")
    assert posts(fb) == [] and not [v for v in videos(fb) if v["published"]]


def test_a_permission_taken_back_expires_the_account_at_its_token_check(live, headers, account, fb, rt, clock):
    # The person removes pages_manage_posts from the app: the post is refused (#200), the
    # token check the refusal earns says the token no longer grants it, and the account
    # expires.
    fb.take_back(USER, "pages_manage_posts")
    post = upload(live, headers, "hello")
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "platform_auth_expired" and "pages_manage_posts" in failed["error_message"]
    assert stored(account).status == "expired" and posts(fb) == []


@pytest.mark.parametrize("row, call, body, kind, code", GRAPH_ROWS, ids=[r[0] for r in GRAPH_ROWS])
def test_each_graph_error_through_the_engine_ends_in_its_code(live, headers, account, fb, media, rt, clock, row,
                                                               call, body, kind, code):
    items = {None: [], "image": [photo(media)], "video": [clip(media, "landscape.mp4")]}[kind]
    fb.fail(*call, 400, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        fb.revoke(USER, 460)  # the token the auth error earns a look at has ended too
    post = upload(live, headers, "hello", items)
    run_for(rt, clock, fb, 60, every=5)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")


def test_a_video_facebook_could_not_process_fails_rejected_media(live, headers, account, fb, media, rt, clock):
    fb.fail_next_video("The video file you selected is in a format that we don't support.")
    post = upload(live, headers, "a clip", [clip(media, "landscape.mp4")])
    run_for(rt, clock, fb, 30, every=5)
    assert only_target(live, headers, post["id"])["error_code"] == "platform_rejected_media"


def test_media_fanout_cannot_fetch_fails_media_download_failed(live, headers, account, fb, media, rt, clock):
    post = upload(live, headers, "a photo", [photo(media, "missing.jpg")])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["error_code"] == "media_download_failed"
    assert not fb.calls_to("POST", rf"/{PAGE}/")


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_published_once(live, headers, account, fb, rt, clock):
    fb.drop("POST", rf"/{PAGE}/feed$")
    post = upload(live, headers, "said once")
    run_for(rt, clock, fb, 120, every=30)
    [made] = posts(fb)
    assert only_target(live, headers, post["id"])["external_url"] == made.permalink_url


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_a_photo_post_leaves_exactly_one_post_and_comment(
        live, headers, account, fb, media, rt, clock, after):
    n = 1
    while True:
        fb.set_clock(clock.now)  # each death moves our clock by a lease: Facebook's keeps up
        before = len(posts(fb))
        post = upload(live, headers, f"death at call {n} {after}", [photo(media), photo(media, "photo.png")],
                      overrides={"facebook": {"first_comment": f"comment {n} {after}"}})
        died = publish_with_a_death(rt, clock, n, after)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(posts(fb)) == before + 1, f"death at call {n}: {len(posts(fb)) - before} posts"
        made = posts(fb)[-1]
        assert published["external_url"] == made.permalink_url, (n, published)
        assert [c.message for c in fb.comments[made.id]] == [f"comment {n} {after}"], n
        if not died:
            break
        n += 1
    assert n > 4  # two photos, the post, its permalink, the comment


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_a_reel_leaves_exactly_one_reel(live, headers, account, fb, media, rt, clock,
                                                                        after):
    n = 1
    while True:
        fb.set_clock(clock.now)  # each death moves our clock by a lease: Facebook's keeps up
        before = len([v for v in videos(fb) if v["published"]])
        post = upload(live, headers, f"reel death at call {n} {after}", [clip(media, "reel.mp4")])
        died = publish_with_a_death(rt, clock, n, after)
        run_for(rt, clock, fb, 60, every=10)  # Facebook's clock catches up: the Reel is processed
        published = only_target(live, headers, post["id"])
        reels = [v for v in videos(fb) if v["published"]]
        assert published["status"] == "published", (n, published)
        assert len(reels) == before + 1, f"death at call {n}: {len(reels) - before} Reels"
        assert published["external_url"] == f"https://www.facebook.com/reel/{reels[-1]['id']}/", (n, published)
        if not died:
            break
        n += 1
    assert n > 4  # the day's count, the start, the bytes, the finish, the status
