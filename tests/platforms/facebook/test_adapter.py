"""The Facebook adapter (fanout/platforms/facebook/) against the Facebook emulator, over real
HTTP on loopback: Facebook Login for one Page and for several (a choice), the token check
that stands for a refresh, text and link posts, photos, a Page video and a Reel step by
step, first comments, the Reels' day, the mapping table of docs/platforms.md#facebook row
by row, answers that break Graph's contract, and never twice (a marker saved before every
creating call, read back before anything is sent again; a worker killed after any save).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.platforms.base import AccountNotEligible, AuthFailed, Choices, ClientRefused, Done, Grant, Job, Retry, Wait
from fanout.platforms.facebook import adapter as facebook
from fanout.platforms.http import PlatformHttp, PlatformUnreachable, parse_hosts

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, app, clocks, graph_error, http, image, outbound, step, video,
)
from ...emulators.clock import EmulatorClock
from ...emulators.facebook import FacebookEmulator, movie_bytes
from ...emulators.media import jpeg_bytes
from ...emulators.media.server import sample_media_server

START = dt.datetime(2026, 11, 22, 10, 0)
USER = FacebookEmulator.DEFAULT_USER.id
PAGE, PAGE_NAME = FacebookEmulator.DEFAULT_PAGE.id, FacebookEmulator.DEFAULT_PAGE.name
REDIRECT_URI = "https://c.example.com/connect/facebook/callback"
FEED = ("POST", rf"/{PAGE}/feed$")
PHOTOS = ("POST", rf"/{PAGE}/photos$")
VIDEOS = ("POST", rf"/{PAGE}/videos$")
REELS = ("POST", rf"/{PAGE}/video_reels$")
RUPLOAD = ("POST", r"/video-upload/")
COMMENTS = ("POST", r"/comments$")


@pytest.fixture(scope="module")
def fb_server():
    with FacebookEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


def fresh(server: FacebookEmulator, now) -> FacebookEmulator:
    """The emulator as a test starts with it: reset, its clock at `now`, its one user
    consenting and managing its one Page (a reset keeps users as they are), its limits."""
    server.reset()
    server.set_clock(now)
    server.consent_as(USER)
    [user] = [u for u in server.users if u.id == USER]
    for page_id in set(user.pages) - {PAGE}:
        server.remove_role(USER, page_id)
    server.add_page(USER, PAGE_NAME, PAGE)  # its role and every task again
    server.decline(USER, [])
    server.select_pages(USER, None)
    server.configure(reel_limit=30, processing_seconds={"video": 5.0, "reel": 3.0})
    return server


@pytest.fixture
def emulator(fb_server):
    yield fresh(fb_server, START)
    assert not fb_server.errors, fb_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/reel.mp4", movie_bytes(1080, 1920, 15, padding=300_000), "video/mp4")
        server.put("/turned.mp4", movie_bytes(1080, 1920, 20, turned=True), "video/mp4")
        server.put("/long-portrait.mp4", movie_bytes(1080, 1920, 120), "video/mp4")
        server.put("/four-five.mp4", movie_bytes(1080, 1350, 15), "video/mp4")
        server.put("/landscape.mp4", movie_bytes(1920, 1080, 20), "video/mp4")
        server.put("/big.jpg", jpeg_bytes(1200, 900), "image/jpeg")
        yield server


@pytest.fixture
def token(emulator) -> str:
    return emulator.page_token(PAGE, USER)


@pytest.fixture
def job(token):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="facebook", user_id=PAGE, username=PAGE_NAME, access_token=token,
                   caption=caption, media=tuple(items), **{"state": {}, **kwargs})
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(facebook, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts[PAGE]


def videos(emulator) -> list[dict]:
    return emulator.videos[PAGE]


def reel(media, name: str = "reel.mp4") -> dict:
    return video(media, name)


# --- Facebook Login -----------------------------------------------------------------------

def authorized(http, app) -> tuple[str, dict]:
    """The consent as the browser goes through it: (code, query sent to Facebook)."""
    authorization = facebook.authorize(app, REDIRECT_URI, "S1")
    sent = {k: v[0] for k, v in parse_qs(urlsplit(authorization.url).query).items()}
    back = requests.get(http.url(authorization.url), allow_redirects=False, timeout=5).headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(back).query).items()}
    assert query["state"] == "S1", query
    return query["code"], sent


def test_the_dialog_asks_for_the_page_permissions(http, app, emulator):
    _, sent = authorized(http, app)
    assert sent["scope"] == "pages_show_list,pages_read_engagement,pages_manage_posts,pages_manage_engagement"
    assert sent["response_type"] == "code" and sent["redirect_uri"] == REDIRECT_URI
    assert urlsplit(facebook.authorize(app, REDIRECT_URI, "S1").url).hostname == "www.facebook.com"


def test_one_page_is_one_grant_with_its_page_token_that_never_expires(http, app, clocks, emulator, settings):
    code, _ = authorized(http, app)
    grant = facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    assert isinstance(grant, Grant)
    assert (grant.user_id, grant.username, grant.expires_at, grant.refresh_token) == (PAGE, PAGE_NAME, None, None)
    [page_token] = [t for t in emulator.tokens_of(USER) if t["type"] == "PAGE"]
    assert page_token["page_id"] == PAGE and page_token["expires_at"] is None  # read with the 60-day token
    [exchanged] = emulator.calls_to("POST", r"/oauth/access_token$")[1:]
    assert exchanged.body["grant_type"] == "fb_exchange_token" and exchanged.body["fb_exchange_token"] == "***"


def test_several_pages_are_choices_of_page_id_one_grant_each(http, app, clocks, emulator, settings):
    second = emulator.add_page(USER, "Emu Cafe", username="emucafe")
    code, _ = authorized(http, app)
    choices = facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    assert isinstance(choices, Choices) and (choices.field, choices.noun) == ("page_id", "Page")
    assert [(g.user_id, g.username) for g in choices.grants] == [(PAGE, PAGE_NAME), (second.id, "Emu Cafe")]
    assert len({g.access_token for g in choices.grants}) == 2


def test_only_the_pages_the_person_selected_are_offered(http, app, clocks, emulator, settings):
    emulator.add_page(USER, "Emu Cafe")
    emulator.select_pages(USER, [PAGE])
    code, _ = authorized(http, app)
    grant = facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    assert isinstance(grant, Grant) and grant.user_id == PAGE


def test_a_page_the_person_cannot_create_content_on_is_left_out(http, app, clocks, emulator, settings):
    emulator.add_page(USER, "Emu Analytics", tasks=["ANALYZE"])
    code, _ = authorized(http, app)
    grant = facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    assert isinstance(grant, Grant) and grant.user_id == PAGE


def test_a_person_who_gave_no_page_is_not_eligible(http, app, clocks, emulator, settings):
    emulator.select_pages(USER, [])
    code, _ = authorized(http, app)
    with pytest.raises(AccountNotEligible, match="no Page"):
        facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)


def test_more_pages_than_one_read_are_read_page_after_page(http, app, clocks, emulator, settings):
    for n in range(120):
        emulator.add_page(USER, f"Emu Page {n}")
    code, _ = authorized(http, app)
    choices = facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    assert len(choices.grants) == 121 and len(emulator.calls_to("GET", r"/me/accounts$")) == 2


def test_declining_pages_manage_posts_fails_the_connect_naming_it(http, app, clocks, emulator, settings):
    emulator.decline(USER, ["pages_manage_posts"])
    code, _ = authorized(http, app)
    with pytest.raises(AuthFailed, match="pages_manage_posts"):
        facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)


def test_a_code_used_twice_is_refused(http, app, clocks, emulator, settings):
    code, _ = authorized(http, app)
    facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    with pytest.raises(AuthFailed, match="has been used") as refused:
        facebook.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now, settings=settings)
    assert code not in refused.value.reason


def test_a_wrong_app_secret_is_the_servers_setting_not_the_persons(http, clocks, emulator, settings):
    from fanout.platforms.base import App

    code, _ = authorized(http, App("app-id", "app-secret"))
    with pytest.raises(ClientRefused, match="FANOUT_FACEBOOK_CLIENT_ID"):
        facebook.exchange(http, App("app-id", "wrong"), code, REDIRECT_URI, now=clocks.ours.now, settings=settings)


def test_the_refresh_keeps_a_page_token_that_works(http, app, clocks, emulator, token):
    kept = facebook.refresh(http, app, token, None, now=clocks.ours.now)
    assert kept.access_token == token and kept.expires_at is None
    [check] = emulator.calls_to("GET", r"/debug_token$")
    assert "app-secret" not in str(check.query)  # the app's token goes as a header


@pytest.mark.parametrize("subcode", [458, 460, 467])
def test_the_refresh_of_a_revoked_page_token_is_auth_failed(http, app, clocks, emulator, token, subcode):
    emulator.revoke(USER, subcode)
    with pytest.raises(AuthFailed, match="connect the Page again") as refused:
        facebook.refresh(http, app, token, None, now=clocks.ours.now)
    assert token not in refused.value.reason


def test_the_refresh_of_a_token_without_pages_manage_posts_is_auth_failed(http, app, clocks, emulator):
    token = emulator.page_token(PAGE, USER, scopes=["pages_show_list", "pages_read_engagement"])
    with pytest.raises(AuthFailed, match="pages_manage_posts"):
        facebook.refresh(http, app, token, None, now=clocks.ours.now)


def test_a_refresh_with_a_wrong_app_secret_is_client_refused(http, clocks, emulator, token):
    from fanout.platforms.base import App

    with pytest.raises(ClientRefused):
        facebook.refresh(http, App("app-id", "wrong"), token, None, now=clocks.ours.now)


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_is_the_caption_on_the_feed_with_its_permalink(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("hello from fanout"), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink_url and post.message == "hello from fanout"
    assert post.link is None and "link" not in emulator.calls_to(*FEED)[0].body


def test_a_caption_with_a_link_sends_its_first_web_link(step, job, clocks, emulator):
    publish_to_the_end(step, job("read example.org then https://example.com/launch?x=1 and https://b.example"), clocks)
    [post] = posts(emulator)
    assert post.link == "https://example.com/launch?x=1"


def test_the_caption_is_sent_untouched(step, job, clocks, emulator):
    caption = "Ünïcode #tag @friend\n\nsecond line &amp; 100% 😀"
    publish_to_the_end(step, job(caption), clocks)
    assert posts(emulator)[0].message == caption


def test_one_photo_is_made_unpublished_then_attached_to_one_post(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a photo", {**image(media), "alt_text": "A red door"}), clocks)
    [post] = posts(emulator)
    [photo] = emulator.photos[PAGE]
    assert post.photos == (photo.id,) and photo.published is False and photo.alt_text == "A red door"
    assert done.outcome.external_url == post.permalink_url
    assert emulator.calls_to(*PHOTOS)[0].body["published"] == "false"


def test_ten_photos_are_one_post(step, job, clocks, emulator, media):
    items = [image(media, "photo.jpg" if n % 2 else "photo.png") for n in range(10)]
    done, _, _ = publish_to_the_end(step, job("ten", *items), clocks)
    [post] = posts(emulator)
    assert len(post.photos) == 10 and post.message == "ten" and done.outcome.published
    assert [p.id for p in emulator.photos[PAGE]] == list(post.photos)


def test_a_photo_post_may_have_no_caption(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("", image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and post.message == "" and "message" not in emulator.calls_to(*FEED)[0].body


def test_a_landscape_video_is_a_page_video_by_file_url_waited_for(step, job, clocks, emulator, media):
    done, results, _ = publish_to_the_end(step, job("a clip", video(media, "landscape.mp4")), clocks)
    [made] = videos(emulator)
    assert made["kind"] == "video" and made["how"] == "file_url" and made["description"] == "a clip"
    assert done.outcome.external_url == f"https://www.facebook.com/emubakery/videos/{made['id']}/"
    assert any(isinstance(r, Wait) for r in results) and posts(emulator) == []
    [call] = emulator.calls_to(*VIDEOS)
    assert call.body["file_url"] == media.url("landscape.mp4")


def test_the_page_video_goes_to_the_graph_video_host_and_no_byte_to_rupload(step, job, clocks, emulator, media):
    hosts = []

    class Recording(PlatformHttp):
        def url(self, url: str) -> str:
            hosts.append(urlsplit(url).hostname)
            return super().url(url)

    recording = Recording(parse_hosts(emulator.hosts_setting))

    def make(**kwargs):
        return dataclasses.replace(step(**kwargs), http=recording)
    publish_to_the_end(make, job("a clip", video(media, "landscape.mp4")), clocks)
    assert hosts.count("graph-video.facebook.com") == 1 and "rupload.facebook.com" not in hosts


@pytest.mark.parametrize("name", ["reel.mp4", "turned.mp4"])
def test_a_vertical_video_within_the_reel_limits_is_a_reel(step, job, clocks, emulator, media, name):
    done, results, _ = publish_to_the_end(step, job("a reel", reel(media, name)), clocks)
    [made] = videos(emulator)
    assert made["kind"] == "reel" and made["finish_state"] == "PUBLISHED" and made["description"] == "a reel"
    assert made["received"] == made["file_size"] == len(requests.get(media.url(name), timeout=5).content)
    assert done.outcome.external_url == f"https://www.facebook.com/reel/{made['id']}/"
    [upload] = emulator.calls_to(*RUPLOAD)
    assert upload.query == {} and any(isinstance(r, Wait) for r in results)
    assert [c.body["upload_phase"] for c in emulator.calls_to(*REELS)] == ["start", "finish"]


@pytest.mark.parametrize("name", ["long-portrait.mp4", "four-five.mp4", "clip.mp4"])
def test_a_video_outside_the_reel_limits_is_a_page_video(step, job, clocks, emulator, media, name):
    publish_to_the_end(step, job("a clip", video(media, name)), clocks)
    [made] = videos(emulator)
    assert made["kind"] == "video" and not emulator.calls_to(*REELS)


def test_a_first_comment_is_the_pages_comment_on_the_post(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("hello", first_comment="more in the comments"), clocks)
    [post] = posts(emulator)
    [comment] = emulator.comments[post.id]
    assert (comment.message, comment.page_id) == ("more in the comments", PAGE)
    assert done.outcome.external_url == post.permalink_url and done.outcome.first_comment_error is None


def test_a_videos_first_comment_is_on_the_video(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a reel", reel(media), first_comment="sound on"), clocks)
    [made] = videos(emulator)
    assert [c.message for c in emulator.comments[made["id"]]] == ["sound on"]


def test_a_refused_first_comment_leaves_the_post_published_saying_why(step, job, clocks, emulator):
    token = emulator.page_token(PAGE, USER, scopes=["pages_show_list", "pages_read_engagement", "pages_manage_posts"])
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("hello", first_comment="hi"), access_token=token),
                                    clocks)
    assert done.outcome.published and "pages_manage_engagement" in done.outcome.first_comment_error
    assert len(posts(emulator)) == 1 and emulator.comments == {}


# --- the Reels' day ---------------------------------------------------------------------------

def thirty_reels(emulator, token: str) -> None:
    """The Page's 30 Reels of the day, published straight through the emulator."""
    graph, data = emulator.base_url, movie_bytes(1080, 1920, 10)
    for _ in range(30):
        started = requests.post(f"{graph}/v25.0/{PAGE}/video_reels", timeout=5,
                                data={"upload_phase": "start", "access_token": token}).json()
        requests.post(f"{graph}/video-upload/v25.0/{started['video_id']}", data=data, timeout=5, headers={
            "Authorization": f"OAuth {token}", "offset": "0", "file_size": str(len(data))})
        finished = requests.post(f"{graph}/v25.0/{PAGE}/video_reels", timeout=5, data={
            "upload_phase": "finish", "video_id": started["video_id"], "video_state": "PUBLISHED",
            "access_token": token})
        assert finished.status_code == 200, finished.text


