"""The YouTube adapter (fanout/platforms/youtube/adapter.py) against the YouTube emulator, over
real HTTP on loopback: Google's OAuth with offline access and the channel it signs in as,
the refresh and its invalid_grant, a video uploaded by the resumable protocol in chunks with
its options, an upload cut off mid-file resumed at the byte YouTube holds (never restarted,
never a second video), a video locked private, a first comment, the day's quota counted
before the call, the mapping table of docs/platforms.md#the-youtube-adapter row by row, and
a worker killed after every save.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.media import MediaInfo
from fanout.platforms.base import AccountNotEligible, App, AuthFailed, ClientRefused, Job, Retry
from fanout.platforms.http import PlatformHttp, parse_hosts
from fanout.platforms.youtube import adapter as youtube
from fanout.platforms.youtube import upload
from fanout.platforms.youtube.upload import CHUNK, UNIT, is_short

from ... import adapter_steps as steps
from ...adapter_steps import Clocks, app, clocks, http, outbound, step, video
from ...emulators.clock import EmulatorClock
from ...emulators.media.server import sample_media_server
from ...emulators.youtube import YouTubeEmulator
from ...media_files import mp4

START = dt.datetime(2026, 11, 22, 10, 0)
SUB, CHANNEL, HANDLE = "108000000000000000001", "UCemuYouTubeChannel00001", "@emu_youtube"
REDIRECT_URI = "https://c.example.com/connect/youtube/callback"
START_UPLOAD = ("POST", r"/upload/youtube/v3/videos$")
PUTS = ("PUT", r"/upload/youtube/v3/videos$")
COMMENTS = ("POST", r"/youtube/v3/commentThreads$")
LONG = mp4(seconds=20, padding=9_000_000)  # two chunks of 8 MiB
# The fixtures taken from tests/adapter_steps.py, named so that pyflakes sees them used.
__all__ = ["app", "clocks", "http", "outbound", "step"]


@pytest.fixture(scope="module")
def yt_server():
    with YouTubeEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


def fresh(server: YouTubeEmulator, now) -> YouTubeEmulator:
    """The emulator as a test starts with it: its state forgotten, its clock at `now`, the
    settings tests change back to their defaults, the channel's user consenting."""
    server.reset()
    server.set_clock(now)
    server.configure(audited=True, testing=False, quota_model="buckets", daily_uploads=100)
    server.consent_as(SUB)
    return server


@pytest.fixture
def emulator(yt_server):
    yield fresh(yt_server, START)
    assert not yt_server.errors, yt_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", LONG, "video/mp4")
        yield server


@pytest.fixture
def token(emulator) -> str:
    return emulator.issue_token(SUB)[0]


@pytest.fixture
def job(token, media):
    def make(caption: str = "A launch film\nwith a second line", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="youtube", user_id=CHANNEL, username=HANDLE, access_token=token,
                   caption=caption, media=items or (video(media, "long.mp4"),), state={}, **kwargs)
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(youtube, make_step, job, clocks, **kwargs)


def videos(emulator) -> list:
    return emulator.videos[CHANNEL]


def sessions(emulator) -> list:
    return emulator.sessions[CHANNEL]


def google_error(status: int, reason: str, message: str = "It went wrong.", domain: str = "youtube.api") -> dict:
    return {"error": {"code": status, "message": message,
                      "errors": [{"message": message, "domain": domain, "reason": reason}]}}


# --- OAuth 2.0 for web server apps ----------------------------------------------------------------

def authorized(http, app, emulator) -> tuple[str, dict]:
    """The consent as the browser goes through it: (code, query sent to Google)."""
    authorization = youtube.authorize(app, REDIRECT_URI, "S1")
    sent = {k: v[0] for k, v in parse_qs(urlsplit(authorization.url).query).items()}
    back = requests.get(http.url(authorization.url), allow_redirects=False, timeout=5).headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(back).query).items()}
    assert query["state"] == "S1"
    return query["code"], sent


def test_the_consent_asks_for_offline_access_every_time_with_the_three_scopes(http, app, emulator):
    _, sent = authorized(http, app, emulator)
    assert sent["scope"].split() == ["https://www.googleapis.com/auth/youtube.upload",
                                     "https://www.googleapis.com/auth/youtube.readonly",
                                     "https://www.googleapis.com/auth/youtube.force-ssl"]
    assert (sent["access_type"], sent["prompt"], sent["response_type"]) == ("offline", "consent", "code")
    assert urlsplit(youtube.authorize(app, REDIRECT_URI, "S1").url).hostname == "accounts.google.com"


