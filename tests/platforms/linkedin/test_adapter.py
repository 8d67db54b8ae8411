"""The LinkedIn adapter (fanout/platforms/linkedin/adapter.py) against the LinkedIn emulator,
over real HTTP on loopback: OAuth 2.0 and the member from userinfo, the refresh with and
without refresh tokens, text, image and video posts step by step through the versioned
API, the commentary's escaping and cap, the mapping table of docs/platforms.md#linkedin
row by row, and never twice (a mark saved before the post, LinkedIn's duplicate answer
after an unknown outcome).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.platforms.base import AuthFailed, ClientRefused, Job, Retry, Wait
from fanout.platforms.linkedin import adapter as linkedin

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, app, clocks, http, image, outbound, step, video,
)
from ...emulators.clock import EmulatorClock
from ...emulators.linkedin import LinkedInEmulator
from ...emulators.media.server import sample_media_server
from ...media_files import mp4

START = dt.datetime(2026, 11, 22, 10, 0)
SUB, NAME = "emuLiMember01", "Emu Linked"
URN = f"urn:li:person:{SUB}"
REDIRECT_URI = "https://c.example.com/connect/linkedin/callback"
POSTS = ("POST", r"/rest/posts$")
IMAGES = ("POST", r"/rest/images$")
VIDEOS = ("POST", r"/rest/videos$")
UPLOADS = ("PUT", r"/dms-uploads/")


@pytest.fixture(scope="module")
def li_server():
    with LinkedInEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(li_server):
    li_server.reset()
    li_server.set_clock(START)
    li_server.configure(refresh_tokens=False, member_media_reads=True, daily_posts=150)
    yield li_server
    assert not li_server.errors, li_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", mp4(seconds=20, padding=9_000_000), "video/mp4")  # three 4 MiB parts
        yield server


@pytest.fixture
def token(emulator) -> str:
    return emulator.issue_token(SUB)[0]


@pytest.fixture
def job(token):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="linkedin", user_id=SUB, username=NAME, access_token=token,
                   caption=caption, media=tuple(items), state={}, **kwargs)
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(linkedin, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts[SUB]


def rest_error(status: int, message: str, code: str | None = None, service: int | None = None) -> dict:
    body = {"status": status, "message": message}
    if code:
        body["code"] = code
    if service:
        body["serviceErrorCode"] = service
    return body


def input_error(status: int, message: str, code: str) -> dict:
    return {"errorDetailType": "com.linkedin.common.error.BadRequest", "message": message, "status": status,
            "errorDetails": {"inputErrors": [{"description": message, "input": {}, "code": code}]}}


# --- OAuth 2.0 --------------------------------------------------------------------------------

def authorized(http, app, emulator) -> tuple[str, dict]:
    """The consent as the browser goes through it: (code, query sent to LinkedIn)."""
    authorization = linkedin.authorize(app, REDIRECT_URI, "S1")
    sent = {k: v[0] for k, v in parse_qs(urlsplit(authorization.url).query).items()}
    back = requests.get(http.url(authorization.url), allow_redirects=False, timeout=5).headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(back).query).items()}
    assert query["state"] == "S1"
    return query["code"], sent


def test_the_authorize_url_asks_for_openid_profile_and_w_member_social(http, app, emulator):
    _, sent = authorized(http, app, emulator)
    assert sent["scope"] == "openid profile w_member_social" and sent["response_type"] == "code"
    assert urlsplit(linkedin.authorize(app, REDIRECT_URI, "S1").url).hostname == "www.linkedin.com"


def test_the_exchange_gives_a_60_day_token_and_the_member_from_userinfo(http, app, clocks, emulator):
    code, _ = authorized(http, app, emulator)
    grant = linkedin.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    assert (grant.user_id, grant.username, grant.refresh_token) == (SUB, NAME, None)
    assert grant.expires_at == clocks.ours.now + dt.timedelta(days=60)
    assert linkedin.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(hours=1)


def test_an_app_with_refresh_tokens_keeps_its_refresh_token(http, app, clocks, emulator):
    emulator.configure(refresh_tokens=True)
    code, _ = authorized(http, app, emulator)
    grant = linkedin.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    clocks.advance(86400)
    again = linkedin.refresh(http, app, grant.access_token, grant.refresh_token, now=clocks.ours.now)
    assert again.access_token != grant.access_token and again.refresh_token == grant.refresh_token
    assert again.expires_at == clocks.ours.now + dt.timedelta(days=60)


def test_without_refresh_tokens_a_living_token_is_kept_with_its_end(http, app, clocks, emulator, token):
    clocks.advance(59 * 86400)
    kept = linkedin.refresh(http, app, token, None, now=clocks.ours.now)
    assert kept.access_token == token and kept.expires_at == START + dt.timedelta(days=60)


@pytest.mark.parametrize("how", ["expired", "revoked"])
def test_without_refresh_tokens_an_ended_token_is_auth_failed(http, app, clocks, emulator, token, how):
    if how == "expired":
        clocks.advance(60 * 86400)
    else:
        emulator.revoke_tokens(SUB)
    with pytest.raises(AuthFailed) as refused:
        linkedin.refresh(http, app, token, None, now=clocks.ours.now)
    assert how in refused.value.reason and token not in refused.value.reason


def test_a_refused_refresh_token_is_auth_failed(http, app, clocks, emulator):
    emulator.configure(refresh_tokens=True)
    access, refresh_token = emulator.issue_token(SUB)
    emulator.revoke_tokens(SUB)
    with pytest.raises(AuthFailed):
        linkedin.refresh(http, app, access, refresh_token, now=clocks.ours.now)


def test_app_credentials_linkedin_refuses_are_not_the_accounts_fault(http, clocks, emulator, token):
    from fanout.platforms.base import App

    with pytest.raises(ClientRefused):
        linkedin.refresh(http, App("app-id", "wrong-secret"), token, None, now=clocks.ours.now)


# --- publishing ------------------------------------------------------------------------------

def test_a_text_post_goes_through_the_versioned_api_and_answers_its_feed_url(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("hello from fanout"), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://www.linkedin.com/feed/update/{post.urn}/"
    [call] = emulator.calls_to(*POSTS)
    assert call.body["author"] == URN and call.body["visibility"] == "PUBLIC" and "content" not in call.body


def test_the_version_sent_is_the_setting(step, job, clocks, emulator, settings):
    done = linkedin.publish(step(settings=settings.with_platform("linkedin", api_version="202512")), job("hi"))
    assert done.outcome.published
    done = linkedin.publish(step(settings=settings.with_platform("linkedin", api_version="202410")), job("again"))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "FANOUT_LINKEDIN_API_VERSION" in done.outcome.error_message


def test_reserved_characters_are_escaped_so_the_feed_shows_the_caption_whole(step, job, clocks, emulator):
    caption = "Launch (beta) *today* at 10_00 <3 ~ {x} [y] | a@b \\ #launch C#"
    publish_to_the_end(step, job(caption), clocks)
    [post] = posts(emulator)
    assert post.text == caption  # an unescaped "(" would have cut it there
    assert "#launch" in post.commentary and "C\\#" in post.commentary


def test_an_image_is_initialized_put_read_back_and_posted(step, job, clocks, emulator, media):
    done, results, _ = publish_to_the_end(step, job("a photo", image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and post.content == {"media": {"id": post.media[0]}}
    assert [c.path for c in emulator.calls_to("PUT")] and isinstance(results[0], Wait)  # processed for 2 s
    assert emulator.calls_to(*IMAGES)[0].body == {"initializeUploadRequest": {"owner": URN}}


def test_several_images_are_a_multi_image_post(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("photos", image(media), image(media, "photo.png")), clocks)
    [post] = posts(emulator)
    assert len(post.content["multiImage"]["images"]) == 2 and post.urn.startswith("urn:li:ugcPost:")


def test_an_images_alt_text_is_its_alt_text_on_the_post(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a photo", {**image(media), "alt_text": "A red door"}), clocks)
    [post] = posts(emulator)
    assert post.content == {"media": {"id": post.media[0], "altText": "A red door"}}


def test_each_image_of_a_multi_image_post_carries_its_alt_text(step, job, clocks, emulator, media):
    items = ({**image(media), "alt_text": "one"}, {**image(media, "photo.png"), "alt_text": "two"})
    publish_to_the_end(step, job("photos", *items), clocks)
    [post] = posts(emulator)
    assert [i.get("altText") for i in post.content["multiImage"]["images"]] == ["one", "two"]


def test_a_video_goes_in_parts_with_their_etags_then_is_waited_for(step, job, clocks, emulator, media):
    done, results, _ = publish_to_the_end(step, job("a clip", video(media, "long.mp4")), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and post.media[0].startswith("urn:li:video:")
    assert len(emulator.calls_to(*UPLOADS)) == 3
    [finalize] = [c for c in emulator.calls_to(*VIDEOS) if c.query.get("action") == "finalizeUpload"]
    assert len(finalize.body["finalizeUploadRequest"]["uploadedPartIds"]) == 3
    assert sum(isinstance(r, Wait) for r in results) >= 2  # LinkedIn processes it for 10 s


def test_media_whose_processing_fails_is_rejected_media(step, job, clocks, emulator, media):
    emulator.fail_next_video("The video codec is not supported")
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, "long.mp4")), clocks)
    assert done.outcome.error_code == "platform_rejected_media" and "codec" in done.outcome.error_message


def test_an_image_a_member_may_not_read_back_is_posted_after_a_grace(step, job, clocks, emulator, media):
    emulator.configure(member_media_reads=False)
    done, results, _ = publish_to_the_end(step, job("a photo", image(media)), clocks)
    assert done.outcome.published and len(posts(emulator)) == 1
    assert [r.until - START for r in results if isinstance(r, Wait)] == [dt.timedelta(seconds=5)]


def test_a_video_under_linkedins_smallest_is_rejected_at_initialize(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("tiny", video(media, "clip.mp4")), clocks)  # a few hundred bytes
    assert done.outcome.error_code == "platform_rejected_media" and posts(emulator) == []


def test_the_members_day_of_posts_fails_the_next_without_a_call(step, job, emulator):
    at_cap = lambda since, workspace: 150
    done = linkedin.publish(step(recent=at_cap), job("one too many"))
    assert done.outcome.error_code == "platform_rate_limited" and emulator.calls == []


# --- the mapping table, row by row -----------------------------------------------------------

# (row, call that answers, HTTP status, body, media item kind) -> the target's code.
LINKEDIN_ROWS = [
    ("401 EXPIRED_ACCESS_TOKEN", POSTS, 401,
     rest_error(401, "The token used in the request has expired", "EXPIRED_ACCESS_TOKEN", 65602), None,
     "platform_auth_expired"),
    ("401 REVOKED_ACCESS_TOKEN", POSTS, 401,
     rest_error(401, "The token used in the request has been revoked by the user", "REVOKED_ACCESS_TOKEN", 65601),
     None, "platform_auth_expired"),
    ("401 invalid token (65600)", POSTS, 401, rest_error(401, "Invalid access token", service=65600), None,
     "platform_auth_expired"),
    ("403 ACCESS_DENIED", POSTS, 403,
     rest_error(403, "Not enough permissions to access: partnerApiPostsExternal.CREATE", "ACCESS_DENIED", 100),
     None, "platform_auth_expired"),
    ("429 throttled", POSTS, 429, rest_error(429, "Resource level throttle DAY limit for calls to this resource is "
                                                  "reached."), None, "platform_rate_limited"),
    ("400 commentary too long", POSTS, 400,
     input_error(400, "com.linkedin.content.common.exception.BadRequestResponseException: ShareCommentary text "
                      "length (3001 characters) exceeded the maximum allowed (3000 characters)",
                 "FIELD_ARRAY_SIZE_TOO_HIGH"), None, "caption_too_long"),
    ("initializeUpload 400 (size)", VIDEOS, 400, rest_error(400, "File size is outside the allowed range"), "video",
     "platform_rejected_media"),
    ("upload PUT 400", UPLOADS, 400, rest_error(400, "The uploaded file is not valid"), "image",
     "platform_rejected_media"),
    ("422 DUPLICATE_POST on a first send", POSTS, 422,
     input_error(422, "Content is a duplicate of urn:li:share:7400000000000000009", "DUPLICATE_POST"), None,
     "unknown_platform_error"),
    ("426 NONEXISTENT_VERSION", POSTS, 426, rest_error(426, "Requested version 20250401 is not active",
                                                       "NONEXISTENT_VERSION"), None, "unknown_platform_error"),
    ("400 VERSION_MISSING", POSTS, 400, rest_error(400, "A version must be present.", "VERSION_MISSING"), None,
     "unknown_platform_error"),
    ("422 INVALID_ENUM_VALUE", POSTS, 422, input_error(422, "/visibility is not one of", "INVALID_ENUM_VALUE"), None,
     "unknown_platform_error"),
    ("anything else: an HTML page", POSTS, 400, "<html>Bad Request</html>", None, "unknown_platform_error"),
]


def item_of(kind: str | None, media) -> tuple:
    return {"image": (image(media),), "video": (video(media, "long.mp4"),), None: ()}[kind]


@pytest.mark.parametrize("row, call, status, body, kind, code", LINKEDIN_ROWS, ids=[r[0] for r in LINKEDIN_ROWS])
def test_each_linkedin_error_ends_in_its_target_code(step, job, clocks, emulator, media, row, call, status, body,
                                                     kind, code):
    emulator.fail(*call, status, body)
    done, _, _ = publish_to_the_end(step, job("hello", *item_of(kind, media)), clocks)
    assert done.outcome.error_code == code
    said = body["message"] if isinstance(body, dict) else "Bad Request"
    assert said in done.outcome.error_message  # LinkedIn's own words, or its raw answer
    assert posts(emulator) == []


def test_a_5xx_is_retried_and_then_posts_once(step, job, clocks, emulator):
    emulator.fail(*POSTS, 503, rest_error(503, "Service Unavailable"))
    done, results, _ = publish_to_the_end(step, job("hello"), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(posts(emulator)) == 1


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, token):
    emulator.fail(*POSTS, 400, {"status": 400, "message": f"odd {token}", "weird": 12345})
    done = linkedin.publish(step(), job("hello"))
    assert done.outcome.error_code == "unknown_platform_error" and token not in done.outcome.error_message


# --- answers that break LinkedIn's contract (fanout/platforms/contract.py) ---------------------

def test_a_post_answered_without_its_urn_fails_at_once_saying_it_may_be_out_and_is_never_sent_again(
        step, job, clocks, emulator):
    emulator.garble(*POSTS, 201, "")  # posted; no x-restli-id
    done, results, _ = publish_to_the_end(step, job("posted, unnamed"), clocks)
    assert results == [done] and done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith("LinkedIn answered the post without its x-restli-id; ")
    assert "LinkedIn may have published it all the same" in done.outcome.error_message
    assert len(emulator.calls_to(*POSTS)) == 1 and len(posts(emulator)) == 1


def test_an_image_upload_url_off_linkedins_hosts_fails_at_once_sending_no_bytes(step, job, emulator, media):
    emulator.garble(*IMAGES, 200, {"value": {"image": "urn:li:image:C4E10AQabc",
                                             "uploadUrl": "https://127.0.0.2:9/dms-uploads/1"}})
    done = linkedin.publish(step(), job("a photo", image(media)))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "an upload URL at https://127.0.0.2:9, not https on one of its hosts" in done.outcome.error_message
    assert not emulator.calls_to(*UPLOADS) and not emulator.calls_to(*POSTS)


def test_a_media_status_linkedin_does_not_list_fails_at_once(step, job, emulator, media):
    emulator.garble("GET", r"/rest/images/", 200, {"status": "THINKING"}, times=None)
    done = linkedin.publish(step(), job("a photo", image(media)))
    assert done.outcome.error_code == "unknown_platform_error" and not emulator.calls_to(*POSTS)
    assert "the status of media[0] with status 'THINKING', not one of WAITING_UPLOAD" in done.outcome.error_message


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_settled_by_linkedins_duplicate_answer(step, job, clocks, emulator):
    emulator.drop(*POSTS)  # posted, then the connection is closed
    first = linkedin.publish(step(), job("maybe posted"))
    assert isinstance(first, Retry) and first.state["sending"] is True and len(posts(emulator)) == 1
    clocks.to(first.after)
    done = linkedin.publish(step(), dataclasses.replace(job("maybe posted"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://www.linkedin.com/feed/update/{post.urn}/"
    assert len(emulator.calls_to(*POSTS)) == 2  # the second refused as a duplicate


def test_a_post_that_never_arrived_is_sent_again(step, job, clocks, emulator):
    emulator.drop(*POSTS, after_effect=False)
    first = linkedin.publish(step(), job("not there yet"))
    clocks.to(first.after)
    done = linkedin.publish(step(), dataclasses.replace(job("not there yet"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url.endswith(f"{post.urn}/")


def test_the_mark_is_saved_before_the_post_is_sent(step, job, emulator):
    run = step()
    linkedin.publish(run, job("marked"))
    [at] = [i for i, call in enumerate(emulator.calls) if call.path == "/rest/posts"]
    assert dict(zip(run.calls_at_save, run.saved))[at]["sending"] is True
    assert run.saved[-1]["post"] == posts(emulator)[0].urn


@pytest.mark.parametrize("killed_after", range(5))
def test_a_worker_killed_after_any_save_of_an_image_post_leaves_one_post(step, job, clocks, emulator, media,
                                                                         killed_after):
    done, _, _ = steps.publish_after_a_death(linkedin, step, job("only once", image(media)), clocks, killed_after,
                                             may_outlive=True)
    [post] = posts(emulator)
    assert done.outcome.external_url.endswith(f"{post.urn}/")