def test_past_the_pages_30_reels_of_the_day_a_reel_fails_rate_limited_before_it_starts(
        step, job, clocks, emulator, media, token):
    thirty_reels(emulator, token)
    before = len(emulator.calls_to(*REELS))
    done = facebook.publish(step(), job("one too many", reel(media)))
    assert done.outcome.error_code == "platform_rate_limited" and "30 Reels" in done.outcome.error_message
    assert len(emulator.calls_to(*REELS)) == before


def test_a_page_video_is_not_counted_against_the_reels(step, job, clocks, emulator, media, token):
    thirty_reels(emulator, token)
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, "landscape.mp4")), clocks)
    assert done.outcome.published


def test_a_day_later_the_reels_are_the_pages_again(step, job, clocks, emulator, media, token):
    thirty_reels(emulator, token)
    clocks.advance(24 * 3600)
    done, _, _ = publish_to_the_end(step, job("tomorrow", reel(media)), clocks)
    assert done.outcome.published


def test_the_preflight_foresees_the_reels_day_and_nothing_for_other_posts(step, job, emulator, media, token):
    assert facebook.foresee(step(), job("a reel", reel(media))) == []
    thirty_reels(emulator, token)
    [outcome] = facebook.foresee(step(), job("a reel", reel(media)))
    assert outcome.error_code == "platform_rate_limited"
    assert facebook.foresee(step(), job("a clip", video(media, "landscape.mp4"))) == []
    assert facebook.foresee(step(), job("text")) == []