def test_the_exchange_gives_the_channel_shown_by_its_handle_and_a_refresh_token(http, app, clocks, emulator):
    code, _ = authorized(http, app, emulator)
    grant = youtube.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    assert (grant.user_id, grant.username) == (CHANNEL, HANDLE) and grant.refresh_token.startswith("1//")
    assert grant.expires_at == clocks.ours.now + dt.timedelta(seconds=3599)
    assert youtube.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(minutes=10)
    [listed] = emulator.calls_to("GET", r"/youtube/v3/channels$")
    assert listed.query == {"part": "snippet", "mine": "true"}


def test_a_second_consent_still_gives_a_refresh_token(http, app, clocks, emulator):
    for _ in range(2):  # prompt=consent: Google gives one again
        code, _ = authorized(http, app, emulator)
        assert youtube.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now).refresh_token


def test_a_google_account_without_a_channel_is_not_eligible(http, app, clocks, emulator):
    nobody = emulator.add_user("No Channel", channel=False)
    emulator.consent_as(nobody.sub)
    code, _ = authorized(http, app, emulator)
    with pytest.raises(AccountNotEligible) as refused:
        youtube.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    assert "no YouTube channel" in refused.value.reason


def test_a_grant_without_youtube_upload_is_refused(http, app, clocks, emulator):
    emulator.garble("POST", r"/token$", 200, {"access_token": "ya29.x", "expires_in": 3599, "token_type": "Bearer",
                                              "scope": "https://www.googleapis.com/auth/youtube.readonly"})
    with pytest.raises(AuthFailed) as refused:
        youtube.exchange(http, app, "4/0Acode", REDIRECT_URI, now=clocks.ours.now)
    assert "youtube.upload" in refused.value.reason


def test_the_refresh_gives_a_new_access_token_and_keeps_the_refresh_token(http, app, clocks, emulator):
    access, refresh_token = emulator.issue_token(SUB)
    clocks.advance(3600)
    grant = youtube.refresh(http, app, access, refresh_token, now=clocks.ours.now)
    assert grant.access_token != access and grant.refresh_token is None  # the stored one is kept
    assert grant.expires_at == clocks.ours.now + dt.timedelta(seconds=3599)
    with pytest.raises(AuthFailed):
        youtube.refresh(http, app, access, None, now=clocks.ours.now)  # no refresh token stored: connect again


def test_a_revoked_refresh_token_is_invalid_grant_auth_failed(http, app, clocks, emulator):
    access, refresh_token = emulator.issue_token(SUB)
    emulator.revoke_tokens(SUB)
    with pytest.raises(AuthFailed) as refused:
        youtube.refresh(http, app, access, refresh_token, now=clocks.ours.now)
    assert "expired or revoked" in refused.value.reason and refresh_token not in refused.value.reason


def test_a_testing_apps_refresh_token_ends_after_a_week(http, app, clocks, emulator):
    emulator.configure(testing=True)
    access, refresh_token = emulator.issue_token(SUB)
    clocks.advance(7 * 86400)
    with pytest.raises(AuthFailed):
        youtube.refresh(http, app, access, refresh_token, now=clocks.ours.now)


def test_app_credentials_google_refuses_are_not_the_accounts_fault(http, clocks, emulator):
    access, refresh_token = emulator.issue_token(SUB)
    with pytest.raises(ClientRefused):
        youtube.refresh(http, App("app-id", "wrong-secret"), access, refresh_token, now=clocks.ours.now)


# --- the upload ---------------------------------------------------------------------------------

def test_a_video_goes_up_in_chunks_with_its_options_and_answers_its_watch_url(step, job, clocks, emulator, settings):
    options = {"title": "Launch", "privacy_status": "unlisted", "made_for_kids": False, "tags": ["launch", "new things"]}
    done, _, _ = publish_to_the_end(step, job("The description", options=options), clocks)
    [made] = videos(emulator)
    assert done.outcome.external_url == f"https://www.youtube.com/watch?v={made.id}" and not done.outcome.warnings
    assert (made.title, made.description, made.tags, made.requested_privacy, made.privacy_status, made.made_for_kids,
            made.category_id, made.upload_type) == ("Launch", "The description", ("launch", "new things"),
                                                    "unlisted", "unlisted", False, "22", "resumable")
    assert made.sha256 == hashlib.sha256(LONG).hexdigest()
    [session] = sessions(emulator)
    assert [p.content_range for p in session.puts] == [f"bytes 0-{CHUNK - 1}/{len(LONG)}",
                                                       f"bytes {CHUNK}-{len(LONG) - 1}/{len(LONG)}"]
    [started] = emulator.calls_to(*START_UPLOAD)
    assert started.query == {"uploadType": "resumable", "part": "snippet,status"}


