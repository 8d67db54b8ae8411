"""The Threads adapter (fanout/platforms/threads/adapter.py) against the Threads emulator, over real
HTTP on loopback: publishing step by step, the mapping table of docs/platforms.md#threads
row by row, never twice, and the token calls.

`publish` is driven with a small real Step: a PlatformHttp whose Threads hosts point at the
emulator, the test's clock, and a `save` that records every state as the engine would
store it.
"""
from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from fanout.platforms.threads import adapter as threads
from fanout.platforms.base import AuthFailed, Done, Job, Part, Retry, Wait
from fanout.platforms.http import PlatformHttp, parse_hosts

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, RecordingStep, app, clocks, graph_error, http, image, outbound, step, video,
)
from ...conftest import free_port
from ...emulators.clock import EmulatorClock
from ...emulators.media.server import sample_media_server
from ...emulators.threads import ThreadsEmulator

START = dt.datetime(2026, 11, 22, 10, 0)
USER_ID, USERNAME = "25025320001", "emu_threads"


# One emulator and one media server for the module (stopping a server takes half a
# second), put back as new before each test.
@pytest.fixture(scope="module")
def threads_server():
    with ThreadsEmulator("app-id", "app-secret", users=[(USER_ID, USERNAME)], clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(threads_server):
    threads_server.reset()
    threads_server.set_clock(START)
    threads_server.publish_quota = 250
    for media_type, seconds in ThreadsEmulator.DEFAULT_PROCESSING.items():  # reset() keeps them
        threads_server.set_processing_time(media_type, seconds)
    yield threads_server
    assert not threads_server.errors, threads_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        yield server


@pytest.fixture
def token(emulator) -> str:
    return emulator.issue_token()


@pytest.fixture
def job(token):
    def make(caption: str = "hello from fanout", *media: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="threads", user_id=USER_ID, username=USERNAME, access_token=token,
                   caption=caption, media=tuple(media), **{"state": {}, **kwargs})
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(threads, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts[USER_ID]


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_is_published_with_the_permalink_threads_answers(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("hello from fanout"), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and done.outcome.external_url == post.permalink
    assert (post.media_type, post.text) == ("TEXT_POST", "hello from fanout")


def test_an_image_post_is_one_image_container_with_the_caption(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a photo", image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink
    assert (post.media_type, post.text, [m.url for m in post.media]) == ("IMAGE", "a photo", [media.url("photo.jpg")])


def test_an_image_post_may_have_no_caption(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("", image(media, "photo.png")), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and post.text == ""


def seconds(*values: float) -> list[dt.timedelta]:
    return [dt.timedelta(seconds=v) for v in values]


def waits(results) -> list[dt.timedelta]:
    """When each Wait asked to be called again, from START."""
    return [r.until - START for r in results if isinstance(r, Wait)]


def status_reads(emulator) -> int:
    return len([c for c in emulator.calls if c.method == "GET" and c.query.get("fields") == "status,error_message"])


def test_a_video_is_waited_for_then_published(step, job, clocks, emulator, media):
    first = threads.publish(step(), job("a clip", video(media)))
    assert isinstance(first, Wait)
    [container] = emulator.containers.values()
    assert container.status == "IN_PROGRESS" and first.state["container"]["id"] == container.id
    assert posts(emulator) == []
    # The emulator processes a video in 30 s: read again 1, 3, 7, 15 and 30 s after it was made.
    clocks.to(first.until)
    done, results, _ = publish_to_the_end(step, dataclasses.replace(job("a clip", video(media)), state=first.state),
                                          clocks)
    assert waits([first, *results]) == seconds(1, 3, 7, 15, 30)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and post.media_type == "VIDEO"


def test_a_container_ready_after_3_s_is_published_at_the_check_3_s_after_it_was_made(step, job, clocks, emulator):
    emulator.set_processing_time("TEXT", 3)
    done, results, _ = publish_to_the_end(step, job("a few seconds"), clocks)
    assert done.outcome.published and len(posts(emulator)) == 1
    assert waits(results) == seconds(1, 3) and status_reads(emulator) == 3


def test_a_carousel_is_its_items_then_the_parent(step, job, clocks, emulator, media):
    items = (image(media), video(media), image(media, "photo.png"))
    done, results, _ = publish_to_the_end(step, job("three things", *items), clocks)
    assert isinstance(results[0], Wait)  # the video item is processing
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink
    assert post.media_type == "CAROUSEL_ALBUM" and post.text == "three things"
    assert [m.url for m in post.media] == [item["url"] for item in items]
    parent = emulator.containers[post.container_id]
    assert parent.children == tuple(item["id"] for item in results[0].state["items"])


def test_a_container_not_finished_within_the_window_fails_container_expired(step, job, clocks, emulator, media,
                                                                              settings):
    emulator.force_next_container("IN_PROGRESS", media_type="VIDEO")  # never finishes
    done, results, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)
    assert done.outcome.error_code == "container_expired"
    assert "300 s" in done.outcome.error_message
    assert all(isinstance(r, Wait) for r in results[:-1])
    assert clocks.ours.now == START + dt.timedelta(seconds=settings.of("threads").container_window)
    assert emulator.calls_to("POST", "/threads_publish$") == [] and posts(emulator) == []


def test_the_window_is_the_setting(step, job, clocks, emulator, media, settings):
    emulator.force_next_container("IN_PROGRESS", media_type="VIDEO")
    short = settings.with_platform("threads", container_window=45)
    make = lambda **kw: RecordingStep(step().http, short, clocks.ours, emulator, **kw)
    done, results, _ = publish_to_the_end(make, job("a clip", video(media)), clocks)
    assert done.outcome.error_code == "container_expired"
    assert waits(results) == seconds(1, 3, 7, 15, 30, 45)


def test_a_status_read_failing_is_retried_within_the_window_then_the_container_expired(
        step, job, clocks, emulator, settings):
    emulator.force_next_container("IN_PROGRESS")
    emulator.fail("GET", r"^/v1\.0/\d+$", 503, "busy", times=None)  # every read of the container
    short = settings.with_platform("threads", container_window=5)
    make = lambda **kw: RecordingStep(step().http, short, clocks.ours, emulator, **kw)
    done, results, _ = publish_to_the_end(make, job("unlucky"), clocks)
    [retry] = results[:-1]
    assert isinstance(retry, Retry) and retry.after == retry.deadline == START + dt.timedelta(seconds=5)
    assert done.outcome.error_code == "container_expired" and "within 5 s (" in done.outcome.error_message
    assert clocks.ours.now == START + dt.timedelta(seconds=5)
    assert emulator.calls_to("POST", "/threads_publish$") == [] and posts(emulator) == []


# --- threads, first comments, options ---------------------------------------------------------

THREE = (Part("part two"), Part("part three"))
PUBLISH = ("POST", r"/threads_publish$")


def test_a_thread_is_a_chain_of_replies_in_order_with_the_first_posts_permalink(step, job, clocks, emulator, media):
    its = job("part one", thread=(Part("part two", (image(media),)), Part("part three")))
    done, _, _ = publish_to_the_end(step, its, clocks)
    first, second, third = posts(emulator)
    assert emulator.chain(third.id) == [first, second, third]
    assert [(p.text, p.media_type) for p in (first, second, third)] == [
        ("part one", "TEXT_POST"), ("part two", "IMAGE"), ("part three", "TEXT_POST")]
    assert done.outcome.external_url == first.permalink


def test_the_options_go_on_the_first_post_only(step, job, clocks, emulator):
    publish_to_the_end(step, job("quote me"), clocks)
    [quoted] = posts(emulator)
    options = {"reply_control": "accounts_you_follow", "topic_tag": "Launch", "quote_post_id": quoted.id}
    publish_to_the_end(step, job("with options", thread=(Part("a reply"),), options=options), clocks)
    _, first, reply = posts(emulator)
    assert (first.reply_control, first.topic_tag, first.quote_post_id) == ("accounts_you_follow", "Launch", quoted.id)
    assert (reply.reply_control, reply.topic_tag, reply.quote_post_id) == (None, None, None)


def test_a_quote_of_a_post_threads_cannot_find_fails_option_rejected(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("quoting", options={"quote_post_id": "17"}), clocks)
    assert done.outcome.error_code == "platform_option_rejected" and posts(emulator) == []


def test_a_part_threads_refuses_fails_the_target_naming_the_part_and_what_is_out(step, job, clocks, emulator):
    publish_to_the_end(step, job("part one"), clocks)
    [first] = posts(emulator)
    emulator.fail_graph("POST", r"/threads$", 4279013, "User restricted")
    state = {"thread": [{"id": first.id, "permalink": first.permalink}]}
    done, _, _ = publish_to_the_end(step, job("part one", thread=THREE, state=state), clocks)
    assert done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith(
        f"part 2 of 3 (thread[0]) was not published; already published: {first.permalink}: Threads answered")
    assert posts(emulator) == [first]


def test_replies_need_the_replies_permission(step, job, clocks, emulator):
    token = emulator.issue_token(scopes=["threads_basic", "threads_content_publish"])
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("one", thread=THREE), access_token=token), clocks)
    assert done.outcome.error_code == "platform_auth_expired" and "part 2 of 3" in done.outcome.error_message


def test_a_first_comment_is_a_reply_to_the_first_post_after_the_whole_thread(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("part one", thread=THREE, first_comment="a comment"), clocks)
    first, second, third, comment = posts(emulator)
    assert (comment.text, comment.reply_to_id) == ("a comment", first.id)
    assert emulator.replies_to(first.id) == [second, comment]
    assert done.outcome.external_url == first.permalink and done.outcome.first_comment_error is None


def test_a_first_comment_threads_refuses_leaves_the_target_published_saying_why(step, job, clocks, emulator):
    publish_to_the_end(step, job("the post"), clocks)
    [first] = posts(emulator)
    emulator.fail_graph("POST", r"/threads$", 4279013, "User restricted")
    state = {"thread": [{"id": first.id, "permalink": first.permalink}]}
    done, _, _ = publish_to_the_end(step, job("the post", first_comment="refused", state=state), clocks)
    assert done.outcome.external_url == first.permalink and done.outcome.error_code is None
    assert done.outcome.first_comment_error.startswith("Threads answered HTTP 400")
    assert posts(emulator) == [first]


def test_a_reply_whose_publish_answer_is_lost_is_found_among_the_replies(step, job, clocks, emulator):
    publish_to_the_end(step, job("part one"), clocks)
    [first] = posts(emulator)
    emulator.drop(*PUBLISH)  # part two is published, its answer lost
    state = {"thread": [{"id": first.id, "permalink": first.permalink}]}
    done, _, _ = publish_to_the_end(step, job("part one", thread=THREE, state=state), clocks)
    assert [p.text for p in posts(emulator)] == ["part one", "part two", "part three"]
    assert len(emulator.calls_to(*PUBLISH)) == 3 and done.outcome.external_url == first.permalink
    assert emulator.calls_to("GET", rf"/{USER_ID}/replies$")


@pytest.mark.parametrize("killed_after", range(20))  # every save of the 4 posts: 5 each
def test_a_worker_killed_after_any_save_of_a_thread_and_comment_leaves_each_post_once(
        step, job, clocks, emulator, killed_after):
    its = job("part one", thread=THREE, first_comment="the comment")
    done, _, _ = steps.publish_after_a_death(threads, step, its, clocks, killed_after)
    first, second, third, comment = posts(emulator)
    assert emulator.chain(third.id) == [first, second, third] and comment.reply_to_id == first.id
    assert done.outcome.external_url == first.permalink and done.outcome.first_comment_error is None


# --- never twice -----------------------------------------------------------------------------

def test_state_naming_the_call_is_saved_before_each_call_that_creates(step, job, clocks, emulator, media):
    run = step()
    threads.publish(run, job("two photos", image(media), image(media, "photo.png")))
    creating = [i for i, call in enumerate(emulator.calls) if call.method == "POST"]
    markers = {n: state["creating"] for n, state in zip(run.calls_at_save, run.saved) if state.get("creating")}
    assert [markers.get(i) for i in creating] == ["item:0", "item:1", "container", "publish"]
    # ...and each result right after its call.
    assert run.saved[-2]["post"] == posts(emulator)[0].id and "creating" not in run.saved[-2]
    [out] = run.saved[-1]["thread"]
    assert (out["id"], out["permalink"]) == (posts(emulator)[0].id, posts(emulator)[0].permalink)


TEXT_SAVES = 4  # creating container, container, creating publish, post
CAROUSEL_SAVES = 8  # + creating item and item, twice


@pytest.mark.parametrize("killed_after", range(TEXT_SAVES))
def test_a_worker_killed_after_any_save_of_a_text_post_leaves_one_post(step, job, clocks, emulator, killed_after):
    done, _, _ = steps.publish_after_a_death(threads, step, job("only once"), clocks, killed_after)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink


@pytest.mark.parametrize("killed_after", range(CAROUSEL_SAVES))
def test_a_worker_killed_after_any_save_of_a_carousel_leaves_one_post(step, job, clocks, emulator, media,
                                                                      killed_after):
    items = (image(media), image(media, "photo.png"))
    done, _, _ = steps.publish_after_a_death(threads, step, job("only once", *items), clocks, killed_after)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and len(post.media) == 2


def test_a_publish_whose_answer_is_lost_is_found_on_the_platform_not_sent_again(step, job, clocks, emulator):
    emulator.drop("POST", r"/threads_publish$")  # publishes, then closes the connection
    first = threads.publish(step(), job("maybe posted"))
    assert isinstance(first, Retry) and first.state["creating"] == "publish"
    assert len(posts(emulator)) == 1
    clocks.to(first.after)
    done = threads.publish(step(), dataclasses.replace(job("maybe posted"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink
    assert len(emulator.calls_to("POST", r"/threads_publish$")) == 1
    assert emulator.calls_to("GET", rf"/{USER_ID}/threads$")  # found among the recent posts


def test_a_publish_that_never_arrived_is_sent_after_reading_the_container(step, job, clocks, emulator):
    emulator.drop("POST", r"/threads_publish$", after_effect=False)  # closed before anything happened
    first = threads.publish(step(), job("not posted yet"))
    assert isinstance(first, Retry) and posts(emulator) == []
    clocks.to(first.after)
    done = threads.publish(step(), dataclasses.replace(job("not posted yet"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink
    assert len(emulator.calls_to("POST", r"/threads_publish$")) == 2


def test_the_recovered_post_is_the_one_with_the_posts_text(step, job, clocks, emulator, token):
    emulator.drop("POST", r"/threads_publish$")
    first = threads.publish(step(), job("mine"))
    clocks.advance(5)
    publish_to_the_end(step, job("someone else's, published later"), clocks)  # newer, other text
    done = threads.publish(step(), dataclasses.replace(job("mine"), state=first.state))
    mine = next(p for p in posts(emulator) if p.text == "mine")
    assert done.outcome.external_url == mine.permalink and len(posts(emulator)) == 2


def test_a_recovered_post_is_found_past_the_first_page_of_recent_posts(step, job, clocks, emulator):
    emulator.drop("POST", r"/threads_publish$")
    first = threads.publish(step(), job("mine"))
    for n in range(30):  # more posts since than one page of the account's list holds
        clocks.advance(1)
        publish_to_the_end(step, job(f"published later {n}"), clocks)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("mine"), state=first.state), clocks)
    mine = next(p for p in posts(emulator) if p.text == "mine")
    assert done.outcome.external_url == mine.permalink and len(posts(emulator)) == 31


def test_once_the_container_is_published_nothing_fails_the_target(step, job, clocks, emulator):
    emulator.drop("POST", r"/threads_publish$")
    emulator.fail("GET", rf"/{USER_ID}/threads$", 400, graph_error(100, "Invalid parameter"), times=None)
    done, results, _ = publish_to_the_end(step, job("out there"), clocks)
    assert [type(r) for r in results] == [Retry, Retry, Retry, Done]  # the lost publish, then 3 reads
    assert done.outcome.published and done.outcome.external_url is None
    assert len(posts(emulator)) == 1


def test_a_permalink_that_cannot_be_read_does_not_fail_a_published_target(step, job, clocks, emulator):
    emulator.fail("GET", r"/v1\.0/\d+$", 200, {"status": "FINISHED"})  # the container's status, then
    emulator.fail("GET", r"/v1\.0/\d+$", 400, graph_error(190, "Error validating access token"), times=None)
    done, _, _ = publish_to_the_end(step, job("out there"), clocks)
    assert done.outcome.published and done.outcome.external_url is None
    assert len(posts(emulator)) == 1 and len(emulator.calls_to("POST", r"/threads_publish$")) == 1


# --- answers that break the Graph contract (fanout/platforms/contract.py) ----------------------

def test_a_publish_answered_with_a_body_that_is_not_json_is_read_back_at_once_and_never_sent_again(
        step, job, clocks, emulator):
    emulator.garble(*PUBLISH, 200, "<html>ok</html>")  # Threads published it
    done, results, _ = publish_to_the_end(step, job("maybe published"), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink and not any(isinstance(r, Retry) for r in results)
    assert len(emulator.calls_to(*PUBLISH)) == 1


def test_a_publish_answered_without_an_id_that_did_not_publish_fails_at_once_saying_nothing_is_out(
        step, job, clocks, emulator):
    emulator.fail(*PUBLISH, 200, {"success": True})  # answered, not published
    done, results, _ = publish_to_the_end(step, job("not published"), clocks)
    assert done.outcome.error_code == "unknown_platform_error" and not any(isinstance(r, Retry) for r in results)
    assert done.outcome.error_message.startswith("Threads answered the publish without its id; ")
    assert done.outcome.error_message.endswith("its container is FINISHED, so nothing was published")
    assert len(emulator.calls_to(*PUBLISH)) == 1 and posts(emulator) == []


def test_a_container_status_meta_does_not_list_fails_at_once_before_any_publish(step, job, clocks, emulator, media):
    emulator.garble("GET", r"^/v1\.0/[0-9]+$", 200, {"id": "1", "status": "QUEUED"}, times=None)
    done, results, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)
    assert done.outcome.error_code == "unknown_platform_error" and len(results) == 1
    assert "the container's status with status 'QUEUED', not one of IN_PROGRESS" in done.outcome.error_message
    assert emulator.calls_to(*PUBLISH) == []


# --- the daily cap ---------------------------------------------------------------------------

def test_an_account_at_250_posts_in_24_hours_fails_without_a_call(step, job, emulator):
    done = threads.publish(step(), job("one too many", published_last_24h=250))
    assert done.outcome.error_code == "platform_rate_limited" and "250" in done.outcome.error_message
    assert emulator.calls == []


def test_the_publishing_limit_threads_reports_is_read_before_publishing(step, job, clocks, emulator):
    emulator.publish_quota = 1
    publish_to_the_end(step, job("the first"), clocks)
    done = threads.publish(step(), job("the second"))
    assert done.outcome.error_code == "platform_rate_limited" and "1 posts in 24 hours" in done.outcome.error_message
    assert len(emulator.calls_to("POST", r"/threads_publish$")) == 1


# --- the mapping table, row by row -----------------------------------------------------------

CREATE = ("POST", rf"/{USER_ID}/threads$")
PUBLISH = ("POST", r"/threads_publish$")

# (row of MAPPING, call that answers, HTTP status, body) -> the target's code.
GRAPH_ROWS = [
    ("code 190, expired token", CREATE, 400,
     graph_error(190, "Error validating access token: Session has expired on Sunday.", 463), "platform_auth_expired"),
    ("message only: Error validating access token", CREATE, 400,
     {"error": {"message": "Error validating access token: The user is not logged in.", "type": "OAuthException"}},
     "platform_auth_expired"),
    ("code 10, permission", CREATE, 400, graph_error(10, "(#10) Application does not have permission"),
     "platform_auth_expired"),
    ("code 200, permission", PUBLISH, 400, graph_error(200, "(#200) Permissions error"), "platform_auth_expired"),
    ("code 299", CREATE, 400, graph_error(299), "platform_auth_expired"),
    ("code 4, app rate limit", CREATE, 400, graph_error(4, "(#4) Application request limit reached"),
     "platform_rate_limited"),
    ("code 17, user rate limit", CREATE, 400, graph_error(17, "(#17) User request limit reached"),
     "platform_rate_limited"),
    ("code 32, page rate limit", CREATE, 400, graph_error(32), "platform_rate_limited"),
    ("code 613, calls per hour", PUBLISH, 400, graph_error(613), "platform_rate_limited"),
    ("code 9 / 2207042, daily quota", PUBLISH, 400,
     graph_error(9, "You reached maximum number of posts", 2207042), "platform_rate_limited"),
    ("HTTP 429 without a body", CREATE, 429, "Too Many Requests", "platform_rate_limited"),
    ("subcode 2207052, media not fetched", CREATE, 400,
     graph_error(9004, "The media could not be fetched from this uri", 2207052), "media_download_failed"),
    ("message: media could not be fetched from this URI", CREATE, 400,
     graph_error(1, "The media could not be fetched from this URI: https://x"), "media_download_failed"),
    ("code 100: text must be at most 500 characters", CREATE, 400,
     graph_error(100, "Param text must be at most 500 characters long."), "caption_too_long"),
    ("THREADS_API__LINK_LIMIT_EXCEEDED", CREATE, 400,
     graph_error(100, "THREADS_API__LINK_LIMIT_EXCEEDED"), "caption_too_long"),
    ("code 4 / 2207051, restricted activity (not a rate limit)", PUBLISH, 400,
     graph_error(4, "We restrict certain activity to protect our community.", 2207051), "platform_rejected_media"),
    ("4279013, user restricted (not a permission error)", CREATE, 400,
     graph_error(10, "User restricted", 4279013), "unknown_platform_error"),
    ("anything else: code 100 with another message", CREATE, 400,
     graph_error(100, "Invalid parameter"), "unknown_platform_error"),
    ("anything else: 400 that is not Graph's envelope", PUBLISH, 400, "<html>Bad Request</html>",
     "unknown_platform_error"),
]


@pytest.mark.parametrize("row, call, status, body, code", GRAPH_ROWS, ids=[r[0] for r in GRAPH_ROWS])
def test_each_graph_error_ends_in_its_target_code(step, job, emulator, row, call, status, body, code):
    emulator.fail(*call, status, body)
    done = threads.publish(step(), job("hello"))
    assert isinstance(done, Done) and done.outcome.error_code == code
    assert posts(emulator) == []


CONTAINER_ROWS = [
    ("EXPIRED", None, "container_expired"),
    ("ERROR", "FAILED_DOWNLOADING_VIDEO", "media_download_failed"),
    *[("ERROR", m, "platform_rejected_media") for m in (
        "FAILED_PROCESSING_AUDIO", "FAILED_PROCESSING_VIDEO", "INVALID_ASPEC_RATIO", "INVALID_BIT_RATE",
        "INVALID_DURATION", "INVALID_FRAME_RATE", "INVALID_AUDIO_CHANNELS", "INVALID_AUDIO_CHANNEL_LAYOUT")],
    ("ERROR", "UNKNOWN", "unknown_platform_error"),
]


@pytest.mark.parametrize("status, error_message, code", CONTAINER_ROWS, ids=[r[1] or r[0] for r in CONTAINER_ROWS])
def test_each_container_outcome_ends_in_its_target_code(step, job, clocks, emulator, media, status, error_message,
                                                        code):
    emulator.force_next_container(status, error_message, media_type="VIDEO")
    done, _, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)
    assert done.outcome.error_code == code
    if error_message:
        assert error_message in done.outcome.error_message
    assert posts(emulator) == []


def test_a_video_threads_cannot_download_fails_media_download_failed(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, "missing.mp4")), clocks)
    assert done.outcome.error_code == "media_download_failed"


def test_an_image_threads_cannot_download_fails_media_download_failed(step, job, emulator, media):
    done = threads.publish(step(), job("a photo", image(media, "missing.jpg")))
    assert done.outcome.error_code == "media_download_failed"


def test_text_over_500_as_threads_counts_fails_caption_too_long(step, job, emulator):
    done = threads.publish(step(), job("😀" * 126))  # 504: an emoji counts its UTF-8 bytes
    assert done.outcome.error_code == "caption_too_long" and "500" in done.outcome.error_message


def test_more_than_five_links_fails_caption_too_long(step, job, emulator):
    links = " ".join(f"https://site{i}.example.com" for i in range(6))
    done = threads.publish(step(), job(links))
    assert done.outcome.error_code == "caption_too_long"


def test_a_revoked_token_fails_platform_auth_expired(step, job, emulator):
    emulator.revoke_tokens(USER_ID)
    done = threads.publish(step(), job("hello"))
    assert done.outcome.error_code == "platform_auth_expired"


def test_a_token_without_the_publishing_scope_fails_platform_auth_expired(step, job, emulator):
    limited = emulator.issue_token(USER_ID, scopes=["threads_basic"])
    done = threads.publish(step(), dataclasses.replace(job("hello"), access_token=limited))
    assert done.outcome.error_code == "platform_auth_expired"


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, token):
    emulator.fail(*CREATE, 400, {"error": {"message": f"odd failure for access_token={token}", "code": 12345,
                                           "debug": token}})
    done = threads.publish(step(), job("hello"))
    message = done.outcome.error_message
    assert done.outcome.error_code == "unknown_platform_error"
    assert "HTTP 400" in message and "odd failure" in message and "12345" in message
    assert token not in message and "127.0.0.1" not in message


def test_the_raw_answer_is_clipped(step, job, emulator):
    emulator.fail(*CREATE, 400, "x" * 5000)
    done = threads.publish(step(), job("hello"))
    assert done.outcome.error_code == "unknown_platform_error" and len(done.outcome.error_message) < 600


# --- transient failures ----------------------------------------------------------------------

def test_a_5xx_before_anything_was_created_is_retried_and_then_publishes(step, job, clocks, emulator):
    emulator.fail(*CREATE, 503, graph_error(2, "Service temporarily unavailable"))
    first = threads.publish(step(), job("hello"))
    assert isinstance(first, Retry) and "container" not in first.state
    assert "HTTP 503" in first.reason and "Service temporarily unavailable" in first.reason
    clocks.to(first.after)
    done = threads.publish(step(), dataclasses.replace(job("hello"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == post.permalink


def test_a_platform_that_cannot_be_reached_is_retried(settings, job, clocks, emulator):
    nowhere = PlatformHttp(parse_hosts(f"graph.threads.net=http://127.0.0.1:{free_port()}"), timeout=(2.0, 5.0))
    result = threads.publish(RecordingStep(nowhere, settings, clocks.ours, emulator), job("hello"))
    assert isinstance(result, Retry) and "graph.threads.net" in result.reason
    assert result.after > clocks.ours.now


def test_a_failed_status_read_is_retried_with_the_container_kept(step, job, clocks, emulator, media):
    emulator.fail("GET", r"/\d+$", 500, graph_error(1))
    first = threads.publish(step(), job("a clip", video(media)))
    assert isinstance(first, Retry) and first.state["container"]["id"]
    clocks.advance(30)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("a clip", video(media)), state=first.state), clocks)
    assert done.outcome.published and len(emulator.calls_to("POST", rf"/{USER_ID}/threads$")) == 1


# --- tokens ----------------------------------------------------------------------------------

def test_a_token_a_day_old_is_refreshed_for_60_days(http, app, clocks, emulator, token):
    clocks.advance(25 * 3600)
    grant = threads.refresh(http, app, token, None, now=clocks.ours.now)
    assert grant.access_token != token and grant.refresh_token is None
    assert grant.expires_at == clocks.ours.now + dt.timedelta(seconds=60 * 86400)
    assert threads.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(days=7)


def test_a_refused_refresh_raises_auth_failed_without_the_token(http, app, clocks, emulator, token):
    clocks.advance(25 * 3600)
    emulator.fail_refresh()
    with pytest.raises(AuthFailed) as refused:
        threads.refresh(http, app, token, None, now=clocks.ours.now)
    assert "Error validating access token" in refused.value.reason and token not in refused.value.reason


def test_the_authorize_url_asks_for_the_three_scopes_with_the_state(app):
    url = threads.authorize(app, "https://c.example.com/connect/threads/callback", "S1").url
    assert url == ("https://threads.net/oauth/authorize?client_id=app-id"
                   "&redirect_uri=https%3A%2F%2Fc.example.com%2Fconnect%2Fthreads%2Fcallback"
                   "&scope=threads_basic,threads_content_publish,threads_manage_replies&response_type=code&state=S1")