# --- the mapping table, row by row -----------------------------------------------------------

def error_row(emulator, how: str, token: str):
    """Make the emulator answer a row's error; the Job's token when it changes."""
    if how.startswith("revoke:"):
        emulator.revoke(USER, int(how.split(":")[1]))
    elif how == "no role":
        emulator.remove_role(USER, PAGE)
    elif how == "unknown token":
        return "EAABnotatokenatall"
    elif how == "no token":
        return ""
    elif how == "expired":
        emulator.advance(2 * 3600)
    elif how == "no pages_manage_posts":
        return emulator.page_token(PAGE, USER, scopes=["pages_show_list", "pages_read_engagement"])
    elif how.startswith("exhaust:"):
        emulator.exhaust(PAGE, int(how.split(":")[1]))
    elif how == "block":
        emulator.block(PAGE)
    return token


# (row, how it is made, the media) -> the target's code.
FACEBOOK_ROWS = [
    ("190 without a subcode (an unknown token)", "unknown token", None, "platform_auth_expired"),
    ("190/458 the app removed", "revoke:458", None, "platform_auth_expired"),
    ("190/460 the password changed", "revoke:460", None, "platform_auth_expired"),
    ("190/467 an invalid token", "revoke:467", None, "platform_auth_expired"),
    ("190/492 no role on the Page", "no role", None, "platform_auth_expired"),
    ("2500 no token", "no token", None, "platform_auth_expired"),
    ("a missing pages_manage_posts (#200)", "no pages_manage_posts", None, "platform_auth_expired"),
    ("4 the app's limit", "exhaust:4", None, "platform_rate_limited"),
    ("17 the user's limit", "exhaust:17", None, "platform_rate_limited"),
    ("32 the Page's limit", "exhaust:32", None, "platform_rate_limited"),
    ("613 a custom limit", "exhaust:613", None, "platform_rate_limited"),
    ("80001 the Page's business use case limit", "exhaust:80001", None, "platform_rate_limited"),
    ("368 temporarily blocked", "block", None, "platform_rate_limited"),
    ("368 on a photo", "block", "image", "platform_rate_limited"),
    ("32 on a Reel", "exhaust:32", "reel", "platform_rate_limited"),
]