def test_the_title_is_the_captions_first_line_cut_at_100_characters(step, job, clocks, emulator):
    publish_to_the_end(step, job("\n  " + "x" * 120 + "\nthe rest"), clocks)
    [made] = videos(emulator)
    assert made.title == "x" * 100 and made.description.endswith("the rest")
    assert made.privacy_status == "public" and made.made_for_kids is False


def test_the_category_is_the_setting(step, job, clocks, emulator, settings):
    publish_to_the_end(step, job(), clocks, settings=settings.with_platform("youtube", category_id="28"))
    assert videos(emulator)[0].category_id == "28"


def test_the_session_uri_is_saved_before_the_first_byte(step, job, emulator):
    run = step()
    youtube.publish(run, job())
    first_put = next(i for i, call in enumerate(emulator.calls) if call.method == "PUT")
    saved_before = [state for at, state in zip(run.calls_at_save, run.saved) if at <= first_put]
    assert saved_before[-1]["session"].startswith("https://www.googleapis.com/upload/youtube/v3/videos?")
    assert saved_before[-1]["size"] == len(LONG)


def test_an_upload_cut_off_mid_file_resumes_at_the_byte_youtube_holds(step, job, clocks, emulator):
    emulator.cut(3_000_000)  # the first chunk's connection closes there: 11 whole units kept
    done, results, _ = publish_to_the_end(step, job(), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published
    [session] = sessions(emulator)
    kept = 3_000_000 // (256 * 1024) * 256 * 1024
    assert [(p.content_range, p.kept, p.interrupted) for p in session.puts] == [
        (f"bytes 0-{CHUNK - 1}/{len(LONG)}", kept, True),
        (f"bytes */{len(LONG)}", 0, False),  # asked what it holds
        (f"bytes {kept}-{len(LONG) - 1}/{len(LONG)}", len(LONG) - kept, False)]  # the rest, one chunk
    [made] = videos(emulator)
    assert made.sha256 == hashlib.sha256(LONG).hexdigest() and len(emulator.calls_to(*START_UPLOAD)) == 1


def test_an_upload_stalled_past_the_clients_patience_resumes_where_youtube_stopped(
        step, job, clocks, emulator, settings, outbound):
    impatient = PlatformHttp(parse_hosts(emulator.hosts_setting), timeout=(2.0, 1.0))
    emulator.stall(1_000_000, 3.0)  # YouTube stops reading there for 3 s; the client, sending, gives up after 2
    first = youtube.publish(steps.RecordingStep(impatient, settings, clocks.ours, emulator, outbound=outbound), job())
    assert isinstance(first, Retry)
    waited = 0.0
    while not sessions(emulator)[0].puts and waited < 10:  # what arrived, once YouTube reads on
        time.sleep(0.1)
        waited += 0.1
    clocks.to(first.after)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job(), state=first.state), clocks)
    assert done.outcome.published
    [session] = sessions(emulator)
    cut, asked, resumed, *_ = session.puts
    assert cut.kept % UNIT == 0 and asked.content_range == f"bytes */{len(LONG)}"
    assert resumed.content_range.startswith(f"bytes {cut.kept}-")
    [made] = videos(emulator)
    assert made.sha256 == hashlib.sha256(LONG).hexdigest()


