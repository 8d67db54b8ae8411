"""The TikTok adapter (fanout/platforms/tiktok/adapter.py) against the TikTok emulator, over real
HTTP on loopback: creator info and privacy, videos by FILE_UPLOAD (chunked) and by
PULL_FROM_URL, photo posts, the status read back, the caps counted before any call, the
mapping table of docs/platforms.md#the-tiktok-adapter row by row, never twice, and the
rotating refresh token.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.outbound.client import Outbound
from fanout.platforms.tiktok import adapter as tiktok
from fanout.platforms.base import AuthFailed, ClientRefused, Job, Retry, Wait

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, app, clocks, http, image, step, video,
)
from ...conftest import FakeResolver
from ...emulators.clock import EmulatorClock
from ...emulators.media import jpeg_bytes
from ...emulators.media.server import sample_media_server
from ...emulators.tiktok import TikTokEmulator
from ...media_files import mp4

START = dt.datetime(2026, 11, 22, 10, 0)
OPEN_ID, USERNAME = "-000emuTikTokOpenId0001", "emu_tiktok"
REDIRECT_URI = "https://c.example.com/connect/tiktok/callback"
VIDEO_INIT = r"/v2/post/publish/video/init/$"
PHOTO_INIT = r"/v2/post/publish/content/init/$"
STATUS = r"/v2/post/publish/status/fetch/$"
BENCH = Path(__file__).resolve().parents[3] / "bench" / "bench_tiktok_upload.py"


@pytest.fixture(scope="module")
def tiktok_server():
    with TikTokEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(tiktok_server):
    tiktok_server.reset()
    tiktok_server.set_clock(START)
    tiktok_server.consent_as(OPEN_ID)
    tiktok_server.set_verified(domains=["127.0.0.1"])
    yield tiktok_server
    assert not tiktok_server.errors, tiktok_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/big.mp4", mp4(seconds=20, padding=25 * 1024 * 1024), "video/mp4")  # two chunks
        server.put("/long.mp4", mp4(seconds=900), "video/mp4")
        yield server


@pytest.fixture
def outbound() -> Outbound:
    return Outbound(resolve=FakeResolver(), insecure=True, deadline=60.0, user_agent="Fanout-Media/1")


@pytest.fixture
def settings(settings):
    return settings.with_platform("tiktok", upload_method="file")


def with_settings(step, settings, **changes):
    changed = settings.with_platform("tiktok", **changes)
    return lambda **kw: step(settings=changed, **kw)


@pytest.fixture
def tokens(emulator) -> tuple[str, str]:
    return emulator.issue_token(OPEN_ID)


@pytest.fixture
def job(tokens):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="tiktok", user_id=OPEN_ID, username=USERNAME,
                   access_token=tokens[0], caption=caption, media=tuple(items), state={}, **kwargs)
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(tiktok, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts.get(OPEN_ID, [])


def envelope_error(code: str, message: str = "") -> dict:
    return {"data": {}, "error": {"code": code, "message": message, "log_id": "202611221000000000"}}


# --- publishing ----------------------------------------------------------------------------

def test_a_video_by_file_upload_is_published_with_its_permalink(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://www.tiktok.com/@{USERNAME}/video/{post.post_id}"
    assert (post.source, post.title, post.status) == ("FILE_UPLOAD", "a clip", "PUBLISH_COMPLETE")
    [init] = emulator.calls_to("POST", VIDEO_INIT)
    assert init.body["source_info"]["total_chunk_count"] == 1
    assert emulator.calls_to("POST", r"/creator_info/query/$")  # before the post, as TikTok requires


def test_a_large_video_goes_in_chunks_with_their_content_ranges(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("big", video(media, "big.mp4")), clocks)
    [post] = posts(emulator)
    size = post.bytes_received
    assert len(emulator.calls_to("PUT", r"/video/$")) == 2  # the emulator checks each Content-Range
    [init] = emulator.calls_to("POST", VIDEO_INIT)
    assert init.body["source_info"] == {"source": "FILE_UPLOAD", "video_size": size, "chunk_size": 10 * 1024 * 1024,
                                        "total_chunk_count": 2}


def test_a_video_on_a_verified_host_is_pulled_in_auto(step, job, clocks, emulator, media, settings):
    auto = with_settings(step, settings, upload_method="auto", verified_domains=("127.0.0.1",))
    done, _, _ = publish_to_the_end(auto, job("pulled", video(media)), clocks)
    [post] = posts(emulator)
    assert post.source == "PULL_FROM_URL" and done.outcome.published
    assert emulator.calls_to("PUT", r"/video/$") == []


def test_a_video_on_an_unverified_host_is_uploaded_in_auto(step, job, clocks, emulator, media, settings):
    auto = with_settings(step, settings, upload_method="auto", verified_domains=("cdn.example.com",))
    publish_to_the_end(auto, job("uploaded", video(media)), clocks)
    assert posts(emulator)[0].source == "FILE_UPLOAD"


def test_pull_from_a_host_tiktok_has_not_verified_fails_url_ownership_unverified(step, job, clocks, emulator,
                                                                                 media, settings):
    emulator.set_verified(domains=[])
    pull = with_settings(step, settings, upload_method="pull")
    done, _, _ = publish_to_the_end(pull, job("pulled", video(media)), clocks)
    assert done.outcome.error_code == "url_ownership_unverified" and posts(emulator) == []


def test_photos_are_pulled_as_one_photo_post_with_the_caption_as_description(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("two photos", image(media), image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and post.source == "PULL_FROM_URL" and post.description == "two photos"
    [init] = emulator.calls_to("POST", PHOTO_INIT)
    assert init.body["source_info"]["photo_images"] == [media.url("photo.jpg")] * 2


# --- options (openapi.yaml TiktokOptions) ---------------------------------------------------

def test_a_privacy_level_the_creator_is_offered_is_the_posts(step, job, clocks, emulator, media):
    options = {"privacy_level": "MUTUAL_FOLLOW_FRIENDS", "disable_duet": True, "is_aigc": True,
               "brand_organic_toggle": True}
    done, _, _ = publish_to_the_end(step, job("friends only", video(media), options=options), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and post.privacy_level == "MUTUAL_FOLLOW_FRIENDS"
    assert (post.post_info["disable_duet"], post.post_info["is_aigc"], post.post_info["brand_organic_toggle"],
            post.post_info["disable_comment"]) == (True, True, True, False)


def test_a_privacy_level_the_creator_is_not_offered_fails_option_rejected_before_the_post(
        step, job, clocks, emulator, media):
    emulator.add_user("private_only", "-000emuTikTokOpenId0777", privacy_level_options=["SELF_ONLY"])
    token, _ = emulator.issue_token("-000emuTikTokOpenId0777")
    its = dataclasses.replace(job("public?", video(media), options={"privacy_level": "PUBLIC_TO_EVERYONE"}),
                              user_id="-000emuTikTokOpenId0777", access_token=token)
    done, _, _ = publish_to_the_end(step, its, clocks)
    assert done.outcome.error_code == "platform_option_rejected"
    assert done.outcome.error_message == ("options.privacy_level is PUBLIC_TO_EVERYONE, which TikTok does not "
                                          "offer this creator; it offers SELF_ONLY")
    assert emulator.calls_to("POST", VIDEO_INIT) == []


def test_comments_asked_on_for_a_creator_who_turned_them_off_fail_option_rejected(step, job, clocks, emulator,
                                                                                 media):
    emulator.add_user("quiet", "-000emuTikTokOpenId0778", comment_disabled=True)
    token, _ = emulator.issue_token("-000emuTikTokOpenId0778")
    its = dataclasses.replace(job("talk to me", video(media), options={"disable_comment": False}),
                              user_id="-000emuTikTokOpenId0778", access_token=token)
    done, _, _ = publish_to_the_end(step, its, clocks)
    assert done.outcome.error_code == "platform_option_rejected" and "turned comments off" in done.outcome.error_message
    assert emulator.calls_to("POST", VIDEO_INIT) == []


def test_branded_content_tiktok_refuses_as_private_fails_option_rejected(step, job, clocks, emulator, media):
    options = {"privacy_level": "SELF_ONLY", "brand_content_toggle": True}
    done, _, _ = publish_to_the_end(step, job("paid, private", video(media), options=options), clocks)
    assert done.outcome.error_code == "platform_option_rejected" and "brand_content_toggle" in done.outcome.error_message
    assert posts(emulator) == []


def test_a_photo_posts_title_and_music_are_its_options(step, job, clocks, emulator, media):
    options = {"title": "Two photos", "auto_add_music": False}
    publish_to_the_end(step, job("the description", image(media), image(media), options=options), clocks)
    [post] = posts(emulator)
    assert (post.title, post.description, post.post_info["auto_add_music"]) == ("Two photos", "the description", False)


@pytest.mark.parametrize("count", [1, 2, 35])
def test_a_post_of_1_to_35_photos_is_published_with_the_first_as_cover_and_its_photo_permalink(
        step, job, clocks, emulator, media, count):
    for n in range(count):
        media.put(f"/photo-{n}.jpg", jpeg_bytes(640, 480 + n), "image/jpeg")
    photos = [image(media, f"photo-{n}.jpg") for n in range(count)]
    done, _, _ = publish_to_the_end(step, job(f"{count} photos", *photos), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://www.tiktok.com/@{USERNAME}/photo/{post.post_id}"
    assert post.photo_urls == tuple(item["url"] for item in photos) and post.cover_index == 0
    [init] = emulator.calls_to("POST", PHOTO_INIT)
    assert init.body["source_info"]["photo_cover_index"] == 0  # TikTok's index starts at 0


def test_a_post_is_as_public_as_the_creator_allows_by_default(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("public", video(media)), clocks)
    [init] = emulator.calls_to("POST", VIDEO_INIT)
    assert init.body["post_info"]["privacy_level"] == "PUBLIC_TO_EVERYONE"


def test_an_unaudited_app_posts_privately(step, job, clocks, emulator, media):
    emulator.set_unaudited(True)
    done, _, _ = publish_to_the_end(step, job("private", video(media)), clocks)
    [init] = emulator.calls_to("POST", VIDEO_INIT)
    assert init.body["post_info"]["privacy_level"] == "SELF_ONLY" and done.outcome.published


def test_a_configured_level_the_creator_does_not_offer_fails_naming_the_options(step, job, clocks, emulator, media,
                                                                                settings):
    emulator.set_unaudited(True)
    friends = with_settings(step, settings, privacy_level="MUTUAL_FOLLOW_FRIENDS")
    done, _, _ = publish_to_the_end(friends, job("friends", video(media)), clocks)
    assert done.outcome.error_code == "unknown_platform_error" and "SELF_ONLY" in done.outcome.error_message
    assert emulator.calls_to("POST", VIDEO_INIT) == []


def test_a_video_longer_than_the_creator_may_post_fails_before_the_post(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("too long", video(media, "long.mp4")), clocks)
    assert done.outcome.error_code == "unsupported_media_for_platform" and "600 s" in done.outcome.error_message
    assert emulator.calls_to("POST", VIDEO_INIT) == []


def test_a_post_awaiting_moderation_gets_its_url_once_public(step, job, clocks, emulator, media):
    emulator.set_processing_time(5, moderation_seconds=120)
    done, results, _ = publish_to_the_end(step, job("moderated", video(media)), clocks)
    assert done.outcome.external_url.endswith(f"/video/{posts(emulator)[0].post_id}")
    assert any(isinstance(r, Wait) and r.until - clocks.ours.now <= dt.timedelta(seconds=60) for r in results)


def waits(results, since: dt.datetime) -> list[dt.timedelta]:
    """When each Wait asked to be called again, from `since`."""
    return [r.until - since for r in results if isinstance(r, Wait)]


def seconds(*values: float) -> list[dt.timedelta]:
    return [dt.timedelta(seconds=v) for v in values]


def test_the_status_is_read_1_3_and_7_s_after_the_post_started(step, job, clocks, emulator, media):
    done, results, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)  # processed in 5 s
    assert done.outcome.published
    assert waits(results, START) == seconds(1, 3, 7)
    assert len(emulator.calls_to("POST", STATUS)) == 4


def test_a_post_awaiting_moderation_is_read_on_the_growing_schedule_then_once_a_minute(
        step, job, clocks, emulator, media):
    emulator.set_processing_time(0, moderation_seconds=150)
    done, results, _ = publish_to_the_end(step, job("moderated", video(media)), clocks)
    assert done.outcome.external_url.endswith(f"/video/{posts(emulator)[0].post_id}")
    assert waits(results, START) == seconds(1, 3, 7, 15, 30, 60, 120, 180)


def test_a_post_never_made_public_is_settled_published_without_a_url(step, job, clocks, emulator, media):
    emulator.set_processing_time(5, moderation_seconds=10 ** 6)
    done, _, _ = publish_to_the_end(step, job("in moderation", video(media)), clocks, steps=60)
    assert done.outcome.published and done.outcome.external_url is None


# --- the caps, counted before any call -------------------------------------------------------

def test_15_posts_in_24_hours_fail_the_next_without_a_call(step, job, emulator, media):
    done = tiktok.publish(step(recent=lambda since, workspace: 15), job("one too many", video(media)))
    assert done.outcome.error_code == "platform_rate_limited" and emulator.calls == []


def test_the_seventh_post_started_in_a_minute_fails_without_a_call(step, job, clocks, emulator, media):
    shared: dict = {}
    for i in range(6):  # started at one instant: each waits for TikTok's processing
        assert isinstance(tiktok.publish(step(minute=shared), job(f"post {i}", video(media))), Wait)
    calls = len(emulator.calls_to("POST", VIDEO_INIT))
    done = tiktok.publish(step(minute=shared), job("the seventh", video(media)))
    assert done.outcome.error_code == "platform_rate_limited" and len(emulator.calls_to("POST", VIDEO_INIT)) == calls


# --- the mapping table, row by row -----------------------------------------------------------

# (row, call, HTTP status, body) -> the target's code, for an init's answer.
INIT_ROWS = [
    ("401 access_token_invalid", 401, envelope_error("access_token_invalid", "The access token is invalid"),
     "platform_auth_expired"),
    ("401 scope_not_authorized", 401, envelope_error("scope_not_authorized", "video.publish not granted"),
     "platform_auth_expired"),
    ("scope_permission_missed", 401, envelope_error("scope_permission_missed"), "platform_auth_expired"),
    ("429 rate_limit_exceeded", 429, envelope_error("rate_limit_exceeded", "Too many requests"),
     "platform_rate_limited"),
    ("403 spam_risk_too_many_posts", 403, envelope_error("spam_risk_too_many_posts", "daily post cap"),
     "platform_rate_limited"),
    ("403 spam_risk_too_many_pending_share", 403, envelope_error("spam_risk_too_many_pending_share"),
     "platform_rate_limited"),
    ("403 reached_active_user_cap", 403, envelope_error("reached_active_user_cap"), "platform_rate_limited"),
    ("403 url_ownership_unverified", 403, envelope_error("url_ownership_unverified"), "url_ownership_unverified"),
    ("200 url_ownership_unverified (in the body)", 200, envelope_error("url_ownership_unverified"),
     "url_ownership_unverified"),
    ("400 invalid_file_upload", 400, envelope_error("invalid_file_upload", "file does not meet spec"),
     "platform_rejected_media"),
    ("400 invalid_param on the title's length", 400,
     envelope_error("invalid_param", "title length exceeds the limit of 2200"), "caption_too_long"),
    ("400 invalid_param otherwise", 400, envelope_error("invalid_param", "chunk_size is invalid"),
     "unknown_platform_error"),
    ("403 spam_risk_user_banned_from_posting", 403, envelope_error("spam_risk_user_banned_from_posting"),
     "unknown_platform_error"),
    ("403 unaudited_client_can_only_post_to_private_accounts", 403,
     envelope_error("unaudited_client_can_only_post_to_private_accounts"), "platform_option_rejected"),
    ("403 privacy_level_option_mismatch", 403, envelope_error("privacy_level_option_mismatch"),
     "platform_option_rejected"),
    ("400 invalid_param naming an option", 400,
     envelope_error("invalid_param", "brand_content_toggle cannot be used with privacy_level SELF_ONLY."),
     "platform_option_rejected"),
    ("anything else: a body that is not TikTok's envelope", 400, "<html>Bad Request</html>",
     "unknown_platform_error"),
]

FAIL_REASONS = [
    ("video_pull_failed", "media_download_failed"),
    ("file_format_check_failed", "platform_rejected_media"),
    ("duration_check_failed", "platform_rejected_media"),
    ("frame_rate_check_failed", "platform_rejected_media"),
    ("picture_size_check_failed", "platform_rejected_media"),
    ("spam_risk_text", "platform_rejected_media"),
    ("spam_risk_too_many_posts", "platform_rate_limited"),
    ("auth_removed", "platform_auth_expired"),
    ("publish_cancelled", "unknown_platform_error"),
    ("internal", "unknown_platform_error"),
    ("spam_risk", "unknown_platform_error"),
]


@pytest.mark.parametrize("row, status, body, code", INIT_ROWS, ids=[r[0] for r in INIT_ROWS])
def test_each_init_answer_ends_in_its_target_code(step, job, clocks, emulator, media, row, status, body, code):
    emulator.fail("POST", VIDEO_INIT, status, body)
    done, _, _ = publish_to_the_end(step, job("hello", video(media)), clocks)
    assert done.outcome.error_code == code
    if code == "unknown_platform_error" and isinstance(body, dict):
        assert body["error"]["code"] in done.outcome.error_message  # the raw answer
    assert posts(emulator) == []


@pytest.mark.parametrize("fail_reason, code", FAIL_REASONS, ids=[r[0] for r in FAIL_REASONS])
def test_each_fail_reason_ends_in_its_target_code(step, job, clocks, emulator, media, fail_reason, code):
    emulator.force_next_publish("FAILED", fail_reason)
    done, _, _ = publish_to_the_end(step, job("hello", video(media)), clocks)
    assert done.outcome.error_code == code and fail_reason in done.outcome.error_message


def test_a_5xx_is_retried_and_then_publishes_once(step, job, clocks, emulator, media):
    emulator.fail("POST", VIDEO_INIT, 500, envelope_error("internal_error", "Something went wrong"))
    done, results, _ = publish_to_the_end(step, job("hello", video(media)), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(posts(emulator)) == 1


# --- never twice -----------------------------------------------------------------------------

@pytest.mark.parametrize("killed_after", range(3))  # creating init, publish id, uploaded
def test_a_worker_killed_after_any_save_of_an_upload_leaves_one_post(step, job, clocks, emulator, media,
                                                                     killed_after):
    done, _, _ = steps.publish_after_a_death(tiktok, step, job("only once", video(media)), clocks, killed_after)
    [post] = [p for p in posts(emulator) if p.status != "PROCESSING_UPLOAD"]
    assert post.status == "PUBLISH_COMPLETE"
    assert done.outcome.external_url == f"https://www.tiktok.com/@{USERNAME}/video/{post.post_id}"


def test_a_lost_answer_to_the_last_chunk_is_read_back_not_uploaded_again(step, job, clocks, emulator, media):
    emulator.drop("PUT", r"/video/$")
    first = tiktok.publish(step(), job("maybe uploaded", video(media)))
    assert isinstance(first, Retry)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("maybe uploaded", video(media)),
                                                              state=first.state), clocks)
    assert done.outcome.published and len(emulator.calls_to("POST", VIDEO_INIT)) == 1 and len(posts(emulator)) == 1


def test_a_lost_answer_to_a_pull_is_never_started_again(step, job, clocks, emulator, media, settings):
    pull = with_settings(step, settings, upload_method="pull")
    emulator.drop("POST", VIDEO_INIT)
    first = tiktok.publish(pull(), job("maybe started", video(media)))
    assert isinstance(first, Retry)
    done = tiktok.publish(pull(), dataclasses.replace(job("maybe started", video(media)), state=first.state))
    assert done.outcome.error_code == "unknown_platform_error" and "may have been published" in done.outcome.error_message
    assert len(emulator.calls_to("POST", VIDEO_INIT)) == 1


# --- answers that break TikTok's contract (fanout/platforms/contract.py) -----------------------

def envelope_ok(data: dict) -> dict:
    return {"data": data, "error": {"code": "ok", "message": "", "log_id": "202611221000000000"}}


def test_an_upload_url_off_tiktoks_hosts_fails_at_once_after_one_init_sending_no_chunk(step, job, emulator, media):
    emulator.set_upload_base("http://127.0.0.1:9")
    done = tiktok.publish(step(), job("a clip", video(media)))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "an upload URL at http://127.0.0.1:9, not https on one of its hosts" in done.outcome.error_message
    assert "so it never publishes" in done.outcome.error_message
    assert len(emulator.calls_to("POST", VIDEO_INIT)) == 1 and not emulator.calls_to("PUT", r"/video/$")


def test_a_pull_answered_with_a_publish_id_of_the_wrong_shape_fails_at_once_saying_it_may_be_out(
        step, job, emulator, media, settings):
    pull = with_settings(step, settings, upload_method="pull")
    emulator.garble("POST", VIDEO_INIT, 200, envelope_ok({"publish_id": {"id": 7}}))  # TikTok started it
    done = tiktok.publish(pull(), job("pulled", video(media)))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "the video's init with its publish_id of the wrong shape" in done.outcome.error_message
    assert "TikTok may have published it all the same" in done.outcome.error_message
    assert len(emulator.calls_to("POST", VIDEO_INIT)) == 1 and len(posts(emulator)) == 1


def test_a_status_tiktok_does_not_list_fails_at_once_saying_the_post_may_be_out(step, job, emulator, media):
    emulator.garble("POST", STATUS, 200, envelope_ok({"status": "MAYBE_LATER", "publicaly_available_post_id": []}))
    done = tiktok.publish(step(), job("a clip", video(media)))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "the post's status with status 'MAYBE_LATER', not one of" in done.outcome.error_message
    assert "TikTok may have published it all the same" in done.outcome.error_message


# --- OAuth and tokens ------------------------------------------------------------------------

def test_the_exchange_ends_with_both_tokens_and_the_username(http, app, clocks, emulator):
    url = http.url(tiktok.authorize(app, REDIRECT_URI, "S1").url)
    back = requests.get(url, allow_redirects=False, timeout=5).headers["location"]
    code = parse_qs(urlsplit(back).query)["code"][0]
    grant = tiktok.exchange(http, app, code, REDIRECT_URI, None, now=clocks.ours.now)
    assert (grant.user_id, grant.username) == (OPEN_ID, USERNAME) and grant.refresh_token
    assert grant.expires_at > clocks.ours.now


def test_a_refresh_rotates_the_refresh_token_and_the_old_one_is_refused(http, app, clocks, emulator, tokens):
    grant = tiktok.refresh(http, app, *tokens, now=clocks.ours.now)
    assert grant.refresh_token and grant.refresh_token != tokens[1]
    with pytest.raises(AuthFailed) as refused:
        tiktok.refresh(http, app, *tokens, now=clocks.ours.now)
    assert "invalid_grant" in refused.value.reason and tokens[1] not in refused.value.reason


def test_app_credentials_tiktok_refuses_are_not_the_accounts_fault(http, clocks, emulator, tokens):
    from fanout.platforms.base import App

    with pytest.raises(ClientRefused):
        tiktok.refresh(http, App("app-id", "wrong-secret"), *tokens, now=clocks.ours.now)


def test_the_authorize_url_asks_for_the_scopes_with_the_client_key(app):
    url = tiktok.authorize(app, REDIRECT_URI, "S1").url
    assert url.startswith("https://www.tiktok.com/v2/auth/authorize/?client_key=app-id&response_type=code")
    assert "scope=user.info.basic,user.info.profile,video.publish" in url and "state=S1" in url


def test_chunk_plans_follow_the_media_transfer_rules():
    mb = 1024 * 1024
    assert tiktok.chunk_plan(3 * mb) == (3 * mb, 1)
    assert tiktok.chunk_plan(9 * mb) == (9 * mb, 1)
    assert tiktok.chunk_plan(25 * mb) == (10 * mb, 2)  # the last chunk takes the remainder
    assert tiktok.chunk_plan(4000 * mb)[1] <= 1000


# --- memory: the upload is streamed, never held whole ------------------------------------

@pytest.mark.slow
def test_a_200_mb_upload_raises_the_workers_peak_rss_by_less_than_16_mb():
    """Pins streaming (the bench prints the figure; this is a bound, not a speed)."""
    run = subprocess.run([sys.executable, str(BENCH), "--mb", "200", "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.split()[0]) < 16 * 1024