@pytest.mark.parametrize("row, how, kind, code", FACEBOOK_ROWS, ids=[r[0] for r in FACEBOOK_ROWS])
def test_each_facebook_condition_ends_in_its_target_code(step, job, clocks, emulator, media, token, row, how, kind,
                                                         code):
    items = {None: (), "image": (image(media),), "reel": (reel(media),)}[kind]
    used = error_row(emulator, how, token)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("hello", *items), access_token=used), clocks)
    assert done.outcome.error_code == code, done.outcome
    assert posts(emulator) == [] and not [v for v in videos(emulator) if v["finish_state"]]
    assert not used or used not in done.outcome.error_message


def test_an_expired_short_lived_page_token_is_190_463(step, job, clocks, emulator):
    # A Page token read with the short-lived user token lives an hour.
    user_token = emulator.issue_token(USER, long_lived=False)
    listed = requests.get(f"{emulator.base_url}/v25.0/me/accounts", params={"access_token": user_token}, timeout=5)
    page_token = listed.json()["data"][0]["access_token"]
    clocks.advance(3601)
    done = facebook.publish(step(), dataclasses.replace(job("late"), access_token=page_token))
    assert done.outcome.error_code == "platform_auth_expired" and "Session has expired" in done.outcome.error_message


# (row, call that answers, the Graph error, the media) -> the target's code.
GRAPH_ROWS = [
    ("102 session invalid", FEED, graph_error(102, "Session key invalid or no longer valid"), None,
     "platform_auth_expired"),
    ("324 an image Facebook cannot use", PHOTOS, graph_error(324, "(#324) Missing or invalid image file"), "image",
     "platform_rejected_media"),
    ("100/1366046 a photo over 4 MB", PHOTOS, graph_error(100, "Photos should be smaller than 4 MB", 1366046),
     "image", "platform_rejected_media"),
    ("a video refused at its call", VIDEOS, graph_error(100, "(#100) The video file is invalid"), "video",
     "platform_rejected_media"),
    ("100 anything else", FEED, graph_error(100, "(#100) Invalid parameter"), None, "unknown_platform_error"),
    ("100/1366051 photos already posted", FEED, graph_error(100, "These photos were already posted.", 1366051),
     "image", "unknown_platform_error"),
    ("200 without a role's task", FEED, graph_error(200, "(#200) The user does not have sufficient administrative "
                                                         "permission for this action on this Page"), None,
     "unknown_platform_error"),
    ("an HTML page", FEED, "<html>Bad Request</html>", None, "unknown_platform_error"),
]