def test_a_5xx_to_a_chunk_is_retried_from_what_youtube_holds(step, job, clocks, emulator):
    emulator.fail(*PUTS, 503, google_error(503, "backendError", "Backend Error", "global"))
    done, results, _ = publish_to_the_end(step, job(), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(videos(emulator)) == 1
    assert [p.content_range for p in sessions(emulator)[0].puts][:2] == [f"bytes */{len(LONG)}",
                                                                        f"bytes 0-{CHUNK - 1}/{len(LONG)}"]


def test_a_chunk_whose_answer_is_lost_is_not_sent_again(step, job, clocks, emulator):
    emulator.drop(*PUTS)  # the first chunk kept, its 308 never arrives
    done, _, _ = publish_to_the_end(step, job(), clocks)
    assert done.outcome.published
    assert [p.content_range for p in sessions(emulator)[0].puts] == [
        f"bytes 0-{CHUNK - 1}/{len(LONG)}", f"bytes */{len(LONG)}", f"bytes {CHUNK}-{len(LONG) - 1}/{len(LONG)}"]


def test_a_last_chunk_whose_answer_is_lost_is_the_video_the_session_then_names(step, job, clocks, emulator):
    emulator.drop(*PUTS, times=2)
    done, _, _ = publish_to_the_end(step, job(), clocks)
    [made] = videos(emulator)
    assert done.outcome.external_url.endswith(made.id) and len(sessions(emulator)) == 1


def test_a_session_youtube_no_longer_knows_is_started_again(step, job, clocks, emulator):
    state = {"session": "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=gone"
                        "&part=snippet,status", "size": len(LONG), "sha256": hashlib.sha256(LONG).hexdigest()}
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job(), state=state), clocks)
    assert done.outcome.published and len(videos(emulator)) == 1 and len(sessions(emulator)) == 1


def test_media_that_changed_since_the_upload_started_fails_without_finishing_it(step, job, clocks, emulator, media):
    media.put("/changing.mp4", mp4(seconds=5, padding=9_000_000), "video/mp4")
    emulator.cut(1_000_000)
    first = youtube.publish(step(), job("changing", video(media, "changing.mp4")))
    media.put("/changing.mp4", mp4(seconds=6, padding=9_000_000), "video/mp4")
    clocks.to(first.after)
    done = youtube.publish(step(), dataclasses.replace(job("changing", video(media, "changing.mp4")),
                                                       state=first.state))
    assert done.outcome.error_code == "media_download_failed" and "changed" in done.outcome.error_message
    assert videos(emulator) == []


def test_a_video_youtube_locks_private_is_published_with_a_warning(step, job, clocks, emulator):
    emulator.configure(audited=False)
    done, _, _ = publish_to_the_end(step, job(), clocks)
    assert done.outcome.published and videos(emulator)[0].privacy_status == "private"
    [warning] = done.outcome.warnings
    assert "made the video private though public was asked" in warning and "audit" in warning


def test_a_private_video_asked_for_is_no_warning(step, job, clocks, emulator):
    emulator.configure(audited=False)
    done, _, _ = publish_to_the_end(step, job(options={"privacy_status": "private"}), clocks)
    assert done.outcome.published and done.outcome.warnings == ()


def test_a_vertical_video_of_up_to_3_minutes_is_a_short():
    def info(width, height, seconds):
        return MediaInfo("https://m/v.mp4", "video", "mp4", "video/mp4", 10, width, height, duration=seconds)
    assert is_short(info(1080, 1920, 180)) and is_short(info(1080, 1080, 30))
    assert not is_short(info(1920, 1080, 30)) and not is_short(info(1080, 1920, 181))
    assert not is_short(info(None, None, 30))  # its picture size unread: a watch page
    assert youtube.permalink("abcdefghijk", short=True) == "https://www.youtube.com/shorts/abcdefghijk"


def test_a_short_answers_its_shorts_url(step, job, clocks, emulator, monkeypatch):
    monkeypatch.setattr(upload, "is_short", lambda info: True)  # the fetch reads no video's picture size yet
    done, _, _ = publish_to_the_end(step, job(), clocks)
    assert done.outcome.external_url == f"https://www.youtube.com/shorts/{videos(emulator)[0].id}"


# --- the first comment ------------------------------------------------------------------------------

def test_a_first_comment_is_posted_under_the_video_by_its_channel(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job(first_comment="Where to get it: https://shop.example"), clocks)
    [made] = videos(emulator)
    [comment] = emulator.comments[made.id]
    assert done.outcome.published and done.outcome.first_comment_error is None
    assert (comment.text, comment.channel_id) == ("Where to get it: https://shop.example", CHANNEL)


def test_a_comment_whose_answer_is_lost_is_found_not_posted_again(step, job, clocks, emulator):
    emulator.drop(*COMMENTS)
    done, _, _ = publish_to_the_end(step, job(first_comment="once"), clocks)
    assert done.outcome.published and done.outcome.first_comment_error is None
    assert len(emulator.comments[videos(emulator)[0].id]) == 1 and len(emulator.calls_to(*COMMENTS)) == 1


