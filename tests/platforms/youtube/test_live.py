"""Live YouTube end to end, through HTTP only: the app on a real loopback server with a
YouTube app and the YouTube emulator's hosts (accounts.google.com, oauth2.googleapis.com,
www.googleapis.com), a browser for the OAuth flow, a media server; the queue is run by the
test, at the test's clock, as a worker would. Connect (one account per channel, shown by its
@handle), a video with its options and a first comment, what the upload refuses at once (a
text or image post, `<` in the description, a title over 100), the refresh and its
invalid_grant, the day's quota in the preflight, an upload cut off mid-file resumed at the
byte YouTube holds, the mapping table of docs/platforms.md#the-youtube-adapter row by row
through the engine, sandbox accounts and posts, and never twice when a worker dies at any
call.
"""
from __future__ import annotations

import hashlib
import json

import pytest
import requests

from fanout.models import Event, db
from fanout.platforms.base import App
from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.youtube import YouTubeEmulator
from ...threads_world import (
    accounts, browser, connect, connect_link, headers, only_target, port, query_of, run_for, serve_app, served_with,
)
from ..live import connected_account, insecure_urls, stored, uploader
from ..threads.test_live import publish_with_a_death
from .test_adapter import CHANNEL, COMMENTS, HANDLE, LONG, START_UPLOAD, SUB, YOUTUBE_ROWS, fresh, media

# The fixtures taken from the shared worlds, named so that pyflakes sees them used.
__all__ = ["browser", "headers", "insecure_urls", "media", "port"]
APP = App("yt-client-id", "yt-client-secret")
AUTH_ROWS = {row for row, *_, code in YOUTUBE_ROWS if code == "platform_auth_expired"}


@pytest.fixture(scope="module")
def yt_server():
    with YouTubeEmulator(APP.client_id, APP.client_secret) as server:
        yield server


@pytest.fixture
def settings(settings, port, yt_server):
    return served_with(settings, port, {"youtube": (yt_server, APP)})


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


@pytest.fixture
def yt(yt_server, live, clock):
    """The emulator, its clock at the test's, the app's redirect URI registered."""
    fresh(yt_server, clock.now).redirect_uris = {f"{live}/connect/youtube/callback"}
    yield yt_server
    assert not yt_server.errors, yt_server.errors[0]


@pytest.fixture
def account(browser, live, headers, yt) -> str:
    return connected_account(browser, live, headers, "youtube")


upload = uploader("youtube")


def film(media, name: str = "long.mp4") -> list[dict]:
    return [{"url": media.url(name), "type": "video"}]


def videos(yt) -> list:
    return yt.videos[CHANNEL]


def watch_url(video) -> str:
    return f"https://www.youtube.com/watch?v={video.id}"


# --- connect -------------------------------------------------------------------------------

def test_connecting_adds_an_active_account_per_channel_named_by_its_handle(browser, live, headers, yt):
    query = connect(browser, live, headers, "youtube")
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "youtube", HANDLE, "active")
    assert stored(query["account_id"]).platform_user_id == CHANNEL and stored(query["account_id"]).refresh_token


def test_the_consent_asks_for_offline_access_and_the_youtube_scopes(browser, live, headers, yt):
    to_google = browser.get(connect_link(live, headers, "youtube"), allow_redirects=False, timeout=10)
    asked = query_of(to_google.headers["location"])
    assert (asked["access_type"], asked["prompt"]) == ("offline", "consent")
    assert "https://www.googleapis.com/auth/youtube.upload" in asked["scope"].split()


def test_a_user_who_refuses_comes_back_as_access_denied(browser, live, headers, yt):
    yt.deny_consent()
    assert connect(browser, live, headers, "youtube")["error"] == "access_denied"


def test_a_google_account_without_a_channel_is_not_eligible(browser, live, headers, yt):
    yt.consent_as(yt.add_user("No Channel", channel=False).sub)
    assert connect(browser, live, headers, "youtube")["error"] == "account_not_eligible"


def test_the_token_is_refreshed_before_its_hour_and_a_revoked_grant_expires_the_account(
        live, headers, account, yt, rt, clock):
    def until_its_refresh_time():
        seconds = (stored(account).refresh_at - clock.now).total_seconds() + 1
        clock.advance(seconds=seconds)
        yt.advance(seconds)

    before = stored(account)
    until_its_refresh_time()
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.access_token) != rt.keyring.decrypt(before.access_token)
    assert rt.keyring.decrypt(after.refresh_token) == rt.keyring.decrypt(before.refresh_token)
    yt.revoke_tokens(SUB)
    until_its_refresh_time()
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}
    assert stored(account).status == "expired"


# --- publishing ----------------------------------------------------------------------------

