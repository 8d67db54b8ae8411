"""The X adapter (fanout/platforms/x/adapter.py) against the X emulator, over real HTTP on loopback:
text, image, GIF and video posts step by step, the caps counted before any call, the
mapping table of docs/platforms.md#the-x-adapter row by row, never twice, and OAuth 2.0
with PKCE and rotating refresh tokens.
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.platforms.x import adapter as x
from fanout.platforms.base import AuthFailed, ClientRefused, Job, Part, Retry, Wait

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, app, clocks, http, image, outbound, step, video,
)
from ...emulators.clock import EmulatorClock
from ...emulators.media.server import sample_media_server
from ...emulators.x import XEmulator
from ...emulators.x.media import DEFAULT_PROCESSING
from ...media_files import gif, mp4

START = dt.datetime(2026, 11, 22, 10, 0)
USER_ID, USERNAME = "1600000000000000001", "emu_x"
REDIRECT_URI = "https://c.example.com/connect/x/callback"
TWEETS = ("POST", r"/2/tweets$")


@pytest.fixture(scope="module")
def x_server():
    with XEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(x_server):
    x_server.reset()
    x_server.set_clock(START)
    x_server.consent_as(USER_ID)
    for category, seconds in DEFAULT_PROCESSING.items():  # reset() keeps them
        x_server.set_processing_time(category, seconds)
    yield x_server
    assert not x_server.errors, x_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/moving.gif", gif(frames=3), "image/gif")
        server.put("/long.mp4", mp4(seconds=20, padding=2_500_000), "video/mp4")  # three chunks
        server.put("/too-long.mp4", mp4(seconds=200), "video/mp4")  # X takes 140 s at most
        yield server


@pytest.fixture
def tokens(emulator) -> tuple[str, str]:
    return emulator.issue_token(USER_ID)


@pytest.fixture
def job(tokens):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="x", user_id=USER_ID, username=USERNAME, access_token=tokens[0],
                   caption=caption, media=tuple(items), **{"state": {}, **kwargs})
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(x, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts.get(USER_ID, [])


def problem(status: int, title: str, detail: str, type: str = "about:blank", **extra) -> dict:
    return {"title": title, "detail": detail, "type": type, "status": status, **extra}


# --- publishing ----------------------------------------------------------------------------

def test_a_text_post_is_published_with_its_permalink(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("hello from fanout"), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://x.com/{USERNAME}/status/{post.id}"
    assert emulator.calls_to(*TWEETS)[0].body == {"text": "hello from fanout"}


def test_an_image_is_uploaded_in_one_request_then_posted_with_its_media_id(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a photo", image(media)), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and len(post.media_ids) == 1
    assert len(emulator.calls_to("POST", r"/2/media/upload$")) == 1
    assert emulator.calls_to("POST", r"/initialize$") == []
    assert emulator.calls_to(*TWEETS)[0].body["media"] == {"media_ids": list(post.media_ids)}


def test_an_images_alt_text_goes_to_the_media_metadata_before_the_post(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a photo", {**image(media), "alt_text": "A red door"}), clocks)
    [post] = posts(emulator)
    assert emulator.media[post.media_ids[0]].alt_text == "A red door"
    [metadata] = emulator.calls_to("POST", r"/2/media/metadata$")
    assert metadata.body == {"id": post.media_ids[0], "metadata": {"alt_text": {"text": "A red door"}}}


def test_an_image_without_alt_text_sends_no_metadata(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a photo", image(media)), clocks)
    assert emulator.calls_to("POST", r"/2/media/metadata$") == []


def test_four_images_go_in_one_post(step, job, clocks, emulator, media):
    items = [image(media), image(media, "photo.png"), image(media), image(media, "photo.png")]
    publish_to_the_end(step, job("four", *items), clocks)
    [post] = posts(emulator)
    assert len(post.media_ids) == 4


def test_a_video_is_uploaded_in_chunks_waited_for_then_posted(step, job, clocks, emulator, media):
    first = x.publish(step(), job("a clip", video(media, "long.mp4")))
    assert isinstance(first, Wait) and first.until > START  # X is processing it
    appends = emulator.calls_to("POST", r"/append$")
    assert [c.body["segment_index"] for c in appends] == ["0", "1", "2"]
    assert len(emulator.calls_to("POST", r"/finalize$")) == 1 and posts(emulator) == []
    done, results, _ = publish_to_the_end(step, dataclasses.replace(job("a clip", video(media, "long.mp4")),
                                                                    state=first.state), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and len(post.media_ids) == 1
    assert emulator.calls_to("GET", r"/2/media/upload$")  # STATUS read by scheduled steps


def waits(results) -> list[dt.timedelta]:
    """When each Wait asked to be called again, from START."""
    return [r.until - START for r in results if isinstance(r, Wait)]


def seconds(*values: float) -> list[dt.timedelta]:
    return [dt.timedelta(seconds=v) for v in values]


def test_processing_media_is_read_again_when_x_says_but_at_least_once_a_minute(step, job, clocks, emulator, media):
    emulator.set_processing_time("tweet_video", 200)  # X says how long is left: 199 s after the first second
    done, results, _ = publish_to_the_end(step, job("a slow clip", video(media, "long.mp4")), clocks)
    assert done.outcome.published
    assert waits(results) == seconds(1, 61, 121, 181, 200)


def test_processing_media_x_gives_no_time_for_is_read_on_the_growing_schedule(step, job, clocks, emulator, media):
    emulator.fail("GET", r"/2/media/upload$", 200, {"data": {"processing_info": {"state": "in_progress"}}}, times=3)
    done, results, _ = publish_to_the_end(step, job("a clip", video(media, "long.mp4")), clocks)
    assert done.outcome.published
    # Finalize said 1 s; then 3, 7 and 15 s after the upload (done in 10 s: read at 15).
    assert waits(results) == seconds(1, 3, 7, 15)


def test_an_animated_gif_goes_by_the_chunked_flow_as_tweet_gif(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("moving", image(media, "moving.gif")), clocks)
    [initialize] = emulator.calls_to("POST", r"/initialize$")
    assert initialize.body["media_category"] == "tweet_gif" and len(posts(emulator)) == 1


def test_media_x_fails_to_process_fails_platform_rejected_media(step, job, clocks, emulator, media):
    emulator.force_next_media("failed", {"code": 1, "name": "InvalidMedia", "message": "Unsupported video format"})
    done, _, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)
    assert done.outcome.error_code == "platform_rejected_media"
    assert "Unsupported video format" in done.outcome.error_message and posts(emulator) == []


def test_a_video_over_xs_duration_fails_before_any_call(step, job, emulator, media):
    done = x.publish(step(), job("too long", video(media, "too-long.mp4")))
    assert done.outcome.error_code == "unsupported_media_for_platform" and emulator.calls == []


def test_media_that_cannot_be_fetched_fails_media_download_failed(step, job, emulator, media):
    done = x.publish(step(), job("gone", image(media, "missing.jpg")))
    assert done.outcome.error_code == "media_download_failed" and emulator.calls == []


# --- the caps, counted before any call -------------------------------------------------------

def test_100_posts_in_15_minutes_fail_the_next_without_a_call(step, job, emulator):
    at_cap = lambda since, workspace: 0 if workspace else 100
    done = x.publish(step(recent=at_cap), job("one too many"))
    assert done.outcome.error_code == "platform_rate_limited" and "15 minutes" in done.outcome.error_message
    assert emulator.calls == []


def test_10000_posts_a_day_across_the_workspace_fail_the_next_without_a_call(step, job, emulator):
    at_cap = lambda since, workspace: 10_000 if workspace else 3
    done = x.publish(step(recent=at_cap), job("one too many"))
    assert done.outcome.error_code == "platform_rate_limited" and "24 hours" in done.outcome.error_message
    assert emulator.calls == []


def test_the_windows_asked_are_15_minutes_and_24_hours(step, job, clocks, emulator):
    asked = []
    publish_to_the_end(step, job("counted"), clocks, recent=lambda since, ws: asked.append((since, ws)) or 0)
    assert (START - dt.timedelta(minutes=15), False) in asked and (START - dt.timedelta(hours=24), True) in asked


def test_a_429_fails_rate_limited_saying_when_the_limit_resets(step, job, emulator):
    reset = int(dt.datetime(2026, 11, 22, 10, 15, tzinfo=dt.UTC).timestamp())
    emulator.fail(*TWEETS, 429, problem(429, "Too Many Requests", "Too Many Requests"),
                  headers={"x-rate-limit-remaining": "0", "x-rate-limit-reset": str(reset)})
    done = x.publish(step(), job("limited"))
    assert done.outcome.error_code == "platform_rate_limited" and "2026-11-22T10:15:00Z" in done.outcome.error_message


# --- the mapping table, row by row -----------------------------------------------------------

UPLOAD = ("POST", r"/2/media/upload$")

# (row, call that answers, HTTP status, body, needs an image) -> the target's code.
X_ROWS = [
    ("HTTP 401, expired or revoked token", TWEETS, 401, problem(401, "Unauthorized", "Unauthorized"), False,
     "platform_auth_expired"),
    ("403 unsupported-authentication", TWEETS, 403,
     problem(403, "Unsupported Authentication", "Authenticating with OAuth 2.0 Application-Only is forbidden",
             "https://api.twitter.com/2/problems/unsupported-authentication"), False, "platform_auth_expired"),
    ("HTTP 429, rate limit", TWEETS, 429, problem(429, "Too Many Requests", "Too Many Requests"), False,
     "platform_rate_limited"),
    ("429 usage-capped", TWEETS, 429, problem(429, "Usage Capped", "Usage cap exceeded: Monthly product cap",
                                              "https://api.twitter.com/2/problems/usage-capped",
                                              period="Monthly", scope="Product"), False, "platform_rate_limited"),
    ("legacy 429 body, code 88", TWEETS, 429, {"errors": [{"code": 88, "message": "Rate limit exceeded"}]}, False,
     "platform_rate_limited"),
    ("400 text too long", TWEETS, 400,
     {"errors": [{"parameters": {"text": ["..."]}, "message": "Your Tweet text is too long."}],
      "title": "Invalid Request", "detail": "One or more parameters to your request was invalid.",
      "type": "https://api.twitter.com/2/problems/invalid-request"}, False, "caption_too_long"),
    ("400 maximum of 4 items", TWEETS, 400,
     problem(400, "Invalid Request", "Your media IDs are invalid: maximum of 4 items.",
             "https://api.twitter.com/2/problems/invalid-request"), True, "platform_rejected_media"),
    ("400 video longer than allowed", TWEETS, 400,
     problem(400, "Invalid Request", "This user is not allowed to post a video longer than 2 minutes",
             "https://api.twitter.com/2/problems/invalid-request"), True, "platform_rejected_media"),
    ("upload refused 400 (size or type)", UPLOAD, 400,
     problem(400, "Invalid Request", "File size exceeds 5242880 bytes.",
             "https://api.twitter.com/2/problems/invalid-request"), True, "platform_rejected_media"),
    ("400 media id expired", TWEETS, 400,
     problem(400, "Invalid Request", "Your media id has expired; upload the media again.",
             "https://api.twitter.com/2/problems/invalid-request"), True, "container_expired"),
    ("403 duplicate content", TWEETS, 403,
     problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content."), False,
     "unknown_platform_error"),
    ("403 not permitted", TWEETS, 403, problem(403, "Forbidden", "You are not permitted to perform this action."),
     False, "unknown_platform_error"),
    ("403 client-forbidden", TWEETS, 403,
     problem(403, "Client Forbidden", "This request must be made using an approved developer account",
             "https://api.twitter.com/2/problems/client-forbidden", reason="client-not-enrolled"), False,
     "unknown_platform_error"),
    ("anything else: 400 that is not problem+json", TWEETS, 400, "<html>Bad Request</html>", False,
     "unknown_platform_error"),
]


@pytest.mark.parametrize("row, call, status, body, with_image, code", X_ROWS, ids=[r[0] for r in X_ROWS])
def test_each_x_error_ends_in_its_target_code(step, job, clocks, emulator, media, row, call, status, body,
                                              with_image, code):
    emulator.fail(*call, status, body)
    items = (image(media),) if with_image else ()
    done, _, _ = publish_to_the_end(step, job("hello", *items), clocks)
    assert done.outcome.error_code == code
    if code in ("unknown_platform_error", "platform_rejected_media") and isinstance(body, dict) and body.get("detail"):
        assert body["detail"] in done.outcome.error_message  # the platform's own words
    assert posts(emulator) == []


def test_a_5xx_is_retried_and_then_posts_once(step, job, clocks, emulator):
    emulator.fail(*TWEETS, 503, problem(503, "Service Unavailable", "Service Unavailable"))
    done, results, _ = publish_to_the_end(step, job("hello"), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(posts(emulator)) == 1


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, tokens):
    emulator.fail(*TWEETS, 400, {"title": "Odd", "detail": f"odd failure {tokens[0]}", "type": "about:blank",
                                 "status": 400, "weird": 12345})
    done = x.publish(step(), job("hello"))
    message = done.outcome.error_message
    assert done.outcome.error_code == "unknown_platform_error" and "odd failure" in message
    assert tokens[0] not in message


# --- threads, first comments, options ---------------------------------------------------------

THREE = (Part("part two"), Part("part three"))


def test_a_thread_is_a_chain_of_replies_in_order_with_the_first_posts_permalink(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("part one", thread=THREE), clocks)
    first, second, third = posts(emulator)
    assert [p.text for p in (first, second, third)] == ["part one", "part two", "part three"]
    assert emulator.chain(third.id) == [first, second, third]
    assert (first.in_reply_to, second.in_reply_to, third.in_reply_to) == (None, first.id, second.id)
    assert done.outcome.external_url == f"https://x.com/{USERNAME}/status/{first.id}"


def test_a_thread_part_with_media_uploads_it_for_that_part(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("one", thread=(Part("two", (image(media),)),)), clocks)
    first, second = posts(emulator)
    assert first.media_ids == () and len(second.media_ids) == 1


def test_the_options_go_on_the_first_post_only(step, job, clocks, emulator):
    publish_to_the_end(step, job("quote me"), clocks)
    quoted_id = posts(emulator)[0].id
    options = {"reply_settings": "following", "quote_tweet_id": quoted_id}
    publish_to_the_end(step, job("with options", thread=(Part("a reply"),), options=options), clocks)
    _, first, reply = posts(emulator)
    assert (first.reply_settings, first.quote_tweet_id) == ("following", quoted_id)
    assert (reply.reply_settings, reply.quote_tweet_id) == (None, None)


def test_a_quote_of_a_post_x_cannot_find_fails_option_rejected(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("quoting", options={"quote_tweet_id": "1"}), clocks)
    assert done.outcome.error_code == "platform_option_rejected" and posts(emulator) == []


def test_a_part_x_refuses_fails_the_target_naming_the_part_and_what_is_out(step, job, clocks, emulator):
    publish_to_the_end(step, job("part one"), clocks)
    [first] = posts(emulator)
    emulator.fail_problem("POST", r"/2/tweets$", 403, "Forbidden", "You are not permitted to perform this action.")
    done, _, _ = publish_to_the_end(step, job("part one", thread=THREE, state={"thread": [first.id]}), clocks)
    link = f"https://x.com/{USERNAME}/status/{first.id}"
    assert done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith(
        f"part 2 of 3 (thread[0]) was not posted; already published: {link}: X answered HTTP 403")
    assert posts(emulator) == [first]


def test_a_first_comment_replies_to_the_first_post_after_the_whole_thread(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("part one", thread=THREE, first_comment="a comment"), clocks)
    first, second, third, comment = posts(emulator)
    assert (comment.text, comment.in_reply_to) == ("a comment", first.id)
    assert done.outcome.external_url.endswith(first.id) and done.outcome.first_comment_error is None


def test_a_first_comment_x_refuses_leaves_the_target_published_saying_why(step, job, clocks, emulator):
    run = step()
    first = x.publish(run, job("the post"))  # published alone first
    emulator.fail_problem("POST", r"/2/tweets$", 403, "Forbidden", "You are not permitted to perform this action.")
    done = x.publish(step(), dataclasses.replace(job("the post", first_comment="refused"), state=run.saved[-1]))
    [post] = posts(emulator)
    assert first.outcome.published and done.outcome.external_url.endswith(post.id)
    assert done.outcome.error_code is None and done.outcome.first_comment_error.startswith("X answered HTTP 403")


def test_a_first_comment_met_by_a_5xx_is_retried_and_would_settle_published(step, job, clocks, emulator):
    run = step()
    x.publish(run, job("the post"))
    emulator.fail_problem("POST", r"/2/tweets$", 503, "Service Unavailable", "Service Unavailable")
    retry = x.publish(step(), dataclasses.replace(job("the post", first_comment="later"), state=run.saved[-1]))
    assert isinstance(retry, Retry) and retry.settles.external_url.endswith(posts(emulator)[0].id)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("the post", first_comment="later"),
                                                              state=retry.state), clocks)
    assert [p.text for p in posts(emulator)] == ["the post", "later"] and done.outcome.first_comment_error is None


def test_a_later_parts_retry_names_the_part_for_when_the_engine_gives_up(step, job, clocks, emulator):
    emulator.fail_problem("POST", r"/2/tweets$", 503, "Service Unavailable", "Service Unavailable", times=None)
    retry = x.publish(step(), job("part one", thread=THREE, state={"thread": ["1870000000000000099"]}))
    assert isinstance(retry, Retry) and retry.context.startswith("part 2 of 3 (thread[0]) was not posted")


def test_a_lost_reply_is_found_among_the_recent_posts_replying_to_its_parent(step, job, clocks, emulator):
    publish_to_the_end(step, job("part one"), clocks)
    [first] = posts(emulator)
    emulator.drop(*TWEETS)  # part two is posted, its answer lost
    its = job("part one", thread=THREE)
    retry = x.publish(step(), dataclasses.replace(its, state={"thread": [first.id]}))
    assert isinstance(retry, Retry) and retry.state["creating"] == "tweet"
    clocks.to(retry.after)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(its, state=retry.state), clocks)
    assert [p.text for p in posts(emulator)] == ["part one", "part two", "part three"]
    assert len(emulator.calls_to(*TWEETS)) == 3 and done.outcome.published


@pytest.mark.parametrize("killed_after", range(8))  # every save of the 4 posts: 2 each
def test_a_worker_killed_after_any_save_of_a_thread_and_comment_leaves_each_post_once(
        step, job, clocks, emulator, killed_after):
    its = job("part one", thread=THREE, first_comment="the comment")
    done, _, _ = steps.publish_after_a_death(x, step, its, clocks, killed_after)
    first, second, third, comment = posts(emulator)
    assert emulator.chain(third.id) == [first, second, third] and comment.in_reply_to == first.id
    assert done.outcome.published and done.outcome.first_comment_error is None


def test_a_state_saved_before_threads_existed_still_ends_published(step, job, clocks, emulator):
    publish_to_the_end(step, job("old"), clocks)
    [post] = posts(emulator)
    done = x.publish(step(), job("old", state={"post": post.id}))
    assert done.outcome.external_url.endswith(post.id) and len(posts(emulator)) == 1


# --- answers that break X's contract (fanout/platforms/contract.py) ----------------------------

LIST = ("GET", r"/2/users/[0-9]+/tweets$")


def test_a_post_answered_with_a_body_that_is_not_json_is_found_at_once_and_never_sent_again(
        step, job, clocks, emulator):
    emulator.garble(*TWEETS, 201, "<html>Created</html>")  # X posted it
    done, results, _ = publish_to_the_end(step, job("maybe posted"), clocks)
    [post] = posts(emulator)
    assert results == [done] and done.outcome.external_url == f"https://x.com/{USERNAME}/status/{post.id}"
    assert len(emulator.calls_to(*TWEETS)) == 1


def test_a_post_answered_without_its_id_and_not_listed_fails_at_once_saying_it_may_be_out(
        step, job, clocks, emulator):
    emulator.garble(*TWEETS, 201, {"data": {"text": "maybe posted"}})
    emulator.garble(*LIST, 200, {"meta": {"result_count": 0}})  # not listed yet
    done, results, _ = publish_to_the_end(step, job("maybe posted"), clocks)
    assert results == [done] and done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith("X answered the post without its id; ")
    assert "X may have published it all the same" in done.outcome.error_message
    assert len(emulator.calls_to(*TWEETS)) == 1 and len(posts(emulator)) == 1


def test_a_processing_state_x_does_not_list_fails_at_once(step, job, clocks, emulator, media):
    emulator.garble("GET", r"/2/media/upload$", 200, {"data": {"id": "1", "processing_info": {"state": "paused"}}})
    done, results, _ = publish_to_the_end(step, job("a clip", video(media)), clocks)
    assert done.outcome.error_code == "unknown_platform_error" and not emulator.calls_to(*TWEETS)
    assert "processing_info.state 'paused', not one of pending, in_progress, failed, succeeded" in \
        done.outcome.error_message


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_found_among_the_recent_posts_not_sent_again(step, job, clocks, emulator):
    emulator.drop(*TWEETS)  # posts, then closes the connection
    first = x.publish(step(), job("maybe posted https://example.com/a"))
    assert isinstance(first, Retry) and first.state["creating"] == "tweet" and len(posts(emulator)) == 1
    clocks.to(first.after)
    done = x.publish(step(), dataclasses.replace(job("maybe posted https://example.com/a"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://x.com/{USERNAME}/status/{post.id}"
    assert len(emulator.calls_to(*TWEETS)) == 1 and emulator.calls_to("GET", rf"/2/users/{USER_ID}/tweets$")


def test_a_post_whose_answer_is_lost_is_found_past_the_first_page_of_recent_posts(step, job, clocks, emulator):
    emulator.drop(*TWEETS)
    first = x.publish(step(), job("mine"))
    for n in range(30):  # more posts since than one page of the account's list holds
        clocks.advance(1)
        publish_to_the_end(step, job(f"published later {n}"), clocks)
    done, _, _ = publish_to_the_end(step, dataclasses.replace(job("mine"), state=first.state), clocks)
    mine = next(p for p in posts(emulator) if p.text == "mine")
    assert done.outcome.external_url == f"https://x.com/{USERNAME}/status/{mine.id}"
    assert len(posts(emulator)) == 31 and len(emulator.calls_to(*TWEETS)) == 31


def test_a_post_that_never_arrived_is_sent_again_after_reading_the_recent_posts(step, job, clocks, emulator):
    emulator.drop(*TWEETS, after_effect=False)
    first = x.publish(step(), job("not posted yet"))
    clocks.to(first.after)
    done = x.publish(step(), dataclasses.replace(job("not posted yet"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url.endswith(post.id) and len(emulator.calls_to(*TWEETS)) == 2


def test_a_post_x_does_not_list_yet_is_not_posted_twice(step, job, clocks, emulator):
    """The read-back misses it; sent again, X refuses the duplicate: one post, published."""
    emulator.drop(*TWEETS)
    emulator.fail("GET", rf"/2/users/{USER_ID}/tweets$", 200, {"meta": {"result_count": 0}}, times=None)
    done, _, _ = publish_to_the_end(step, job("out there"), clocks)
    assert done.outcome.published and len(posts(emulator)) == 1


@pytest.mark.parametrize("killed_after", range(4))  # media, media, creating tweet, post
def test_a_worker_killed_after_any_save_of_an_image_post_leaves_one_post(step, job, clocks, emulator, media,
                                                                         killed_after):
    done, _, _ = steps.publish_after_a_death(x, step, job("only once", image(media)), clocks, killed_after)
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://x.com/{USERNAME}/status/{post.id}"


def test_state_naming_the_post_is_saved_before_it_is_sent(step, job, clocks, emulator):
    run = step()
    x.publish(run, job("marked"))
    [at] = [i for i, call in enumerate(emulator.calls) if call.method == "POST"]
    markers = {n: state.get("creating") for n, state in zip(run.calls_at_save, run.saved)}
    assert markers[at] == "tweet" and run.saved[-1]["thread"] == [posts(emulator)[0].id]


def test_same_text_sees_through_links_entities_and_a_trailing_media_link():
    assert x.same_text("a & b https://example.com/x", "a &amp; b https://t.co/abcdefghij")
    assert x.same_text("photo", "photo https://t.co/abcdefghij")
    assert not x.same_text("photo", "another photo")


# --- OAuth 2.0 with PKCE ---------------------------------------------------------------------

def authorized(http, app, emulator):
    """The consent as the browser goes through it: (code, verifier, query sent to X)."""
    authorization = x.authorize(app, REDIRECT_URI, "S1", randbytes=lambda n: b"\x01" * n)
    sent = {k: v[0] for k, v in parse_qs(urlsplit(authorization.url).query).items()}
    back = requests.get(http.url(authorization.url), allow_redirects=False, timeout=5).headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(back).query).items()}
    assert query["state"] == "S1"
    return query["code"], authorization.verifier, sent


def test_the_authorize_url_carries_an_s256_challenge_of_a_verifier_kept_on_the_server(http, app, emulator):
    _, verifier, sent = authorized(http, app, emulator)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert sent["code_challenge"] == challenge and sent["code_challenge_method"] == "S256"
    assert verifier not in str(sent)  # the browser never sees it
    assert sent["scope"] == "tweet.read tweet.write users.read media.write offline.access"


def test_the_exchange_ends_with_both_tokens_and_the_profile(http, app, clocks, emulator):
    code, verifier, _ = authorized(http, app, emulator)
    grant = x.exchange(http, app, code, REDIRECT_URI, verifier, now=clocks.ours.now)
    assert (grant.user_id, grant.username) == (USER_ID, USERNAME) and grant.refresh_token
    assert grant.expires_at == clocks.ours.now + dt.timedelta(hours=2)
    assert emulator.calls_to("POST", r"/2/oauth2/token$")  # with HTTP Basic (the emulator checks it)


def test_a_wrong_verifier_is_refused(http, app, clocks, emulator):
    code, _, _ = authorized(http, app, emulator)
    with pytest.raises(AuthFailed) as refused:
        x.exchange(http, app, code, REDIRECT_URI, "w" * 43, now=clocks.ours.now)
    assert "verifier" in refused.value.reason and "w" * 43 not in refused.value.reason


def test_a_code_older_than_30_seconds_is_refused(http, app, clocks, emulator):
    code, verifier, _ = authorized(http, app, emulator)
    clocks.advance(31)
    with pytest.raises(AuthFailed):
        x.exchange(http, app, code, REDIRECT_URI, verifier, now=clocks.ours.now)


def test_a_refresh_rotates_the_refresh_token(http, app, clocks, emulator, tokens):
    grant = x.refresh(http, app, *tokens, now=clocks.ours.now)
    assert grant.refresh_token and grant.refresh_token != tokens[1] and grant.access_token != tokens[0]
    assert x.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(minutes=10)


def test_a_refresh_token_used_twice_is_refused_as_auth_failed(http, app, clocks, emulator, tokens):
    x.refresh(http, app, *tokens, now=clocks.ours.now)
    with pytest.raises(AuthFailed) as refused:
        x.refresh(http, app, *tokens, now=clocks.ours.now)
    assert tokens[1] not in refused.value.reason


def test_app_credentials_x_refuses_are_not_the_accounts_fault(http, clocks, emulator, tokens):
    from fanout.platforms.base import App

    with pytest.raises(ClientRefused):
        x.refresh(http, App("app-id", "wrong-secret"), *tokens, now=clocks.ours.now)