@pytest.mark.parametrize("row, call, body, kind, code", GRAPH_ROWS, ids=[r[0] for r in GRAPH_ROWS])
def test_each_graph_error_ends_in_its_target_code(step, job, clocks, emulator, media, row, call, body, kind, code):
    items = {None: (), "image": (image(media),), "video": (video(media, "landscape.mp4"),)}[kind]
    emulator.fail(*call, 400, body)
    done, _, _ = publish_to_the_end(step, job("hello", *items), clocks)
    assert done.outcome.error_code == code, done.outcome
    said = body["error"]["message"] if isinstance(body, dict) else "Bad Request"
    assert said in done.outcome.error_message
    assert posts(emulator) == []


@pytest.mark.parametrize("name", ["landscape.mp4", "reel.mp4"])
def test_a_video_facebook_could_not_process_is_rejected_media(step, job, clocks, emulator, media, name):
    emulator.fail_next_video("The video file you selected is in a format that we don't support.")
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, name)), clocks)
    assert done.outcome.error_code == "platform_rejected_media"
    assert "format that we don't support" in done.outcome.error_message


def test_a_reel_facebook_refuses_as_a_reel_is_rejected_media(step, job, clocks, emulator, media):
    emulator.fail_next_video("Reels must have a 9:16 aspect ratio; this video is 1080x1350")
    done, _, _ = publish_to_the_end(step, job("a reel", reel(media)), clocks)
    assert done.outcome.error_code == "platform_rejected_media" and "9:16" in done.outcome.error_message