def test_a_video_with_its_options_and_a_first_comment_publishes_with_its_watch_url(
        live, headers, account, yt, media, rt, clock):
    post = upload(live, headers, "Launch day\nEverything that is new", film(media), overrides={"youtube": {
        "options": {"title": "Launch day!", "privacy_status": "unlisted", "made_for_kids": False,
                    "tags": ["launch", "new things"]},
        "first_comment": "Where to get it: https://shop.example.invalid"}})
    run_queue(rt, clock)
    [made] = videos(yt)
    target = only_target(live, headers, post["id"])
    assert (target["status"], target["external_url"]) == ("published", watch_url(made))
    assert (made.title, made.description, made.privacy_status, made.tags) == (
        "Launch day!", "Launch day\nEverything that is new", "unlisted", ("launch", "new things"))
    assert made.sha256 == hashlib.sha256(LONG).hexdigest() and made.upload_type == "resumable"
    [comment] = yt.comments[made.id]
    assert comment.text == "Where to get it: https://shop.example.invalid" and target["first_comment_error"] is None


def test_a_video_youtube_locks_private_is_still_published(live, headers, account, yt, media, rt, clock):
    yt.configure(audited=False)
    post = upload(live, headers, "public, I hoped", film(media))
    run_queue(rt, clock)
    [made] = videos(yt)
    assert made.privacy_status == "private" and only_target(live, headers, post["id"])["status"] == "published"


def test_a_video_youtube_locks_private_says_so_in_the_targets_warnings_and_its_event(
        live, headers, account, yt, media, rt, clock):
    yt.configure(audited=False)
    post = upload(live, headers, "public, I hoped", film(media))
    run_queue(rt, clock)
    [warning] = only_target(live, headers, post["id"])["warnings"]
    assert warning.startswith("YouTube made the video private though public was asked")
    with db.connection_context():
        [event] = [json.loads(e.body) for e in Event.select() if json.loads(e.body)["event"] == "post.completed"]
    assert event["target"]["warnings"] == [warning]


def test_a_text_or_image_post_to_youtube_is_refused_at_once(live, headers, account, yt, media):
    for items in ([], [{"url": media.url("photo.jpg"), "type": "image"}]):
        refused = upload(live, headers, "no video", items, expect=422)
        assert refused["error"]["code"] == "unsupported_media_for_platform" and "youtube" in refused["error"]["message"]
    assert yt.calls_to(*START_UPLOAD) == []


@pytest.mark.parametrize("caption, options, said", [
    ("a <b>bold</b> description", {}, "YouTube refuses < and > in one"),
    ("fine", {"title": "t" * 101}, "overrides.youtube.options.title: 101 characters; send at most 100"),
    ("fine", {"title": "a <title>"}, "overrides.youtube.options.title: the video's title, 1 to 100 characters without"),
    ("\n   \n", {}, "a video needs a title, and the caption has no line of text"),
])
def test_what_youtube_refuses_in_a_title_or_description_is_400_at_upload(live, headers, account, yt, media,
                                                                         caption, options, said):
    refused = upload(live, headers, caption, film(media), expect=400,
                     overrides={"youtube": {"options": options}} if options else {})
    assert refused["error"]["code"] == "validation_error" and said in refused["error"]["message"]
    assert yt.calls_to(*START_UPLOAD) == []


def test_a_description_over_5000_bytes_and_tags_over_500_fail_before_any_call(live, headers, account, yt, media, rt,
                                                                              clock):
    long = upload(live, headers, "é" * 2501, film(media))  # 5,002 bytes of UTF-8
    tagged = upload(live, headers, "tags", film(media), overrides={"youtube": {"options": {"tags": ["x" * 250] * 2}}})
    run_queue(rt, clock)
    failed = only_target(live, headers, long["id"])
    assert failed["error_code"] == "caption_too_long" and "youtube allows 5000" in failed["error_message"]
    assert only_target(live, headers, tagged["id"])["error_code"] == "platform_option_rejected"
    assert not yt.calls_to(*START_UPLOAD)


def test_the_days_uploads_spent_are_foreseen_by_the_preflight_and_fail_the_next_without_a_call(
        live, headers, account, yt, media, rt, clock, settings):
    rt.settings = settings.with_platform("youtube", daily_uploads=1)
    first = upload(live, headers, "the day's one", film(media))
    run_queue(rt, clock)
    assert only_target(live, headers, first["id"])["status"] == "published"
    body = {"caption": "one too many", "platforms": ["youtube"], "media": film(media)}
    foreseen = requests.post(f"{live}/v1/upload/preflight", headers=headers, json=body, timeout=10).json()
    [problem] = foreseen["targets"][0]["problems"]
    assert problem["code"] == "platform_rate_limited" and "FANOUT_YOUTUBE_DAILY_UPLOADS" in problem["message"]
    post = upload(live, headers, "one too many", film(media))
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["error_code"] == "platform_rate_limited"
    assert len(yt.calls_to(*START_UPLOAD)) == 1