def test_a_comment_on_a_video_made_for_kids_is_refused_and_the_target_stays_published(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job(first_comment="hi", options={"made_for_kids": True}), clocks)
    assert done.outcome.published and "disabled comments" in done.outcome.first_comment_error
    assert emulator.comments[videos(emulator)[0].id] == []


# --- the quota, counted before the call ---------------------------------------------------------------

def test_the_projects_uploads_of_the_day_fail_the_next_without_a_call(step, job, emulator, settings):
    at_cap = lambda since, workspace: 100 if workspace else 0  # noqa: E731
    done = youtube.publish(step(recent=at_cap), job())
    assert done.outcome.error_code == "platform_rate_limited" and emulator.calls == []
    assert "FANOUT_YOUTUBE_DAILY_UPLOADS" in done.outcome.error_message
    assert "2026-11-23T08:00:00Z" in done.outcome.error_message  # midnight Pacific Time


def test_the_day_counted_starts_at_midnight_pacific_time(step, job, clocks, emulator):
    asked = []
    publish_to_the_end(step, job(), clocks, recent=lambda since, ws: asked.append((since, ws)) or 0)
    assert asked[0] == (dt.datetime(2026, 11, 22, 8, 0), True)


def test_a_preflight_foresees_the_days_uploads_spent_and_records_nothing(step, job, emulator, settings):
    spent = step(recent=lambda since, workspace: 100)
    [problem] = youtube.foresee(spent, job())
    assert problem.error_code == "platform_rate_limited" and spent.saved == [] and emulator.calls == []
    assert youtube.foresee(step(settings=settings.with_platform("youtube", daily_uploads=101),
                                recent=lambda since, workspace: 100), job()) == []


# --- the mapping table, row by row ---------------------------------------------------------------

# (row, call that answers, HTTP status, body) -> the target's code.
YOUTUBE_ROWS = [
    ("401 authError", START_UPLOAD, 401, google_error(401, "authError", "Invalid Credentials", "global"),
     "platform_auth_expired"),
    ("403 insufficientPermissions", START_UPLOAD, 403,
     google_error(403, "insufficientPermissions", "Request had insufficient authentication scopes.", "global"),
     "platform_auth_expired"),
    ("401 youtubeSignupRequired", START_UPLOAD, 401, google_error(401, "youtubeSignupRequired", "Unauthorized",
                                                                 "youtube.header"), "platform_auth_expired"),
    ("403 quotaExceeded", START_UPLOAD, 403, google_error(403, "quotaExceeded", "The request cannot be completed "
                                                          "because you have exceeded your quota.", "youtube.quota"),
     "platform_rate_limited"),
    ("403 rateLimitExceeded", START_UPLOAD, 403, google_error(403, "rateLimitExceeded", "Rate Limit Exceeded"),
     "platform_rate_limited"),
    ("403 userRateLimitExceeded", START_UPLOAD, 403, google_error(403, "userRateLimitExceeded",
                                                                  "User Rate Limit Exceeded", "usageLimits"),
     "platform_rate_limited"),
    ("400 uploadLimitExceeded", START_UPLOAD, 400, google_error(400, "uploadLimitExceeded", "The user has exceeded "
                                                                "the number of videos they may upload."),
     "platform_rate_limited"),
    ("429", START_UPLOAD, 429, google_error(429, "rateLimitExceeded", "Too Many Requests"), "platform_rate_limited"),
    ("400 invalidDescription", START_UPLOAD, 400, google_error(400, "invalidDescription", "The request metadata "
                                                               "specifies an invalid video description."),
     "caption_too_long"),
    ("400 invalidTitle", START_UPLOAD, 400, google_error(400, "invalidTitle", "The request metadata specifies an "
                                                         "invalid or empty video title."), "platform_option_rejected"),
    ("400 invalidTags", START_UPLOAD, 400, google_error(400, "invalidTags", "The request metadata specifies invalid "
                                                        "video keywords."), "platform_option_rejected"),
    ("400 invalidCategoryId", START_UPLOAD, 400, google_error(400, "invalidCategoryId", "The snippet.categoryId "
                                                              "property specifies an invalid category ID."),
     "platform_option_rejected"),
    ("400 mediaBodyRequired on a chunk", PUTS, 400, google_error(400, "mediaBodyRequired", "The request does not "
                                                                 "include the video content."),
     "platform_rejected_media"),
    ("403 forbidden", START_UPLOAD, 403, google_error(403, "forbidden", "Access forbidden."), "unknown_platform_error"),
    ("anything else: an HTML page", START_UPLOAD, 400, "<html>Bad Request</html>", "unknown_platform_error"),
]