def test_reels_past_the_day_that_facebook_counts_itself_are_rate_limited_at_finish(
        step, job, clocks, emulator, media):
    emulator.configure(reel_limit=0)  # Facebook counts Reels this server does not see
    done, _, _ = publish_to_the_end(step, job("a reel", reel(media)), clocks)
    assert done.outcome.error_code == "platform_rate_limited" and not [v for v in videos(emulator) if v["published"]]


def test_media_fanout_cannot_fetch_is_media_download_failed_before_any_call(step, job, emulator, media):
    done = facebook.publish(step(), job("a photo", image(media, "missing.jpg")))
    assert done.outcome.error_code == "media_download_failed" and emulator.calls == []


def test_a_temporary_error_is_tried_again_and_then_posts_once(step, job, clocks, emulator):
    emulator.fail(*FEED, 500, graph_error(2, "An unexpected error has occurred. Please retry your request later."))
    done, results, _ = publish_to_the_end(step, job("hello"), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(posts(emulator)) == 1


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, token):
    emulator.fail(*FEED, 400, {"error": {"message": f"odd {token}", "code": 12345}})
    done = facebook.publish(step(), job("hello"))
    assert done.outcome.error_code == "unknown_platform_error" and token not in done.outcome.error_message


# --- answers that break Graph's contract ---------------------------------------------------------

def test_a_post_answered_with_a_broken_body_is_read_back_and_never_sent_again(step, job, clocks, emulator):
    emulator.garble(*FEED, 200, "<html>ok</html>")
    done, results, _ = publish_to_the_end(step, job("posted, answered badly"), clocks)
    [post] = posts(emulator)
    assert results == [done] and done.outcome.external_url == post.permalink_url
    assert len(emulator.calls_to(*FEED)) == 1


def test_a_broken_answer_to_a_post_that_did_not_happen_fails_saying_so(step, job, emulator):
    emulator.fail(*FEED, 200, "<html>ok</html>")
    done = facebook.publish(step(), job("not posted"))
    assert done.outcome.error_code == "unknown_platform_error" and posts(emulator) == []
    assert "Facebook may have published it all the same" in done.outcome.error_message


def test_an_upload_url_off_facebooks_hosts_fails_at_once_sending_no_bytes(step, job, emulator, media):
    emulator.garble(*REELS, 200, {"video_id": "120000000000099", "upload_url": "https://127.0.0.2:9/video-upload/1"})
    done = facebook.publish(step(), job("a reel", reel(media)))
    assert done.outcome.error_code == "unknown_platform_error" and not emulator.calls_to(*RUPLOAD)
    assert "an upload URL at https://127.0.0.2:9, not https on one of its hosts" in done.outcome.error_message


