"""The Bluesky adapter (fanout/platforms/bluesky/adapter.py) against the Bluesky emulator, over
real HTTP on loopback: signing in with an app password (handle -> DID -> PDS), the session
refresh, text, image, video and thread posts step by step, the mapping table of
docs/platforms.md#bluesky row by row, and never twice (a record key saved before the call,
read back after an unknown outcome).
"""
from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from fanout.platforms.base import AccountNotEligible, AuthFailed, Done, Job, Part, Retry, SignInRefused, Wait
from fanout.platforms.bluesky import adapter as bluesky
from fanout.platforms.http import PlatformHttp, parse_hosts

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, Killed, clocks, http, image, outbound, step, video,
)
from ...emulators.bluesky import BlueskyAccount, BlueskyEmulator
from ...emulators.clock import EmulatorClock
from ...emulators.media.server import sample_media_server
from ...media_files import mp4

START = dt.datetime(2026, 11, 22, 10, 0)
DID, HANDLE, APP_PASSWORD = "did:plc:emu2bsky3account4default", "emu.bsky.social", "abcd-efgh-ijkl-mnop"
FRIEND = BlueskyAccount("did:plc:friend2account3second4xx", "friend.bsky.social", app_passwords=("ffff-ffff-ffff-ffff",))
CREATE = ("POST", r"/xrpc/com\.atproto\.repo\.createRecord$")
UPLOAD_BLOB = ("POST", r"/xrpc/com\.atproto\.repo\.uploadBlob$")
UPLOAD_VIDEO = ("POST", r"/xrpc/app\.bsky\.video\.uploadVideo$")
JOB_STATUS = ("GET", r"/xrpc/app\.bsky\.video\.getJobStatus$")