@pytest.mark.parametrize("row, call, status, body, code", YOUTUBE_ROWS, ids=[r[0] for r in YOUTUBE_ROWS])
def test_each_youtube_error_ends_in_its_target_code(step, job, clocks, emulator, row, call, status, body, code):
    emulator.fail(*call, status, body)
    done, _, _ = publish_to_the_end(step, job(), clocks)
    assert done.outcome.error_code == code
    said = body["error"]["message"] if isinstance(body, dict) else "Bad Request"
    if row == "403 quotaExceeded":
        said = "daily quota for this app's project is spent (quotaExceeded)"
    assert said in done.outcome.error_message  # YouTube's own words, or its raw answer
    assert videos(emulator) == []


@pytest.mark.parametrize("how, code", [("exhaust quota", "platform_rate_limited"),
                                       ("exhaust uploads", "platform_rate_limited"),
                                       ("expired token", "platform_auth_expired"),
                                       ("description over 5000 bytes", "caption_too_long")])
def test_the_emulators_own_refusals_end_in_their_codes(step, job, clocks, emulator, how, code):
    caption = "é" * 2501 if how.startswith("description") else "hello"
    if how.startswith("exhaust"):
        emulator.exhaust(how.split()[1])
    elif how == "expired token":
        emulator.expire_tokens(SUB)
    done, _, _ = publish_to_the_end(step, job(caption), clocks)
    assert done.outcome.error_code == code and videos(emulator) == []


def test_the_days_quota_spent_says_when_it_resets(step, job, clocks, emulator):
    emulator.exhaust("quota")
    done = youtube.publish(step(), job())
    assert done.outcome.error_message.endswith("resets at midnight Pacific Time, 2026-11-23T08:00:00Z")


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, token):
    emulator.fail(*START_UPLOAD, 400, {"error": {"code": 400, "message": f"odd {token}", "errors": []}})
    done = youtube.publish(step(), job())
    assert done.outcome.error_code == "unknown_platform_error" and token not in done.outcome.error_message


# --- answers that break YouTube's contract (fanout/platforms/contract.py) --------------------------

def test_a_session_without_its_uri_fails_at_once_sending_no_byte(step, job, emulator):
    emulator.garble(*START_UPLOAD, 200, "")
    done = youtube.publish(step(), job())
    assert done.outcome.error_code == "unknown_platform_error" and not emulator.calls_to(*PUTS)
    assert "without a session URI" in done.outcome.error_message and "no video was made" in done.outcome.error_message


def test_a_session_uri_off_googles_hosts_fails_at_once_sending_no_byte(step, job, emulator):
    emulator.garble(*START_UPLOAD, 200, "", headers={"Location": "https://127.0.0.2:9/upload?upload_id=x"})
    done = youtube.publish(step(), job())
    assert "a session URI at https://127.0.0.2:9, not https on one of its hosts" in done.outcome.error_message
    assert not emulator.calls_to(*PUTS)


def test_a_last_chunk_answered_with_no_json_is_read_back_from_the_session(step, job, clocks, emulator, media):
    emulator.garble(*PUTS, 201, "<html>ok</html>")  # a file of one chunk: its PUT is the last
    done = youtube.publish(step(), job("a clip", video(media, "clip.mp4")))
    [made] = videos(emulator)
    assert done.outcome.external_url.endswith(made.id) and len(sessions(emulator)) == 1


# --- never twice ---------------------------------------------------------------------------------

@pytest.mark.parametrize("killed_after", range(7))
def test_a_worker_killed_after_any_save_leaves_one_video_and_one_comment(step, job, clocks, emulator, killed_after):
    done, _, _ = steps.publish_after_a_death(youtube, step, job(first_comment="once"), clocks, killed_after,
                                             may_outlive=True)
    [made] = videos(emulator)
    assert done.outcome.external_url.endswith(made.id) and len(emulator.comments[made.id]) == 1