def test_a_video_status_facebook_does_not_list_fails_at_once(step, job, clocks, emulator, media):
    emulator.garble("GET", r"^/v[0-9.]+/12[0-9]+$", 200, {"id": "1", "status": {"video_status": "thinking"}},
                    times=None)
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, "landscape.mp4")), clocks)
    assert done.outcome.error_code == "unknown_platform_error"
    assert "video_status 'thinking', not one of uploading" in done.outcome.error_message


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_found_among_the_pages_posts(step, job, clocks, emulator):
    emulator.drop(*FEED)  # posted, then the connection is closed
    first = facebook.publish(step(), job("maybe posted"))
    assert isinstance(first, Retry) and first.state["creating"] == "post" and len(posts(emulator)) == 1
    clocks.to(first.after)
    done = facebook.publish(step(), dataclasses.replace(job("maybe posted"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink_url and len(emulator.calls_to(*FEED)) == 1


def test_a_post_that_never_arrived_is_sent_again(step, job, clocks, emulator):
    emulator.drop(*FEED, after_effect=False)
    first = facebook.publish(step(), job("not there yet"))
    clocks.to(first.after)
    done = facebook.publish(step(), dataclasses.replace(job("not there yet"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink_url and len(emulator.calls_to(*FEED)) == 2


def test_a_lost_post_is_told_from_an_older_one_with_the_same_text_by_its_time(step, job, clocks, emulator):
    publish_to_the_end(step, job("same words"), clocks)
    clocks.advance(3600)
    emulator.drop(*FEED, after_effect=False)
    first = facebook.publish(step(), job("same words"))
    clocks.to(first.after)
    facebook.publish(step(), dataclasses.replace(job("same words"), state=first.state))
    assert len(posts(emulator)) == 2  # the older post was not taken for this one


def test_a_lost_photo_post_is_told_by_its_photos(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("", image(media)), clocks)
    emulator.drop(*FEED)
    first = facebook.publish(step(), job("", image(media)))
    clocks.to(first.after)
    done = facebook.publish(step(), dataclasses.replace(job("", image(media)), state=first.state))
    assert len(posts(emulator)) == 2 and done.outcome.external_url == posts(emulator)[-1].permalink_url


def test_a_lost_page_video_is_found_among_the_pages_videos(step, job, clocks, emulator, media):
    emulator.drop(*VIDEOS)
    first = facebook.publish(step(), job("a clip", video(media, "landscape.mp4")))
    assert isinstance(first, Retry)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("a clip", video(media, "landscape.mp4")),
                                                              state=first.state), clocks)
    [made] = videos(emulator)
    assert done.outcome.published and len(emulator.calls_to(*VIDEOS)) == 1


def test_a_reel_start_whose_answer_is_lost_is_started_again_and_only_one_is_published(
        step, job, clocks, emulator, media):
    emulator.drop(*REELS)  # started, unanswered: a Reel never finished is never shown
    first = facebook.publish(step(), job("a reel", reel(media)))
    assert isinstance(first, Retry) and first.state["creating"] == "reel_start"
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("a reel", reel(media)), state=first.state), clocks)
    assert done.outcome.published and len([v for v in videos(emulator) if v["published"]]) == 1


def test_a_reel_finish_whose_answer_is_lost_is_not_sent_again(step, job, clocks, emulator, media):
    class LosingTheFinish(PlatformHttp):
        def request(self, method, url, **kwargs):
            answer = super().request(method, url, **kwargs)
            if (kwargs.get("data") or {}).get("upload_phase") == "finish":
                raise PlatformUnreachable("graph.facebook.com: connection lost", sent=True)
            return answer

    run = dataclasses.replace(step(), http=LosingTheFinish(parse_hosts(emulator.hosts_setting)))
    first = facebook.publish(run, job("a reel", reel(media)))
    assert isinstance(first, Retry) and first.state["creating"] == "reel_finish"
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("a reel", reel(media)), state=first.state), clocks)
    assert done.outcome.published
    assert [c.body["upload_phase"] for c in emulator.calls_to(*REELS)] == ["start", "finish"]