def test_an_upload_cut_off_mid_file_resumes_at_the_byte_youtube_holds(live, headers, account, yt, media, rt, clock):
    yt.cut(5_000_000)
    post = upload(live, headers, "cut off once", film(media))
    run_for(rt, clock, yt, 120, every=30)
    [made] = videos(yt)
    assert only_target(live, headers, post["id"])["external_url"] == watch_url(made)
    [session] = yt.sessions[CHANNEL]
    kept = session.puts[0].kept
    assert session.puts[0].interrupted and kept == 5_000_000 // (256 * 1024) * 256 * 1024
    assert [p.content_range for p in session.puts[1:]] == [f"bytes */{len(LONG)}",
                                                          f"bytes {kept}-{len(LONG) - 1}/{len(LONG)}"]
    assert made.sha256 == hashlib.sha256(LONG).hexdigest()


# --- sandbox -------------------------------------------------------------------------------

def test_a_sandbox_account_and_post_need_no_youtube_at_all(client, auth, yt, media, rt, clock):
    started = client.post("/v1/accounts/youtube/connect", headers=auth, json={})
    landed = client.get(started.json()["url"].replace(rt.settings.connect_url, ""), follow_redirects=False)
    assert query_of(landed.headers["location"])["status"] == "connected"
    answer = client.post("/v1/upload", headers=auth, json={"caption": "hello", "platforms": ["youtube"],
                                                           "media": film(media)})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["status"] == "published" and "/sandbox/youtube/" in target["external_url"]
    assert client.post("/v1/upload", headers=auth, json={"caption": "hello", "platforms": ["youtube"]}).status_code == 422
    assert yt.calls == []


# --- never twice -----------------------------------------------------------------------------

@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_leaves_exactly_one_video_and_one_comment(
        live, headers, account, yt, media, rt, clock, after):
    n = 1
    while True:
        before = len(videos(yt))
        post = upload(live, headers, f"death at call {n} {after}", film(media),
                      overrides={"youtube": {"first_comment": f"comment {n} {after}"}})
        died = publish_with_a_death(rt, clock, n, after)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(videos(yt)) == before + 1, f"death at call {n}: {len(videos(yt)) - before} videos"
        made = videos(yt)[-1]
        assert published["external_url"] == watch_url(made), (n, published)
        assert [c.text for c in yt.comments[made.id]] == [f"comment {n} {after}"], n
        if not died:
            break
        n += 1
    assert n > 4  # the session, two chunks, the comment


# --- the mapping table, through the engine --------------------------------------------------

@pytest.mark.parametrize("row, call, status, body, code", YOUTUBE_ROWS, ids=[r[0] for r in YOUTUBE_ROWS])
def test_each_youtube_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, yt, media, rt, clock, row, call, status, body, code):
    yt.fail(*call, status, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        yt.revoke_tokens(SUB)  # the refresh the auth error earns is refused too
    post = upload(live, headers, "hello", film(media))
    run_for(rt, clock, yt, 60, every=5)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")
    assert videos(yt) == []


def test_an_expired_access_token_is_refreshed_and_the_upload_goes_on(live, headers, account, yt, media, rt, clock):
    yt.expire_tokens(SUB)
    post = upload(live, headers, "with a new token", film(media))
    run_for(rt, clock, yt, 60, every=5)
    assert only_target(live, headers, post["id"])["status"] == "published" and len(videos(yt)) == 1
    assert stored(account).status == "active"


def test_a_token_that_dies_mid_upload_is_refreshed_and_the_upload_goes_on_in_its_session(
        live, headers, account, yt, media, rt, clock):
    yt.fail("PUT", r"/upload/youtube/v3/videos$", 401, {"error": {"code": 401, "message": "Invalid Credentials",
                                                               "errors": [{"reason": "authError"}]}})
    post = upload(live, headers, "a token renewed on the way", film(media))
    run_for(rt, clock, yt, 60, every=5)
    assert only_target(live, headers, post["id"])["status"] == "published" and len(videos(yt)) == 1
    [session] = yt.sessions[CHANNEL]
    assert [p.status for p in session.puts] == [308, 308, 201]  # asked what it holds, then the two chunks
    assert stored(account).status == "active"


def test_the_days_quota_spent_on_youtube_is_rate_limited(live, headers, account, yt, media, rt, clock):
    yt.exhaust("quota")
    post = upload(live, headers, "no quota left", film(media))
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "platform_rate_limited" and "midnight Pacific Time" in failed["error_message"]


def test_a_comment_youtube_refuses_leaves_the_target_published_saying_why(live, headers, account, yt, media, rt, clock):
    yt.fail(*COMMENTS, 403, {"error": {"code": 403, "message": "The video has disabled comments.",
                                       "errors": [{"reason": "commentsDisabled"}]}})
    post = upload(live, headers, "no comments", film(media), overrides={"youtube": {"first_comment": "hello"}})
    run_queue(rt, clock)
    target = only_target(live, headers, post["id"])
    assert target["status"] == "published" and "disabled comments" in target["first_comment_error"]
