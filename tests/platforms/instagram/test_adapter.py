"""The Instagram adapter (fanout/platforms/instagram/adapter.py) against the Instagram emulator,
over real HTTP on loopback: images, Reels and carousels step by step, the daily cap, the
mapping table of docs/platforms.md#instagram row by row, never twice, and the token calls.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.platforms.instagram import adapter as instagram
from fanout.platforms.base import AccountNotEligible, AuthFailed, Done, Job, Retry, Wait

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, RecordingStep, app, clocks, graph_error, http, image, outbound, step, video,
)
from ...emulators.clock import EmulatorClock
from ...emulators.instagram import InstagramEmulator
from ...emulators.media import jpeg_bytes
from ...emulators.media.server import sample_media_server

START = dt.datetime(2026, 11, 22, 10, 0)
USER_ID, USERNAME = "17841400000000002", "emu_instagram"
REDIRECT_URI = "https://c.example.com/connect/instagram/callback"


@pytest.fixture(scope="module")
def instagram_server():
    with InstagramEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(instagram_server):
    instagram_server.reset()
    instagram_server.set_clock(START)
    instagram_server.set_quota(50)
    instagram_server.consent_as(USER_ID)
    yield instagram_server
    assert not instagram_server.errors, instagram_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/square.jpg", jpeg_bytes(400, 400), "image/jpeg")
        server.put("/tall.jpg", jpeg_bytes(300, 600), "image/jpeg")  # 1:2, narrower than 4:5
        yield server


@pytest.fixture
def token(emulator) -> str:
    return emulator.issue_token(USER_ID)


@pytest.fixture
def job(token, media):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="instagram", user_id=USER_ID, username=USERNAME,
                   access_token=token, caption=caption, media=tuple(items) or (image(media),),
                   **{"state": {}, **kwargs})
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(instagram, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts[USER_ID]


def seconds(*values: float) -> list[dt.timedelta]:
    return [dt.timedelta(seconds=v) for v in values]


def waits(results) -> list[dt.timedelta]:
    """When each Wait asked to be called again, from START."""
    return [r.until - START for r in results if isinstance(r, Wait)]


CREATE = ("POST", rf"/{USER_ID}/media$")
PUBLISH = ("POST", r"/media_publish$")


# --- publishing ----------------------------------------------------------------------------

def test_an_image_post_is_one_image_container_with_the_caption_and_the_permalink_read_back(
        step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a photo", image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and done.outcome.external_url == post.permalink
    assert (post.media_type, post.caption) == ("IMAGE", "a photo")
    assert emulator.calls_to("GET", rf"/{post.id}$")  # the permalink is read from the API


def test_an_images_alt_text_goes_to_its_container(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a photo", {**image(media), "alt_text": "A red door"}), clocks)
    [post] = posts(emulator)
    assert post.options["alt_text"] == "A red door"


def test_the_caption_is_sent_untouched(step, job, clocks, emulator, media):
    caption = "Ünïcode #tag @friend\n\nsecond line &amp; 100% 😀"
    publish_to_the_end(step, job(caption, image(media)), clocks)
    assert posts(emulator)[0].caption == caption


def test_an_image_post_may_have_no_caption(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("", image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and not post.caption
    assert "caption" not in emulator.calls_to(*CREATE)[0].body


def test_a_video_is_a_reel_waited_for_by_scheduled_steps_then_published(step, job, clocks, emulator, media):
    first = instagram.publish(step(), job("a reel", video(media)))
    assert isinstance(first, Wait)
    assert emulator.calls_to(*CREATE)[0].body["media_type"] == "REELS"
    assert posts(emulator) == []
    # The emulator processes a video in 30 s: read again 1, 3, 7, 15 and 30 s after it was made.
    clocks.to(first.until)
    done, results, _ = publish_to_the_end(step, dataclasses.replace(job("a reel", video(media)), state=first.state),
                                          clocks)
    assert waits([first, *results]) == seconds(1, 3, 7, 15, 30)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and "/reel/" in post.permalink


@pytest.mark.parametrize("count", [2, 3, 10])
def test_a_carousel_is_its_items_without_captions_then_the_parent_with_it(step, job, clocks, emulator, media, count):
    items = tuple(video(media) if i == 1 else image(media, "square.jpg" if i % 2 else "photo.jpg")
                  for i in range(count))
    done, results, _ = publish_to_the_end(step, job("several things", *items), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and post.caption == "several things"
    assert post.media_type == "CAROUSEL_ALBUM" and len(post.children) == count
    created = [call.body for call in emulator.calls_to(*CREATE)]
    assert [b.get("is_carousel_item") for b in created] == ["true"] * count + [None]
    assert all("caption" not in b for b in created[:-1]) and created[-1]["caption"] == "several things"
    assert created[1]["media_type"] == "VIDEO"  # a carousel video is VIDEO, not REELS
    assert isinstance(results[0], Wait)  # the video item is processing
    assert created[-1]["children"].split(",") == [item["id"] for item in results[0].state["items"]]
    assert len(emulator.calls_to(*PUBLISH)) == 1


def test_a_container_not_finished_within_the_window_fails_container_expired(step, job, clocks, emulator, media,
                                                                              settings):
    emulator.force_next_container("IN_PROGRESS")  # never finishes
    short = settings.with_platform("instagram", container_window=300)
    make = lambda **kw: RecordingStep(step().http, short, clocks.ours, emulator, **kw)
    done, results, _ = publish_to_the_end(make, job("a reel", video(media)), clocks)
    assert done.outcome.error_code == "container_expired" and "300 s" in done.outcome.error_message
    assert all(isinstance(r, Wait) for r in results[:-1])
    # Growing to Meta's "once per minute", the last read at the window's end.
    assert waits(results) == seconds(1, 3, 7, 15, 30, 60, 120, 180, 240, 300)
    assert emulator.calls_to(*PUBLISH) == [] and posts(emulator) == []


def test_the_default_window_is_a_day(settings):
    assert settings.of("instagram").container_window == 86400


def test_the_graph_version_is_the_setting(step, job, clocks, emulator, media, settings):
    newer = settings.with_platform("instagram", graph_api_version="v26.0")
    make = lambda **kw: RecordingStep(step().http, newer, clocks.ours, emulator, **kw)
    publish_to_the_end(make, job("versioned", image(media)), clocks)
    assert emulator.calls and all(call.path.startswith("/v26.0/") for call in emulator.calls)


# --- options and the first comment --------------------------------------------------------------

COMMENTS = ("POST", r"/[0-9]+/comments$")


def test_a_reels_options_go_on_its_container(step, job, clocks, emulator, media):
    options = {"share_to_feed": False, "thumb_offset": 1500, "location_id": "110000000000001"}
    publish_to_the_end(step, job("a reel", video(media), options=options), clocks)
    [post] = posts(emulator)
    assert post.options == {"share_to_feed": False, "thumb_offset": 1500, "location_id": "110000000000001"}


def test_collaborators_go_as_a_json_list_on_the_post_not_its_items(step, job, clocks, emulator, media):
    emulator.add_user("friend_one")
    its = job("with a friend", image(media), image(media, "square.jpg"), options={"collaborators": ["friend_one"]})
    publish_to_the_end(step, its, clocks)
    [post] = posts(emulator)
    assert post.options == {"collaborators": ["friend_one"]} and post.media_type == "CAROUSEL_ALBUM"


def test_a_collaborator_instagram_refuses_fails_option_rejected(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("nobody", options={"collaborators": ["not_a_user"]}), clocks)
    assert done.outcome.error_code == "platform_option_rejected" and "collaborators" in done.outcome.error_message
    assert posts(emulator) == []


def test_a_first_comment_is_posted_on_the_published_media(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("the post", first_comment="link in the comment: https://a.example.com"),
                                    clocks)
    [post] = posts(emulator)
    [comment] = emulator.comments[post.id]
    assert (comment.text, comment.username) == ("link in the comment: https://a.example.com", USERNAME)
    assert done.outcome.external_url == post.permalink and done.outcome.first_comment_error is None


def test_a_comment_without_the_comments_permission_leaves_the_post_published_saying_why(
        step, job, clocks, emulator):
    token = emulator.issue_token(USER_ID, scopes=["instagram_business_basic", "instagram_business_content_publish"])
    its = dataclasses.replace(job("the post", first_comment="no permission"), access_token=token)
    done, _, _ = publish_to_the_end(step, its, clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and emulator.comments == {}
    assert "(#10)" in done.outcome.first_comment_error


def test_a_comment_whose_answer_is_lost_is_found_among_the_comments_not_sent_again(step, job, clocks, emulator):
    emulator.drop(*COMMENTS)
    done, _, _ = publish_to_the_end(step, job("the post", first_comment="once"), clocks)
    [post] = posts(emulator)
    assert [c.text for c in emulator.comments[post.id]] == ["once"] and len(emulator.calls_to(*COMMENTS)) == 1
    assert done.outcome.first_comment_error is None


@pytest.mark.parametrize("killed_after", range(7))  # the post's 5 saves, the comment's 2
def test_a_worker_killed_after_any_save_of_a_post_and_its_comment_leaves_each_once(
        step, job, clocks, emulator, killed_after):
    its = job("the post", first_comment="the comment")
    done, _, _ = steps.publish_after_a_death(instagram, step, its, clocks, killed_after)
    [post] = posts(emulator)
    assert [c.text for c in emulator.comments[post.id]] == ["the comment"]
    assert done.outcome.external_url == post.permalink and done.outcome.first_comment_error is None


# --- never twice -----------------------------------------------------------------------------

def test_state_naming_the_call_is_saved_before_each_call_that_creates(step, job, clocks, emulator, media):
    run = step()
    instagram.publish(run, job("two photos", image(media), image(media, "square.jpg")))
    creating = [i for i, call in enumerate(emulator.calls) if call.method == "POST"]
    markers = {n: state["creating"] for n, state in zip(run.calls_at_save, run.saved) if state.get("creating")}
    assert [markers.get(i) for i in creating] == ["item:0", "item:1", "container", "publish"]
    assert run.saved[-2]["post"] == posts(emulator)[0].id and "creating" not in run.saved[-2]
    [out] = run.saved[-1]["thread"]
    assert (out["id"], out["permalink"]) == (posts(emulator)[0].id, posts(emulator)[0].permalink)


@pytest.mark.parametrize("killed_after", range(4))  # creating container, container, creating publish, post
def test_a_worker_killed_after_any_save_of_an_image_post_leaves_one_post(step, job, clocks, emulator, media,
                                                                         killed_after):
    done, _, _ = steps.publish_after_a_death(instagram, step, job("only once", image(media)), clocks, killed_after)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink


@pytest.mark.parametrize("killed_after", range(8))
def test_a_worker_killed_after_any_save_of_a_carousel_leaves_one_post(step, job, clocks, emulator, media,
                                                                      killed_after):
    items = (image(media), image(media, "square.jpg"))
    done, _, _ = steps.publish_after_a_death(instagram, step, job("only once", *items), clocks, killed_after)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and len(post.children) == 2


def test_a_publish_whose_answer_is_lost_is_found_on_the_platform_not_sent_again(step, job, clocks, emulator, media):
    emulator.drop(*PUBLISH)  # publishes, then closes the connection
    first = instagram.publish(step(), job("maybe posted", image(media)))
    assert isinstance(first, Retry) and first.state["creating"] == "publish"
    assert len(posts(emulator)) == 1
    clocks.to(first.after)
    done = instagram.publish(step(), dataclasses.replace(job("maybe posted", image(media)), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink
    assert len(emulator.calls_to(*PUBLISH)) == 1
    assert emulator.calls_to("GET", rf"/{USER_ID}/media$")  # found among the recent posts


def test_a_recovered_post_is_found_past_the_first_page_of_recent_posts(step, job, clocks, emulator, media):
    emulator.drop(*PUBLISH)
    first = instagram.publish(step(), job("mine", image(media)))
    for n in range(30):  # more posts since than one page of the account's list holds
        clocks.advance(1)
        publish_to_the_end(step, job(f"published later {n}", image(media)), clocks)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("mine", image(media)), state=first.state), clocks)
    mine = next(p for p in posts(emulator) if p.caption == "mine")
    assert done.outcome.external_url == mine.permalink and len(posts(emulator)) == 31


def test_a_publish_that_never_arrived_is_sent_after_reading_the_container(step, job, clocks, emulator, media):
    emulator.drop(*PUBLISH, after_effect=False)
    first = instagram.publish(step(), job("not posted yet", image(media)))
    assert isinstance(first, Retry) and posts(emulator) == []
    clocks.to(first.after)
    done = instagram.publish(step(), dataclasses.replace(job("not posted yet", image(media)), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and len(emulator.calls_to(*PUBLISH)) == 2


def test_once_the_container_is_published_nothing_fails_the_target(step, job, clocks, emulator, media):
    emulator.drop(*PUBLISH)
    emulator.fail("GET", rf"/{USER_ID}/media$", 400, graph_error(100, "Invalid parameter"), times=None)
    done, results, _ = publish_to_the_end(step, job("out there", image(media)), clocks)
    assert [type(r) for r in results] == [Retry, Retry, Retry, Done]  # the lost publish, then 3 reads
    assert done.outcome.published and done.outcome.external_url is None
    assert len(posts(emulator)) == 1


# --- the daily cap ---------------------------------------------------------------------------

def test_an_account_at_its_quota_fails_before_any_container_is_created(step, job, clocks, emulator, media):
    emulator.set_quota(1)
    publish_to_the_end(step, job("the first", image(media)), clocks)
    done = instagram.publish(step(), job("the second", image(media)))
    assert done.outcome.error_code == "platform_rate_limited" and "1 posts in 24 hours" in done.outcome.error_message
    assert len(emulator.calls_to(*CREATE)) == 1 and len(emulator.calls_to(*PUBLISH)) == 1


def test_the_quota_is_read_again_before_publishing(step, job, clocks, emulator, media):
    first = instagram.publish(step(), job("a reel", video(media)))  # waits while the video is processed
    emulator.set_quota(0)
    clocks.to(first.until)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("a reel", video(media)), state=first.state), clocks)
    assert done.outcome.error_code == "platform_rate_limited" and emulator.calls_to(*PUBLISH) == []


def test_the_platforms_quota_decides_over_our_count(step, job, clocks, emulator, media):
    emulator.set_quota(100)  # newer accounts are allowed 100
    done, _, _ = publish_to_the_end(step, job("fifty-first", image(media), published_last_24h=50), clocks)
    assert done.outcome.published


def test_without_the_platforms_quota_our_count_of_50_decides(step, job, emulator, media):
    emulator.fail("GET", r"/content_publishing_limit$", 500, graph_error(2), times=None)
    done = instagram.publish(step(), job("fifty-first", image(media), published_last_24h=50))
    assert done.outcome.error_code == "platform_rate_limited" and "50" in done.outcome.error_message
    assert emulator.calls_to(*CREATE) == []


# --- the mapping table, row by row -----------------------------------------------------------

# (row of MAPPING, call that answers, HTTP status, body) -> the target's code, in one step.
GRAPH_ROWS = [
    ("code 190 / 463, expired token", CREATE, 400,
     graph_error(190, "Error validating access token: Session has expired on Monday.", 463), "platform_auth_expired"),
    ("code 190 / 460, password changed", PUBLISH, 400,
     graph_error(190, "Error validating access token: The session has been invalidated.", 460),
     "platform_auth_expired"),
    ("code 102, API session", CREATE, 400, graph_error(102, "API Session"), "platform_auth_expired"),
    ("message only: Error validating access token", CREATE, 400,
     {"error": {"message": "Error validating access token: The user is not logged in.", "type": "OAuthException"}},
     "platform_auth_expired"),
    ("code 10, permission", CREATE, 400, graph_error(10, "(#10) Application does not have permission"),
     "platform_auth_expired"),
    ("code 200, permission", PUBLISH, 400, graph_error(200, "(#200) Permissions error"), "platform_auth_expired"),
    ("code 299", CREATE, 400, graph_error(299), "platform_auth_expired"),
    ("code 9 / 2207042, daily quota", PUBLISH, 400,
     graph_error(9, "You reached maximum number of posts", 2207042), "platform_rate_limited"),
    ("code 4, app rate limit", CREATE, 400, graph_error(4, "(#4) Application request limit reached"),
     "platform_rate_limited"),
    ("code 17, user rate limit", CREATE, 400, graph_error(17), "platform_rate_limited"),
    ("code 32", CREATE, 400, graph_error(32), "platform_rate_limited"),
    ("code 341", PUBLISH, 400, graph_error(341), "platform_rate_limited"),
    ("code 613", PUBLISH, 400, graph_error(613), "platform_rate_limited"),
    ("code 9 without a subcode", CREATE, 400, graph_error(9), "platform_rate_limited"),
    ("HTTP 429 without a body", CREATE, 429, "Too Many Requests", "platform_rate_limited"),
    ("code -2 / 2207020, media expired", CREATE, 400, graph_error(-2, "The media has expired", 2207020),
     "container_expired"),
    ("code 24 / 2207006, media not found", PUBLISH, 400, graph_error(24, "The media cannot be found", 2207006),
     "container_expired"),
    ("code 9004 / 2207052, media not fetched", CREATE, 400,
     graph_error(9004, "The media could not be fetched from this uri", 2207052), "media_download_failed"),
    ("code -2 / 2207003, download too slow", CREATE, 400,
     graph_error(-2, "It takes too long to download the media.", 2207003), "media_download_failed"),
    ("2207077, video download failed", CREATE, 400, graph_error(-1, "Instagram Video download failed", 2207077),
     "media_download_failed"),
    ("code 36004 / 2207010, caption", CREATE, 400, graph_error(36004, "The caption was too long", 2207010),
     "caption_too_long"),
    ("code 100 / 2207040, too many @ tags", CREATE, 400, graph_error(100, "Cannot use more than 20 tags", 2207040),
     "caption_too_long"),
    ("code 36000 / 2207004, image too large", CREATE, 400, graph_error(36000, "The image is too large", 2207004),
     "platform_rejected_media"),
    ("code 36001 / 2207005, image format", CREATE, 400, graph_error(36001, "The image format is not supported",
                                                                    2207005), "platform_rejected_media"),
    ("code 36003 / 2207009, aspect ratio", CREATE, 400, graph_error(36003, "aspect ratio", 2207009),
     "platform_rejected_media"),
    ("code 352 / 2207026, video format", CREATE, 400, graph_error(352, "The video format is not supported",
                                                                  2207026), "platform_rejected_media"),
    ("code 100 / 2207023, media type", CREATE, 400, graph_error(100, "The media type is unknown", 2207023),
     "platform_rejected_media"),
    ("code 100 / 2207028, carousel size", CREATE, 400, graph_error(100, "Carousels need 2 to 10", 2207028),
     "platform_rejected_media"),
    ("code 1 / 2207057, thumbnail offset (an option)", CREATE, 400, graph_error(1, "Thumbnail offset", 2207057),
     "platform_option_rejected"),
    ("code 100, an option refused", CREATE, 400, graph_error(100, "Param collaborators is not allowed."),
     "platform_option_rejected"),
    ("code 4 / 2207051, restricted activity (not a rate limit)", PUBLISH, 400,
     graph_error(4, "We restrict certain activity to protect our community.", 2207051), "platform_rejected_media"),
    ("code 25 / 2207050, account restricted", PUBLISH, 400, graph_error(25, "The account is restricted", 2207050),
     "unknown_platform_error"),
    ("code 368, temporarily blocked", CREATE, 400, graph_error(368, "Temporarily blocked"), "unknown_platform_error"),
    ("anything else: code 100 with another message", CREATE, 400, graph_error(100, "Invalid parameter"),
     "unknown_platform_error"),
    ("anything else: 400 that is not Graph's envelope", PUBLISH, 400, "<html>Bad Request</html>",
     "unknown_platform_error"),
]

# Rows worth trying again: the adapter retries (the engine bounds how often: five times,
# then unknown_platform_error).
TRANSIENT_ROWS = [
    ("code -1 / 2207001, server error", CREATE, 400, graph_error(-1, "Instagram server error", 2207001)),
    ("code -1 / 2207032, create media failed", CREATE, 400, graph_error(-1, "Create media fail", 2207032)),
    ("code -1 / 2207053, unknown upload error", CREATE, 400, graph_error(-1, "unknown upload error", 2207053)),
    ("2207082, could not upload", PUBLISH, 400, graph_error(-1, "Could not upload your media", 2207082)),
    ("code 1, unknown", CREATE, 400, graph_error(1, "An unknown error occurred")),
    ("code 2, service", PUBLISH, 400, graph_error(2, "Service temporarily unavailable")),
    ("HTTP 503", CREATE, 503, "Service Unavailable"),
]

# A container's status -> the target's code.
CONTAINER_ROWS = [
    ("EXPIRED", None, "container_expired"),
    *[("ERROR", f"Error: Media upload has failed with error code {subcode}", code) for subcode, code in (
        (2207026, "platform_rejected_media"), (2207004, "platform_rejected_media"),
        (2207009, "platform_rejected_media"), (2207052, "media_download_failed"),
        (2207077, "media_download_failed"), (2207001, "unknown_platform_error"))],
    ("ERROR", "Error: Media upload has failed", "platform_rejected_media"),
]


@pytest.mark.parametrize("row, call, status, body, code", GRAPH_ROWS, ids=[r[0] for r in GRAPH_ROWS])
def test_each_graph_error_ends_in_its_target_code(step, job, emulator, media, row, call, status, body, code):
    emulator.fail(*call, status, body)
    done = instagram.publish(step(), job("hello", image(media)))
    assert isinstance(done, Done) and done.outcome.error_code == code
    assert posts(emulator) == []


@pytest.mark.parametrize("row, call, status, body", TRANSIENT_ROWS, ids=[r[0] for r in TRANSIENT_ROWS])
def test_each_transient_error_is_retried_and_then_publishes_once(step, job, clocks, emulator, media, row, call,
                                                                 status, body):
    emulator.fail(*call, status, body)
    first = instagram.publish(step(), job("hello", image(media)))
    assert isinstance(first, Retry)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("hello", image(media)), state=first.state), clocks)
    assert done.outcome.published and len(posts(emulator)) == 1


@pytest.mark.parametrize("status_code, status, code", CONTAINER_ROWS, ids=[r[1] or r[0] for r in CONTAINER_ROWS])
def test_each_container_outcome_ends_in_its_target_code(step, job, clocks, emulator, media, status_code, status,
                                                        code):
    emulator.force_next_container(status_code, status)
    done, _, _ = publish_to_the_end(step, job("a reel", video(media)), clocks)
    assert done.outcome.error_code == code
    assert posts(emulator) == [] and emulator.calls_to(*PUBLISH) == []


def test_a_container_not_ready_for_publishing_is_polled_again_then_published(step, job, clocks, emulator, media):
    emulator.fail(*PUBLISH, 400, graph_error(9007, "The media is not ready for publishing", 2207027))
    first = instagram.publish(step(), job("patience", image(media)))
    assert isinstance(first, Wait) and first.until == START + dt.timedelta(seconds=1)  # the schedule's first read
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("patience", image(media)), state=first.state),
                                    clocks)
    assert done.outcome.published and len(posts(emulator)) == 1


def test_a_publish_refused_as_not_ready_is_tried_within_the_window_then_fails_container_expired(
        step, job, clocks, emulator, media, settings):
    emulator.fail(*PUBLISH, 400, graph_error(9007, "The media is not ready for publishing", 2207027), times=None)
    short = settings.with_platform("instagram", container_window=5)
    make = lambda **kw: RecordingStep(step().http, short, clocks.ours, emulator, **kw)
    done, results, _ = publish_to_the_end(make, job("never ready", image(media)), clocks)
    assert waits(results) == seconds(1, 3, 5)
    assert done.outcome.error_code == "container_expired" and "within 5 s" in done.outcome.error_message
    assert posts(emulator) == []


def test_a_container_said_not_to_exist_is_tried_twice_more_then_fails_container_expired(
        step, job, clocks, emulator, media):
    emulator.fail(*PUBLISH, 400, graph_error(24, "The media builder does not exist or has been expired", 2207008),
                  times=None)
    done, results, _ = publish_to_the_end(step, job("gone", image(media)), clocks)
    assert done.outcome.error_code == "container_expired"
    assert [type(r) for r in results] == [Retry, Retry, Done] and len(emulator.calls_to(*PUBLISH)) == 3


def test_an_image_instagram_cannot_take_fails_before_a_publish(step, job, emulator, media):
    done = instagram.publish(step(), job("too tall", image(media, "tall.jpg")))
    assert done.outcome.error_code == "platform_rejected_media" and emulator.calls_to(*PUBLISH) == []


def test_an_image_instagram_cannot_download_fails_media_download_failed(step, job, emulator, media):
    done = instagram.publish(step(), job("a photo", image(media, "missing.jpg")))
    assert done.outcome.error_code == "media_download_failed"


def test_a_revoked_token_fails_platform_auth_expired(step, job, emulator, media):
    emulator.revoke_tokens(USER_ID)
    done = instagram.publish(step(), job("hello", image(media)))
    assert done.outcome.error_code == "platform_auth_expired"


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, media, token):
    emulator.fail(*CREATE, 400, {"error": {"message": f"odd failure for access_token={token}", "code": 12345,
                                           "debug": token}})
    done = instagram.publish(step(), job("hello", image(media)))
    message = done.outcome.error_message
    assert done.outcome.error_code == "unknown_platform_error"
    assert "HTTP 400" in message and "odd failure" in message and "12345" in message
    assert token not in message and "127.0.0.1" not in message


# --- connecting and tokens -------------------------------------------------------------------

def authorized_code(http, app, emulator) -> str:
    """What the browser brings back: the code of the authorize redirect."""
    url = http.url(instagram.authorize(app, REDIRECT_URI, "S1").url)
    back = requests.get(url, allow_redirects=False, timeout=5).headers["location"]
    query = parse_qs(urlsplit(back).query)
    assert query["state"] == ["S1"] and back.endswith("#_")
    return query["code"][0]


@pytest.mark.parametrize("shape", ["data", "flat"])
def test_the_exchange_reads_either_answer_and_ends_with_a_60_day_token_and_the_profile(
        http, app, clocks, emulator, settings, shape):
    emulator.token_answer_shape(shape)
    grant = instagram.exchange(http, app, authorized_code(http, app, emulator), REDIRECT_URI, None,
                               now=clocks.ours.now, settings=settings)
    assert (grant.user_id, grant.username, grant.refresh_token) == (USER_ID, USERNAME, None)
    assert grant.expires_at == clocks.ours.now + dt.timedelta(days=60)
    assert len(emulator.calls_to("GET", r"/access_token$")) == 1  # short-lived -> long-lived


def test_a_personal_account_is_refused_as_not_eligible(http, app, clocks, emulator, settings):
    emulator.add_user("just_me", user_id="17841400000000099", account_type="PERSONAL")
    emulator.consent_as("17841400000000099")
    with pytest.raises(AccountNotEligible) as refused:
        instagram.exchange(http, app, authorized_code(http, app, emulator), REDIRECT_URI, None,
                           now=clocks.ours.now, settings=settings)
    assert "just_me" in refused.value.reason and "professional" in refused.value.reason


def test_a_used_code_is_refused_without_the_secret(http, app, clocks, emulator, settings):
    code = authorized_code(http, app, emulator)
    instagram.exchange(http, app, code, REDIRECT_URI, None, now=clocks.ours.now, settings=settings)
    with pytest.raises(AuthFailed) as refused:
        instagram.exchange(http, app, code, REDIRECT_URI, None, now=clocks.ours.now, settings=settings)
    assert "code exchange" in refused.value.reason and "app-secret" not in refused.value.reason


def test_a_token_a_day_old_is_refreshed_for_60_days(http, app, clocks, emulator, token):
    clocks.advance(25 * 3600)
    grant = instagram.refresh(http, app, token, None, now=clocks.ours.now)
    assert grant.access_token and grant.refresh_token is None
    assert grant.expires_at == clocks.ours.now + dt.timedelta(days=60)
    assert instagram.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(days=7)


def test_a_token_under_a_day_old_is_not_refreshed_yet_and_not_refused(http, app, clocks, emulator, token):
    clocks.advance(3600)
    with pytest.raises(instagram.RefreshTooEarly):
        instagram.refresh(http, app, token, None, now=clocks.ours.now)


def test_a_refused_refresh_raises_auth_failed_without_the_token(http, app, clocks, emulator, token):
    clocks.advance(25 * 3600)
    emulator.fail_refresh()
    with pytest.raises(AuthFailed) as refused:
        instagram.refresh(http, app, token, None, now=clocks.ours.now)
    assert "Error validating access token" in refused.value.reason and token not in refused.value.reason


def test_the_authorize_url_asks_for_the_three_scopes_with_the_state(app):
    url = instagram.authorize(app, "https://c.example.com/connect/instagram/callback", "S1").url
    assert url == ("https://www.instagram.com/oauth/authorize?client_id=app-id"
                   "&redirect_uri=https%3A%2F%2Fc.example.com%2Fconnect%2Finstagram%2Fcallback&response_type=code"
                   "&scope=instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments"
                   "&state=S1")