@pytest.fixture(scope="module")
def sky_server():
    with BlueskyEmulator(accounts=[BlueskyEmulator.DEFAULT_ACCOUNT, FRIEND], clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(sky_server):
    sky_server.reset()
    sky_server.set_clock(START)
    sky_server.configure(image_max_bytes=1_000_000, flat_upload_answer=False, refresh_grace=0)
    yield sky_server
    assert not sky_server.errors, sky_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", mp4(seconds=20, padding=2_500_000), "video/mp4")
        yield server


@pytest.fixture
def session(emulator) -> dict:
    return emulator.issue_session(DID)


@pytest.fixture
def job(session):
    def make(caption: str = "hello from fanout", *items: dict, thread: tuple = (), **kwargs) -> Job:
        """`thread`: further parts as a post's override gives them, {caption, media?} each."""
        parts = tuple(Part(p["caption"], tuple(p.get("media") or ())) for p in thread)
        return Job(target_id="tgt_1", platform="bluesky", user_id=DID, username=HANDLE,
                   access_token=session["accessJwt"], caption=caption, media=tuple(items), state={},
                   thread=parts, **kwargs)
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(bluesky, make_step, job, clocks, **kwargs)


def posts(emulator) -> list:
    return emulator.posts[DID]


def rkey_of(record) -> str:
    return record.uri.rsplit("/", 1)[1]


def xrpc_error(name: str, message: str = "") -> dict:
    return {"error": name, "message": message or name}


# --- signing in ------------------------------------------------------------------------------

def test_a_handle_and_app_password_sign_in_as_the_did_for_two_hours(http, clocks, emulator):
    grant = bluesky.sign_in(http, HANDLE, APP_PASSWORD, now=clocks.ours.now)
    assert (grant.user_id, grant.username) == (DID, HANDLE) and grant.refresh_token
    assert grant.expires_at == clocks.ours.now + dt.timedelta(hours=2)
    assert [c.path for c in emulator.calls] == [
        "/xrpc/com.atproto.identity.resolveHandle", f"/{DID}", "/xrpc/com.atproto.server.createSession"]
    assert emulator.calls[-1].body == {"identifier": DID, "password": "***"}


@pytest.mark.parametrize("typed", ["@emu.bsky.social", "Emu.Bsky.Social ", DID])
def test_the_handle_may_be_typed_with_an_at_sign_in_any_case_or_as_the_did(http, clocks, emulator, typed):
    assert bluesky.sign_in(http, typed, APP_PASSWORD, now=clocks.ours.now).user_id == DID


@pytest.mark.parametrize("identifier, password", [
    (HANDLE, "wrong-wrong-wrong-wrong"),
    (HANDLE, "emu-main-password"),  # the main password asks for an emailed code: refused
    ("nobody.bsky.social", APP_PASSWORD),
    ("not a handle", APP_PASSWORD),
])
def test_what_bluesky_refuses_shows_the_form_again(http, clocks, emulator, identifier, password):
    with pytest.raises(SignInRefused) as refused:
        bluesky.sign_in(http, identifier, password, now=clocks.ours.now)
    assert password not in refused.value.reason


def test_a_taken_down_account_is_not_eligible(http, clocks, emulator):
    emulator.add_account("gone.bsky.social", "gone-gone-gone-gone", status="takendown")
    with pytest.raises(AccountNotEligible):
        bluesky.sign_in(http, "gone.bsky.social", "gone-gone-gone-gone", now=clocks.ours.now)


def test_the_session_goes_to_the_pds_the_did_document_names(clocks, emulator):
    emulator.add_account("far.bsky.social", "farr-farr-farr-farr", did="did:plc:far2away3account4on5pds2",
                         pds_host="far-pds.invalid")
    only_that_pds = PlatformHttp(parse_hosts(",".join(
        f"{host}={emulator.base_url}" for host in ("bsky.social", "plc.directory", "far-pds.invalid"))))
    grant = bluesky.sign_in(only_that_pds, "far.bsky.social", "farr-farr-farr-farr", now=clocks.ours.now)
    assert grant.user_id == "did:plc:far2away3account4on5pds2"


@pytest.mark.parametrize("pds_host", ["127.0.0.1", "localhost"])
def test_a_did_document_naming_an_address_for_its_pds_is_not_followed(http, clocks, emulator, pds_host):
    emulator.add_account("odd.bsky.social", "oddd-oddd-oddd-oddd", did="did:plc:odd2pds3account4naming5i",
                         pds_host=pds_host)
    with pytest.raises(AccountNotEligible):
        bluesky.sign_in(http, "odd.bsky.social", "oddd-oddd-oddd-oddd", now=clocks.ours.now)
    assert not emulator.calls_to("POST", "createSession")


def test_a_refresh_rotates_both_tokens_at_the_pds(http, clocks, emulator, session):
    grant = bluesky.refresh(http, None, session["accessJwt"], session["refreshJwt"], now=clocks.ours.now)
    assert grant.refresh_token != session["refreshJwt"] and grant.access_token != session["accessJwt"]
    assert bluesky.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(minutes=15)
    with pytest.raises(AuthFailed) as refused:
        bluesky.refresh(http, None, session["accessJwt"], session["refreshJwt"], now=clocks.ours.now)
    assert session["refreshJwt"] not in refused.value.reason


def test_a_revoked_app_password_ends_the_session(http, clocks, emulator, session):
    emulator.revoke_refresh(DID)
    with pytest.raises(AuthFailed):
        bluesky.refresh(http, None, session["accessJwt"], session["refreshJwt"], now=clocks.ours.now)


# --- publishing ------------------------------------------------------------------------------

def test_a_text_post_is_written_under_a_saved_tid_and_answers_its_bsky_app_permalink(step, job, clocks, emulator):
    done, _, run = publish_to_the_end(step, job("hello from fanout"), clocks)
    [post] = posts(emulator)
    assert done.outcome.external_url == f"https://bsky.app/profile/{DID}/post/{rkey_of(post)}"
    assert post.text == "hello from fanout" and post.value["createdAt"] == "2026-11-22T10:00:00.000Z"
    assert bluesky.tid(START, 0)[:10] == rkey_of(post)[:10]  # the moment, then the clock id


def test_links_mentions_and_hashtags_become_facets_in_utf8_bytes(step, job, clocks, emulator):
    text = "Café news https://example.com/a?b=1. #launch @friend.bsky.social @nobody.bsky.social"
    publish_to_the_end(step, job(text), clocks)  # the emulator refuses facets that miss their text
    [post] = posts(emulator)
    data = text.encode()
    features = [(f["index"]["byteStart"], f["index"]["byteEnd"], f["features"][0]) for f in post.value["facets"]]
    link_at = data.index(b"https")
    assert features == [
        (link_at, link_at + len("https://example.com/a?b=1"), {"$type": "app.bsky.richtext.facet#link",
                                                               "uri": "https://example.com/a?b=1"}),
        (data.index(b"#launch"), data.index(b"#launch") + 7, {"$type": "app.bsky.richtext.facet#tag", "tag": "launch"}),
        (data.index(b"@friend"), data.index(b"@friend") + len("@friend.bsky.social"),
         {"$type": "app.bsky.richtext.facet#mention", "did": FRIEND.did}),
    ]  # the handle nobody has stays text


def test_images_go_as_blobs_with_their_aspect_ratio_and_alt(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("two photos", image(media), image(media, "square.jpg")), clocks)
    [post] = posts(emulator)
    images = post.embed["images"]
    assert done.outcome.published and post.embed["$type"] == "app.bsky.embed.images"
    assert [i["aspectRatio"] for i in images] == [{"width": 640, "height": 480}, {"width": 1080, "height": 1080}]
    assert [i["alt"] for i in images] == ["", ""] and len(emulator.calls_to(*UPLOAD_BLOB)) == 2


def test_an_images_alt_text_is_its_alt_in_the_embed(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a photo", {**image(media), "alt_text": "A red door"}, image(media)), clocks)
    [post] = posts(emulator)
    assert [i["alt"] for i in post.embed["images"]] == ["A red door", ""]


def test_an_image_over_a_million_bytes_fails_before_any_call(step, job, emulator, media):
    media.put("/big.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 1_000_001, "image/png")
    done = bluesky.publish(step(), job("too big", image(media, "big.png")))
    assert done.outcome.error_code in ("platform_rejected_media", "unsupported_media_for_platform")
    assert not emulator.calls_to(*UPLOAD_BLOB) and posts(emulator) == []


def test_a_video_goes_to_the_video_service_and_is_posted_once_processed(step, job, clocks, emulator, media):
    first = bluesky.publish(step(), job("a clip", video(media, "long.mp4")))
    assert isinstance(first, Wait) and posts(emulator) == []
    [upload] = emulator.calls_to(*UPLOAD_VIDEO)
    assert upload.query["did"] == DID
    done, results, _ = publish_to_the_end(step, dataclasses.replace(job("a clip", video(media, "long.mp4")),
                                                                    state=first.state), clocks)
    [post] = posts(emulator)
    assert done.outcome.published and post.embed["$type"] == "app.bsky.embed.video"
    assert post.embed["video"]["mimeType"] == "video/mp4" and emulator.calls_to(*JOB_STATUS)


def test_the_upload_answered_flat_is_read_as_well(step, job, clocks, emulator, media):
    emulator.configure(flat_upload_answer=True)
    done, _, _ = publish_to_the_end(step, job("flat", video(media)), clocks)
    assert done.outcome.published and len(posts(emulator)) == 1


def test_a_video_the_service_has_processed_already_is_posted_with_the_blob_it_names(step, job, clocks, emulator,
                                                                                     media):
    publish_to_the_end(step, job("first", video(media)), clocks)
    done, _, _ = publish_to_the_end(step, job("second", video(media)), clocks)
    assert done.outcome.published and [p.text for p in posts(emulator)] == ["first", "second"]
    assert len(emulator.calls_to(*UPLOAD_VIDEO)) == 2


def test_a_three_part_thread_is_written_in_order_each_replying_to_the_one_before(step, job, clocks, emulator, media):
    thread = ({"caption": "2/3"}, {"caption": "3/3", "media": [image(media)]})
    done, _, _ = publish_to_the_end(step, job("1/3", thread=thread), clocks)
    chain = emulator.thread(posts(emulator)[0].uri)
    assert [p.text for p in chain] == ["1/3", "2/3", "3/3"]
    assert [p.root for p in chain] == [None, chain[0].uri, chain[0].uri]
    assert [p.parent for p in chain] == [None, chain[0].uri, chain[1].uri]
    assert done.outcome.external_url == bluesky.permalink(DID, rkey_of(chain[0]))
    assert chain[2].embed["$type"] == "app.bsky.embed.images"


def test_a_thread_part_over_the_cap_fails_before_anything_is_published(step, job, emulator):
    done = bluesky.publish(step(), job("1/2", thread=({"caption": "x" * 301},)))
    assert done.outcome.error_code == "caption_too_long" and "thread part 2" in done.outcome.error_message
    assert emulator.calls == []


def part_two_refused(step, job, clocks, emulator):
    """Part 1 of a two-part thread published, then part 2 refused with a 400: (part 1's
    result, the resumed step's)."""
    first, _, run = publish_to_the_end(step, job("1/2"), clocks)
    emulator.fail(*CREATE, 400, xrpc_error("InvalidRequest", "part two refused"))
    resumed = dataclasses.replace(job("1/2", thread=({"caption": "2/2"},)), state=run.saved[-1])
    return first, bluesky.publish(step(), resumed)


def test_a_part_failing_names_itself_and_the_parts_already_published(step, job, clocks, emulator):
    first, done = part_two_refused(step, job, clocks, emulator)
    assert done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith("thread part 2: ") and "part two refused" in done.outcome.error_message
    assert first.outcome.external_url in done.outcome.error_message


def test_a_part_failing_gives_the_outcome_the_parts_already_published(step, job, clocks, emulator):
    first, done = part_two_refused(step, job, clocks, emulator)
    assert done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.published_parts == (first.outcome.external_url,)


# --- the mapping table, row by row -----------------------------------------------------------

# (row, call that answers, HTTP status, body, media item kind) -> the target's code.
BLUESKY_ROWS = [
    ("400 ExpiredToken", CREATE, 400, xrpc_error("ExpiredToken", "Token has expired"), None, "platform_auth_expired"),
    ("400 InvalidToken", CREATE, 400, xrpc_error("InvalidToken", "Token could not be verified"), None,
     "platform_auth_expired"),
    ("401 AuthMissing", CREATE, 401, xrpc_error("AuthMissing", "Authentication Required"), None,
     "platform_auth_expired"),
    ("401 AccountTakedown", CREATE, 401, xrpc_error("AccountTakedown", "Account has been taken down"), None,
     "platform_auth_expired"),
    ("400 AccountDeactivated", CREATE, 400, xrpc_error("AccountDeactivated", "Account is deactivated"), None,
     "platform_auth_expired"),
    ("429 RateLimitExceeded", CREATE, 429, xrpc_error("RateLimitExceeded", "Rate Limit Exceeded"), None,
     "platform_rate_limited"),
    ("uploadVideo 429", UPLOAD_VIDEO, 429, xrpc_error("RateLimitExceeded", "daily upload limit"), "video",
     "platform_rate_limited"),
    ("video DailyLimitExceeded", UPLOAD_VIDEO, 400, xrpc_error("DailyLimitExceeded", "Daily limit"), "video",
     "platform_rate_limited"),
    ("BlobTooLarge", CREATE, 400, xrpc_error("BlobTooLarge", "This file is too large. It is 1.68MB but the maximum "
                                                             "size is 976.56KB."), "image", "platform_rejected_media"),
    ("InvalidMimeType", CREATE, 400, xrpc_error("InvalidMimeType", "Referenced Mimetype does not match"), "image",
     "platform_rejected_media"),
    ("InvalidSize", CREATE, 400, xrpc_error("InvalidSize", "Referenced size does not match"), "image",
     "platform_rejected_media"),
    ("413 PayloadTooLarge", UPLOAD_BLOB, 413, xrpc_error("PayloadTooLarge", "request entity too large"), "image",
     "platform_rejected_media"),
    ("VideoTooLarge", UPLOAD_VIDEO, 400, xrpc_error("VideoTooLarge", "Video is too large"), "video",
     "platform_rejected_media"),
    ("VideoTooLong", UPLOAD_VIDEO, 400, xrpc_error("VideoTooLong", "Video is too long"), "video",
     "platform_rejected_media"),
    ("UnsupportedContentType", UPLOAD_VIDEO, 400, xrpc_error("UnsupportedContentType", "video/mp4 only"), "video",
     "platform_rejected_media"),
    ("job validation_failure", JOB_STATUS, 200, {"jobStatus": {"jobId": "j", "did": DID, "state": "JOB_STATE_FAILED",
                                                               "error": "validation_failure", "message": "bad file"}},
     "video", "platform_rejected_media"),
    ("job encoding_failure", JOB_STATUS, 200, {"jobStatus": {"jobId": "j", "did": DID, "state": "JOB_STATE_FAILED",
                                                             "error": "encoding_failure", "message": "cannot encode"}},
     "video", "platform_rejected_media"),
    ("Record/text too long", CREATE, 400,
     xrpc_error("InvalidRequest", "Invalid app.bsky.feed.post record: Record/text must not be longer than 300 "
                                  "graphemes"), None, "caption_too_long"),
    ("other InvalidRequest", CREATE, 400, xrpc_error("InvalidRequest", "Invalid app.bsky.feed.post record: odd"),
     None, "unknown_platform_error"),
    ("video job generic_failure", JOB_STATUS, 200, {"jobStatus": {"jobId": "j", "did": DID,
                                                                  "state": "JOB_STATE_FAILED",
                                                                  "error": "generic_failure", "message": "oops"}},
     "video", "unknown_platform_error"),
    ("EmailNotConfirmed", UPLOAD_VIDEO, 400, xrpc_error("EmailNotConfirmed", "confirm your email"), "video",
     "unknown_platform_error"),
    ("not XRPC: an HTML page", CREATE, 400, "<html>Bad Request</html>", None, "unknown_platform_error"),
]


def item_of(kind: str | None, media) -> tuple:
    return {"image": (image(media),), "video": (video(media),), None: ()}[kind]


@pytest.mark.parametrize("row, call, status, body, kind, code", BLUESKY_ROWS, ids=[r[0] for r in BLUESKY_ROWS])
def test_each_bluesky_error_ends_in_its_target_code(step, job, clocks, emulator, media, row, call, status, body,
                                                    kind, code):
    emulator.fail(*call, status, body)
    done, _, _ = publish_to_the_end(step, job("hello", *item_of(kind, media)), clocks)
    assert done.outcome.error_code == code
    message = body.get("message") or body["jobStatus"]["message"] if isinstance(body, dict) else "Bad Request"
    assert message in done.outcome.error_message  # Bluesky's own words, or its raw answer
    assert posts(emulator) == []


@pytest.mark.parametrize("status, name", [(500, "InternalServerError"), (502, "UpstreamFailure"),
                                          (503, "ServiceUnavailable"), (504, "UpstreamTimeout")])
def test_a_5xx_is_retried_and_then_posts_once(step, job, clocks, emulator, status, name):
    emulator.fail(*CREATE, status, xrpc_error(name))
    done, results, _ = publish_to_the_end(step, job("hello"), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(posts(emulator)) == 1


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, session):
    emulator.fail(*CREATE, 400, {"error": "Odd", "message": f"odd failure {session['accessJwt']}", "weird": 12345})
    done = bluesky.publish(step(), job("hello"))
    assert done.outcome.error_code == "unknown_platform_error" and '"weird": 12345' in done.outcome.error_message
    assert session["accessJwt"] not in done.outcome.error_message


def test_a_rate_limit_says_when_it_resets(step, job, emulator):
    reset = int(dt.datetime(2026, 11, 22, 11, 0, tzinfo=dt.UTC).timestamp())
    emulator.exhaust("writes")
    emulator.fail(*CREATE, 429, xrpc_error("RateLimitExceeded", "Rate Limit Exceeded"),
                  headers={"RateLimit-Reset": str(reset), "RateLimit-Remaining": "0"})
    done = bluesky.publish(step(), job("limited"))
    assert done.outcome.error_code == "platform_rate_limited" and "2026-11-22T11:00:00Z" in done.outcome.error_message


def test_an_expired_access_token_is_auth_expired_for_the_engine_to_refresh(step, job, emulator):
    emulator.expire_tokens(DID)
    done = bluesky.publish(step(), job("hello"))
    assert done.outcome.error_code == "platform_auth_expired" and posts(emulator) == []


def test_an_uploaded_image_the_pds_swept_meanwhile_is_uploaded_again(step, job, clocks, emulator, media):
    run = step(kill_after_save=1)  # the image is uploaded and its blob saved, then the worker dies
    with pytest.raises(Killed):
        bluesky.publish(run, job("photo", image(media)))
    clocks.advance(3601)  # an hour later the PDS has swept the blob nobody referenced
    resumed = dataclasses.replace(job("photo", image(media)), state=run.saved[-1])
    done, results, _ = publish_to_the_end(step, resumed, clocks)
    assert isinstance(results[0], Retry) and "uploading it again" in results[0].reason and done.outcome.published
    assert len(emulator.calls_to(*UPLOAD_BLOB)) == 2 and len(posts(emulator)) == 1


# --- answers that break the contract (fanout/platforms/contract.py) ----------------------------

def test_a_record_answered_with_a_body_that_is_not_json_is_read_back_at_once_and_never_written_again(
        step, job, emulator):
    emulator.garble(*CREATE, 200, "<html>ok</html>")  # the PDS wrote it
    done = bluesky.publish(step(), job("maybe written"))
    [post] = posts(emulator)
    assert done.outcome.external_url == bluesky.permalink(DID, rkey_of(post))
    assert len(emulator.calls_to(*CREATE)) == 1 and emulator.calls_to("GET", "getRecord")


def test_a_record_answered_without_its_uri_that_was_not_written_fails_at_once_saying_nothing_is_out(
        step, job, emulator):
    emulator.fail(*CREATE, 200, {"commit": {}})  # answered, not written
    done = bluesky.publish(step(), job("not written"))
    assert done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith("Bluesky answered the post's record without its uri; ")
    assert done.outcome.error_message.endswith("its record is not there, so nothing was published")
    assert len(emulator.calls_to(*CREATE)) == 1 and posts(emulator) == []


def test_a_record_whose_answer_and_read_back_both_break_fails_at_once_saying_it_may_be_out(step, job, emulator):
    emulator.garble(*CREATE, 200, {"uri": f"at://{DID}/{bluesky.POST}/other", "cid": "bafyreiexample"})
    emulator.garble("GET", "getRecord", 200, "<html>ok</html>")
    done = bluesky.publish(step(), job("written, perhaps"))
    assert done.outcome.error_code == "unknown_platform_error"
    assert done.outcome.error_message.startswith("Bluesky answered the post's record with its uri of the wrong shape")
    assert "Bluesky may have published it all the same" in done.outcome.error_message
    assert len(emulator.calls_to(*CREATE)) == 1 and len(posts(emulator)) == 1


# --- never twice -----------------------------------------------------------------------------

def test_a_post_whose_answer_is_lost_is_read_back_under_its_key_not_written_again(step, job, clocks, emulator):
    emulator.drop(*CREATE)  # written, then the connection is closed
    first = bluesky.publish(step(), job("maybe posted"))
    assert isinstance(first, Retry) and len(posts(emulator)) == 1
    clocks.to(first.after)
    done = bluesky.publish(step(), dataclasses.replace(job("maybe posted"), state=first.state))
    [post] = posts(emulator)
    assert done.outcome.external_url == bluesky.permalink(DID, rkey_of(post))
    assert len(emulator.calls_to(*CREATE)) == 1 and emulator.calls_to("GET", "getRecord")


def test_a_post_that_never_arrived_is_written_again_under_the_same_key(step, job, clocks, emulator):
    emulator.drop(*CREATE, after_effect=False)
    first = bluesky.publish(step(), job("not there yet"))
    clocks.to(first.after)
    done = bluesky.publish(step(), dataclasses.replace(job("not there yet"), state=first.state))
    [post] = posts(emulator)
    creates = emulator.calls_to(*CREATE)
    assert len(creates) == 2 and creates[0].body["rkey"] == creates[1].body["rkey"] == rkey_of(post)
    assert done.outcome.published


def test_the_record_key_is_saved_before_the_record_is_written(step, job, emulator):
    run = step()
    bluesky.publish(run, job("marked"))
    [at] = [i for i, call in enumerate(emulator.calls) if call.path.endswith("createRecord")]
    saved = dict(zip(run.calls_at_save, run.saved))[at]
    assert saved["parts"][0]["sent"] is True and saved["parts"][0]["rkey"] == rkey_of(posts(emulator)[0])


@pytest.mark.parametrize("killed_after", range(5))
def test_a_worker_killed_after_any_save_of_an_image_post_leaves_one_post(step, job, clocks, emulator, media,
                                                                         killed_after):
    done, _, _ = steps.publish_after_a_death(bluesky, step, job("only once", image(media)), clocks, killed_after,
                                             may_outlive=True)
    [post] = posts(emulator)
    assert done.outcome.external_url == bluesky.permalink(DID, rkey_of(post))


@pytest.mark.parametrize("killed_after", range(8))
def test_a_worker_killed_after_any_save_of_a_thread_leaves_each_part_once_in_order(step, job, clocks, emulator,
                                                                                   killed_after):
    thread = ({"caption": "2/3"}, {"caption": "3/3"})
    done, _, _ = steps.publish_after_a_death(bluesky, step, job("1/3", thread=thread), clocks, killed_after,
                                             may_outlive=True)
    assert [p.text for p in posts(emulator)] == ["1/3", "2/3", "3/3"]
    assert [p.text for p in emulator.thread(posts(emulator)[0].uri)] == ["1/3", "2/3", "3/3"]
    assert isinstance(done, Done) and done.outcome.published