def test_a_reel_upload_cut_short_goes_on_from_the_bytes_facebook_has(step, job, clocks, emulator, media):
    emulator.cut_next_upload(100_000)
    first = facebook.publish(step(), job("a reel", reel(media)))
    assert isinstance(first, Retry) and first.state["video"]["sending"] is True
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("a reel", reel(media)), state=first.state), clocks)
    [made] = videos(emulator)
    assert done.outcome.published and made["received"] == made["file_size"]
    assert len(emulator.calls_to(*RUPLOAD)) == 2 and len(emulator.calls_to(*REELS)) == 2  # one start, one finish
    assert made["sha256"] == hashlib.sha256(requests.get(media.url("reel.mp4"), timeout=5).content).hexdigest()


def test_a_lost_comment_is_found_among_the_posts_comments(step, job, clocks, emulator):
    emulator.drop(*COMMENTS)
    first = facebook.publish(step(), job("hello", first_comment="once"))
    assert isinstance(first, Retry) and first.settles is not None
    done = facebook.publish(step(), dataclasses.replace(job("hello", first_comment="once"), state=first.state))
    [post] = posts(emulator)
    assert [c.message for c in emulator.comments[post.id]] == ["once"] and done.outcome.first_comment_error is None
    assert len(emulator.calls_to(*COMMENTS)) == 1


def test_each_marker_is_saved_before_its_call(step, job, emulator, media):
    run = step()
    facebook.publish(run, job("marked", image(media), first_comment="c"))
    marks = dict(zip(run.calls_at_save, run.saved))
    for call_index, call in enumerate(emulator.calls):
        if call.method == "POST":
            before = max(i for i in marks if i <= call_index)
            assert marks[before].get("creating"), (call.path, marks[before])


def killed_after_save(n: int, job: Job, step, clocks):
    """Steps as the engine runs them, the worker killed right after the `n`-th save of the
    whole publish (counted over every step), then the rest from the state saved last, to
    the end (`publish_to_the_end`'s answer)."""
    seen = 0
    for _ in range(30):
        run = step(kill_after_save=n - seen)
        try:
            result = facebook.publish(run, job)
        except steps.Killed:
            return publish_to_the_end(step, dataclasses.replace(job, state=run.saved[-1]), clocks)
        seen += len(run.saved)
        assert not isinstance(result, Done), f"the publish made {seen} saves, fewer than {n + 1}"
        clocks.to(result.until if isinstance(result, Wait) else result.after)
        job = dataclasses.replace(job, state=result.state)
    raise AssertionError("not done after 30 steps")


@pytest.mark.parametrize("killed_after", range(11))  # every save: 2 photos, the post, the comment
def test_a_worker_killed_after_any_save_of_a_photo_post_leaves_one_post_and_one_comment(
        step, job, clocks, emulator, media, killed_after):
    items = (image(media), image(media, "photo.png"))
    done, _, _ = killed_after_save(killed_after, job("only once", *items, first_comment="c"), step, clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink_url and len(post.photos) == 2
    assert [c.message for c in emulator.comments[post.id]] == ["c"]


@pytest.mark.parametrize("killed_after", range(4))
def test_a_worker_killed_after_any_save_of_a_page_video_leaves_one_video(step, job, clocks, emulator, media,
                                                                          killed_after):
    done, _, _ = killed_after_save(killed_after, job("once", video(media, "landscape.mp4")), step, clocks)
    [made] = videos(emulator)
    assert done.outcome.external_url.endswith(f"/videos/{made['id']}/")


@pytest.mark.parametrize("killed_after", range(10))  # the fetch, the start, the bytes, the finish, the comment
def test_a_worker_killed_after_any_save_of_a_reel_leaves_one_reel_and_one_comment(step, job, clocks, emulator,
                                                                                   media, killed_after):
    done, _, _ = killed_after_save(killed_after, job("once", reel(media), first_comment="c"), step, clocks)
    published = [v for v in videos(emulator) if v["published"]]
    assert len(published) == 1 and done.outcome.external_url.endswith(f"/reel/{published[0]['id']}/")
    assert [c.message for c in emulator.comments[published[0]["id"]]] == ["c"]


def test_a_video_whose_status_can_no_longer_be_read_fails_saying_it_may_be_out(step, job, clocks, emulator, media):
    first = facebook.publish(step(), job("a clip", video(media, "landscape.mp4")))
    assert isinstance(first, Wait) and len(videos(emulator)) == 1
    emulator.revoke(USER, 460)
    clocks.to(first.until)
    done = facebook.publish(step(), dataclasses.replace(job("a clip", video(media, "landscape.mp4")),
                                                        state=first.state))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "Facebook may have published it all the same" in done.outcome.error_message
