"""The Mastodon adapter (fanout/platforms/mastodon/adapter.py) against the Mastodon
emulator, over real HTTP on loopback: the app registered on the instance and its OAuth
with PKCE, text, image, video and thread statuses step by step with their options, the
instance's own caps checked before any status, the mapping table of
docs/platforms.md#mastodon row by row, the instance's host checked again, and never twice
(the Idempotency-Key, the account's statuses read back past its hour, a worker killed
after every save).
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.outbound.client import Outbound
from fanout.platforms.base import AuthFailed, ClientRefused, Job, Part, Retry, Wait
from fanout.platforms.http import PlatformUnreachable, parse_hosts
from fanout.platforms.mastodon import adapter as mastodon

from ... import adapter_steps as steps
from ...adapter_steps import (  # noqa: F401 (fixtures)
    Clocks, RecordingStep, app, clocks, http, image, outbound, video,
)
from ...conftest import FakeResolver
from ...emulators.clock import EmulatorClock
from ...emulators.mastodon import MastodonEmulator
from ...emulators.media.server import sample_media_server
from ...media_files import gif, jpeg, mp4

START = dt.datetime(2026, 11, 22, 10, 0)
HOST, ACCOUNT, USERNAME = "social.example", "109000000000000001", "emu"
REDIRECT_URI = "https://c.example.com/connect/mastodon/callback"
STATUSES = ("POST", r"/api/v1/statuses$")
MEDIA = ("POST", r"/api/v2/media$")


@pytest.fixture(scope="module")
def md_server():
    with MastodonEmulator(HOST, clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(md_server):
    md_server.reset()
    md_server.set_clock(START)
    md_server.configure(max_characters=500, max_media_attachments=4, description_limit=1500,
                        image_size_limit=16_777_216, api_v2=True, video_seconds=10)
    yield md_server
    assert not md_server.errors, md_server.errors[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/big.jpg", jpeg(2000, 2000) + b"\0" * 200_000, "image/jpeg")
        server.put("/moving.gif", gif(frames=3), "image/gif")
        server.put("/long.mp4", mp4(seconds=20), "video/mp4")
        yield server


@pytest.fixture
def settings(settings, emulator):
    """The instance's host listed in FANOUT_PLATFORM_HOSTS, as the tests' hosts are."""
    return dataclasses.replace(settings, platform_hosts=parse_hosts(emulator.hosts_setting))


@pytest.fixture
def step(http, settings, clocks, emulator, outbound):
    def make(settings=settings, **kwargs) -> RecordingStep:
        return RecordingStep(http, settings, clocks.ours, emulator, **{"outbound": outbound, **kwargs})
    return make


@pytest.fixture
def token(emulator) -> str:
    return emulator.issue_token(ACCOUNT)


@pytest.fixture
def job(token):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="mastodon", user_id=f"{ACCOUNT}@{HOST}",
                   username=f"{USERNAME}@{HOST}", access_token=token, caption=caption, media=tuple(items),
                   **{"state": {}, **kwargs})
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(mastodon, make_step, job, clocks, **kwargs)


def statuses(emulator) -> list:
    return emulator.statuses


def page(status) -> str:
    return f"https://{HOST}/@{USERNAME}/{status.id}"


# --- connecting: the app, OAuth with PKCE --------------------------------------------------------

def authorized(http, app, emulator) -> tuple[str, str, dict]:
    """The consent as the browser goes through it: (code, verifier, query sent)."""
    authorization = mastodon.authorize(app, REDIRECT_URI, "S1", server=HOST)
    sent = {k: v[0] for k, v in parse_qs(urlsplit(authorization.url).query).items()}
    back = requests.get(http.url(authorization.url), allow_redirects=False, timeout=5).headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(back).query).items()}
    assert query["state"] == "S1", query
    return query["code"], authorization.verifier, sent


@pytest.fixture
def registered(http, emulator):
    return mastodon.register(http, HOST, REDIRECT_URI)


def test_registering_reads_the_instance_then_makes_the_app_with_fanouts_scopes(http, emulator, registered):
    [made] = emulator.apps
    assert (made.client_id, made.redirect_uris, made.scopes) == (
        registered.client_id, (REDIRECT_URI,), ("write:statuses", "write:media", "read:accounts"))
    assert [c.path for c in emulator.calls] == ["/api/v2/instance", "/api/v1/apps"]


def test_a_server_before_4_is_read_on_v1(http, emulator):
    emulator.configure(api_v2=False)
    mastodon.register(http, HOST, REDIRECT_URI)
    assert [c.path for c in emulator.calls] == ["/api/v2/instance", "/api/v1/instance", "/api/v1/apps"]


def test_a_server_that_is_no_mastodon_is_refused_and_a_busy_one_is_unreachable(http, emulator):
    emulator.fail("GET", r"/api/v2/instance", 200, "<html>a blog</html>")
    with pytest.raises(AuthFailed, match="social.example is not a Mastodon server"):
        mastodon.register(http, HOST, REDIRECT_URI)
    emulator.fail("GET", r"/api/v2/instance", 503, {"error": "busy"})
    with pytest.raises(PlatformUnreachable):
        mastodon.register(http, HOST, REDIRECT_URI)
    assert emulator.apps == []


def test_the_consent_asks_with_pkce_s256_and_force_login(http, emulator, registered):
    _, verifier, sent = authorized(http, registered, emulator)
    assert sent["scope"] == "write:statuses write:media read:accounts" and sent["force_login"] == "true"
    assert sent["code_challenge_method"] == "S256" and sent["code_challenge"] == base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    assert urlsplit(mastodon.authorize(registered, REDIRECT_URI, "S1", server=HOST).url).hostname == HOST


def test_the_exchange_names_the_account_by_its_id_and_host_and_its_token_never_expires(
        http, emulator, registered, clocks):
    code, verifier, _ = authorized(http, registered, emulator)
    grant = mastodon.exchange(http, registered, code, REDIRECT_URI, verifier, now=clocks.ours.now, server=HOST)
    assert (grant.user_id, grant.username, grant.expires_at, grant.refresh_token) == (
        f"{ACCOUNT}@{HOST}", f"{USERNAME}@{HOST}", None, None)
    assert mastodon.refresh_due(START) > START + dt.timedelta(days=365 * 100)


def test_a_code_without_its_verifier_is_refused(http, emulator, registered, clocks):
    code, _, _ = authorized(http, registered, emulator)
    with pytest.raises(AuthFailed):
        mastodon.exchange(http, registered, code, REDIRECT_URI, "w" * 43, now=clocks.ours.now, server=HOST)


def test_an_app_the_instance_swept_is_the_apps_fault_not_the_accounts(http, emulator, registered, clocks):
    code, verifier, _ = authorized(http, registered, emulator)
    emulator.forget_apps()
    with pytest.raises(ClientRefused):
        mastodon.exchange(http, registered, code, REDIRECT_URI, verifier, now=clocks.ours.now, server=HOST)


def test_there_is_no_refresh_a_refused_token_was_revoked(http, clocks):
    with pytest.raises(AuthFailed, match="revoked"):
        mastodon.refresh(http, None, "token", None, now=clocks.ours.now)


# --- publishing ----------------------------------------------------------------------------------

def test_a_text_status_is_public_and_answers_its_page(step, job, clocks, emulator):
    done, _, _ = publish_to_the_end(step, job("hello from fanout"), clocks)
    [made] = statuses(emulator)
    assert done.outcome.external_url == page(made)
    assert (made.text, made.visibility, made.spoiler_text, made.application) == ("hello from fanout", "public", "",
                                                                                None)
    [call] = emulator.calls_to(*STATUSES)
    assert call.body == {"visibility": "public", "status": "hello from fanout"}


def test_visibility_and_spoiler_text_are_the_options(step, job, clocks, emulator):
    options = {"visibility": "unlisted", "spoiler_text": "spoilers ahead"}
    publish_to_the_end(step, job("the plot", options=options), clocks)
    [made] = statuses(emulator)
    assert (made.visibility, made.spoiler_text) == ("unlisted", "spoilers ahead")


def test_an_image_goes_with_its_alt_text_as_description(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("a photo", {**image(media), "alt_text": "A red door"}), clocks)
    [made] = statuses(emulator)
    [item] = emulator.media
    assert done.outcome.published and made.media_ids == (item.id,) and item.description == "A red door"
    assert emulator.calls_to(*MEDIA)[0].body["description"] == "A red door"


def test_a_video_is_waited_for_while_the_instance_processes_it(step, job, clocks, emulator, media):
    done, results, _ = publish_to_the_end(step, job("a clip", video(media, "long.mp4")), clocks)
    [made] = statuses(emulator)
    assert done.outcome.external_url == page(made) and emulator.media[0].type == "video"
    waits = [r for r in results if isinstance(r, Wait)]
    assert waits and all(r.until <= START + dt.timedelta(seconds=15) for r in waits)  # processed in 10 s
    assert len(emulator.calls_to(*STATUSES)) == 1


def test_a_gif_is_processed_as_a_video_is(step, job, clocks, emulator, media):
    done, _, _ = publish_to_the_end(step, job("moving", image(media, "moving.gif")), clocks)
    assert done.outcome.published and emulator.media[0].type == "gifv"


def test_a_three_part_thread_is_replies_each_with_the_options(step, job, clocks, emulator, media):
    options = {"visibility": "private", "spoiler_text": "a thread"}
    thread = (Part("part 2", (image(media),)), Part("part 3"))
    done, _, _ = publish_to_the_end(step, job("part 1", thread=thread, options=options), clocks)
    first, second, third = statuses(emulator)
    assert (second.in_reply_to_id, third.in_reply_to_id, first.in_reply_to_id) == (first.id, second.id, None)
    assert {(s.visibility, s.spoiler_text) for s in (first, second, third)} == {("private", "a thread")}
    assert second.media_ids and done.outcome.external_url == page(first)
    assert done.outcome.published_parts == tuple(page(s) for s in (first, second, third))


def test_an_instance_before_4_is_read_on_v1_before_publishing(step, job, clocks, emulator):
    emulator.configure(api_v2=False)
    done, _, _ = publish_to_the_end(step, job("old server"), clocks)
    assert done.outcome.published and emulator.calls_to("GET", "/api/v1/instance")


def test_the_statuses_of_3_hours_fail_the_next_without_a_call(step, job, emulator):
    done = mastodon.publish(step(recent=lambda since, workspace: 300), job("one too many"))
    assert done.outcome.error_code == "platform_rate_limited" and not emulator.calls_to(*STATUSES)


# --- the instance's own caps -----------------------------------------------------------------------

def test_a_caption_over_the_instances_cap_fails_before_any_status(step, job, emulator):
    done = mastodon.publish(step(), job("a" * 501))
    assert done.outcome.error_code == "caption_too_long"
    assert done.outcome.error_message == ("caption is 501 characters as Mastodon counts them (with the content "
                                          "warning, a link 23); social.example allows 500")
    assert [c.path for c in emulator.calls] == ["/api/v2/instance"]


def test_a_bigger_instance_takes_what_its_cap_allows(step, job, clocks, emulator):
    emulator.configure(max_characters=5000)
    done, _, _ = publish_to_the_end(step, job("b" * 4000), clocks)
    assert done.outcome.published and len(statuses(emulator)[0].text) == 4000


def test_an_instance_that_states_no_cap_is_held_to_500(step, job, emulator):
    emulator.configure(max_characters=None)
    assert mastodon.publish(step(), job("c" * 501)).outcome.error_code == "caption_too_long"


def test_the_cap_counts_the_content_warning_and_links_as_mastodon_does(step, job, clocks, emulator):
    long_link = "https://example.com/" + "x" * 300
    done, _, _ = publish_to_the_end(step, job(f"{'a' * 400} {long_link}"), clocks)  # 400 + 1 + 23
    assert done.outcome.published
    over = mastodon.publish(step(), job("a" * 480, options={"spoiler_text": "c" * 21}))
    assert over.outcome.error_code == "caption_too_long" and "501 characters" in over.outcome.error_message


def test_a_thread_part_over_the_cap_is_named_and_nothing_is_posted(step, job, emulator):
    done = mastodon.publish(step(), job("fine", thread=(Part("d" * 501),)))
    assert done.outcome.error_code == "caption_too_long" and statuses(emulator) == []
    assert done.outcome.error_message.startswith("thread[0].caption is 501 characters")


def test_more_media_than_the_instance_takes_fails_before_any_upload(step, job, emulator, media):
    done = mastodon.publish(step(), job("five", *[image(media)] * 5))
    assert done.outcome.error_code == "unsupported_media_for_platform"
    assert "social.example takes at most 4" in done.outcome.error_message and not emulator.calls_to(*MEDIA)


def test_alt_text_over_the_instances_cap_fails_before_any_upload(step, job, emulator, media):
    emulator.configure(description_limit=10)
    done = mastodon.publish(step(), job("alt", {**image(media), "alt_text": "eleven char"}))
    assert done.outcome.error_code == "unsupported_media_for_platform" and "allows 10" in done.outcome.error_message


def test_a_file_over_the_instances_size_limit_fails_when_fetched(step, job, clocks, emulator, media):
    emulator.configure(image_size_limit=100_000)
    done, _, _ = publish_to_the_end(step, job("big", image(media, "big.jpg")), clocks)
    assert done.outcome.error_code == "unsupported_media_for_platform" and not emulator.calls_to(*MEDIA)


def test_a_type_the_instance_does_not_list_fails_when_fetched(step, job, clocks, emulator, media):
    emulator.configure(supported_mime_types=("image/jpeg", "video/mp4"))
    done, _, _ = publish_to_the_end(step, job("png", image(media, "photo.png")), clocks)
    assert done.outcome.error_code == "unsupported_media_for_platform" and not emulator.calls_to(*MEDIA)


# --- the instance's host, checked again -------------------------------------------------------

def unlisted_step(http, settings, clocks, emulator, names: dict) -> RecordingStep:
    """A step on settings that do not list the instance, its host resolving to `names`."""
    outbound = Outbound(resolve=FakeResolver(names), insecure=True, deadline=30.0)
    return RecordingStep(http, dataclasses.replace(settings, platform_hosts={}), clocks.ours, emulator,
                         outbound=outbound)


def test_an_instance_host_now_resolving_to_a_private_address_is_never_called(http, settings, clocks, emulator, job):
    done = mastodon.publish(unlisted_step(http, settings, clocks, emulator, {HOST: ["10.0.0.7"]}), job())
    assert done.outcome.error_code == "unknown_platform_error" and "not public" in done.outcome.error_message
    assert emulator.calls == []


def test_an_instance_host_that_does_not_resolve_now_is_tried_again(http, settings, clocks, emulator, job):
    result = mastodon.publish(unlisted_step(http, settings, clocks, emulator, {}), job())
    assert isinstance(result, Retry) and "does not resolve" in result.reason and emulator.calls == []


# --- the mapping table, row by row --------------------------------------------------------------

# (row, how the instance is made to answer it, the media item's kind) -> the target's code.
def revoke(emulator, media):
    emulator.revoke_token(account_id=ACCOUNT)


def fail(call, status, body, **kwargs):
    return lambda emulator, media: emulator.fail(*call, status, body, **kwargs)


MASTODON_ROWS = [
    ("401 revoked token", revoke, None, "platform_auth_expired", "The access token was revoked"),
    ("401 invalid token", fail(STATUSES, 401, {"error": "The access token is invalid"}), None,
     "platform_auth_expired", "The access token is invalid"),
    ("403 outside the authorized scopes", fail(STATUSES, 403, {"error": "This action is outside the authorized "
                                                                         "scopes"}), None,
     "platform_auth_expired", "outside the authorized scopes"),
    ("429 statuses", lambda emulator, media: emulator.exhaust("statuses", ACCOUNT), None, "platform_rate_limited",
     "Too many requests"),
    ("429 media uploads", lambda emulator, media: emulator.exhaust("media", ACCOUNT), "image",
     "platform_rate_limited", "Too many requests"),
    ("media 422 invalid file", fail(MEDIA, 422, {"error": "Validation failed: File content type is invalid, File is "
                                                          "invalid"}), "image",
     "platform_rejected_media", "File content type is invalid"),
    ("media processing failed (GET media 422)", lambda emulator, media: emulator.fail_next_media(), "video",
     "platform_rejected_media", "Error processing thumbnail"),
    ("422 character limit", fail(STATUSES, 422, {"error": "Validation failed: Text character limit of 500 exceeded"}),
     None, "caption_too_long", "Text character limit of 500 exceeded"),
    ("422 visibility refused", fail(STATUSES, 422, {"error": "Validation failed: Visibility is not included in the "
                                                             "list"}), None,
     "platform_option_rejected", "Visibility is not included"),
    ("404 on reply", fail(STATUSES, 404, {"error": "Record not found"}), None, "unknown_platform_error",
     "Record not found"),
    ("422 anything else", fail(STATUSES, 422, {"error": "Validation failed: Something new"}), None,
     "unknown_platform_error", "Something new"),
    ("media URL not fetchable", None, "missing", "media_download_failed", "HTTP 404"),
]


def item_of(kind: str | None, media) -> tuple:
    return {"image": (image(media),), "video": (video(media, "long.mp4"),), "missing": (image(media, "gone.jpg"),),
            None: ()}[kind]


@pytest.mark.parametrize("row, make, kind, code, said", MASTODON_ROWS, ids=[r[0] for r in MASTODON_ROWS])
def test_each_mastodon_error_ends_in_its_target_code(step, job, clocks, emulator, media, row, make, kind, code, said):
    if make:
        make(emulator, media)
    done, _, _ = publish_to_the_end(step, job("hello", *item_of(kind, media)), clocks)
    assert done.outcome.error_code == code
    assert said in done.outcome.error_message
    assert statuses(emulator) == []


def test_a_rate_limit_says_when_it_resets(step, job, clocks, emulator):
    emulator.exhaust("statuses", ACCOUNT)
    done, _, _ = publish_to_the_end(step, job("hello"), clocks)
    assert done.outcome.error_message.endswith("(the limit resets at 2026-11-22T12:00:00Z)")


def test_media_not_yet_processed_is_tried_again_then_posted_once(step, job, clocks, emulator):
    emulator.fail(*STATUSES, 422, {"error": "Cannot attach files that have not finished processing. Try again in a "
                                            "moment!"})
    done, results, _ = publish_to_the_end(step, job("hello"), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(statuses(emulator)) == 1


def test_a_5xx_is_retried_and_then_posts_once(step, job, clocks, emulator):
    emulator.fail(*STATUSES, 503, {"error": "Service Unavailable"})
    done, results, _ = publish_to_the_end(step, job("hello"), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(statuses(emulator)) == 1


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, token):
    emulator.fail(*STATUSES, 400, {"error": f"odd {token}", "weird": 12345})
    done = mastodon.publish(step(), job("hello"))
    assert done.outcome.error_code == "unknown_platform_error" and token not in done.outcome.error_message


def test_a_later_part_that_fails_names_itself_and_what_is_out(step, job, clocks, emulator, media):
    emulator.fail(*MEDIA, 422, {"error": "Validation failed: File content type is invalid, File is invalid"})
    done, _, _ = publish_to_the_end(step, job("one", thread=(Part("two", (image(media),)),)), clocks)
    [first] = statuses(emulator)
    assert done.outcome.error_code == "platform_rejected_media" and done.outcome.published_parts == (page(first),)
    assert done.outcome.error_message.startswith(f"part 2 of 2 (thread[0]) was not posted; already published: "
                                                 f"{page(first)}: Mastodon: Validation failed")


# --- answers that break the contract -------------------------------------------------------------

def test_a_status_answered_with_no_json_is_read_back_among_the_accounts_and_settled(step, job, clocks, emulator):
    emulator.garble(*STATUSES, 200, "<html>oops</html>")
    done, results, _ = publish_to_the_end(step, job("posted, garbled"), clocks)
    [made] = statuses(emulator)
    assert results == [done] and done.outcome.external_url == page(made)
    assert len(emulator.calls_to(*STATUSES)) == 1


def test_a_garbled_status_not_found_fails_saying_it_may_be_out(step, job, clocks, emulator):
    emulator.fail(*STATUSES, 200, "<html>oops</html>")  # made nothing, said nothing usable
    done = mastodon.publish(step(), job("garbled"))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "Mastodon may have published it all the same" in done.outcome.error_message
    assert len(emulator.calls_to(*STATUSES)) == 1


# --- never twice ------------------------------------------------------------------------------------

def test_a_status_whose_answer_is_lost_is_sent_again_with_its_key_and_made_once(step, job, clocks, emulator):
    emulator.drop(*STATUSES)  # made, then the connection is closed
    first = mastodon.publish(step(), job("maybe posted"))
    assert isinstance(first, Retry) and first.state["sending"] and len(statuses(emulator)) == 1
    clocks.to(first.after)
    done = mastodon.publish(step(), dataclasses.replace(job("maybe posted"), state=first.state))
    [made] = statuses(emulator)
    assert done.outcome.external_url == page(made) and len(emulator.calls_to(*STATUSES)) == 2


def test_the_same_key_is_sent_for_the_same_part(step, job, clocks, emulator):
    emulator.drop(*STATUSES)
    first = mastodon.publish(step(), job("keyed"))
    clocks.to(first.after)
    mastodon.publish(step(), dataclasses.replace(job("keyed"), state=first.state))
    [made] = statuses(emulator)
    assert made.idempotency_key == "fanout-tgt_1-0"


def test_a_status_that_never_left_is_sent_as_new(step, job, clocks, emulator):
    emulator.drop(*STATUSES, after_effect=False)
    first = mastodon.publish(step(), job("not there yet"))
    assert isinstance(first, Retry) and first.state.get("sending")  # may have arrived: kept
    clocks.to(first.after)
    done = mastodon.publish(step(), dataclasses.replace(job("not there yet"), state=first.state))
    assert done.outcome.external_url == page(statuses(emulator)[0])


def test_past_the_keys_hour_the_status_is_read_back_and_settled(step, job, clocks, emulator):
    emulator.drop(*STATUSES)
    first = mastodon.publish(step(), job("an hour later"))
    clocks.advance(2 * 3600)  # the instance has forgotten the key
    done = mastodon.publish(step(), dataclasses.replace(job("an hour later"), state=first.state))
    [made] = statuses(emulator)
    assert done.outcome.external_url == page(made) and len(emulator.calls_to(*STATUSES)) == 1


def test_past_the_keys_hour_a_status_not_found_fails_saying_it_may_be_out_and_is_not_sent(step, job, clocks,
                                                                                          emulator):
    emulator.drop(*STATUSES, after_effect=False)
    first = mastodon.publish(step(), job("lost"))
    clocks.advance(2 * 3600)
    done = mastodon.publish(step(), dataclasses.replace(job("lost"), state=first.state))
    assert done.outcome.error_code == "unknown_platform_error" and "may have published it" in done.outcome.error_message
    assert statuses(emulator) == [] and len(emulator.calls_to(*STATUSES)) == 1


def test_the_moment_is_saved_before_the_status_is_sent(step, job, emulator):
    run = step()
    mastodon.publish(run, job("marked"))
    [at] = [i for i, call in enumerate(emulator.calls) if call.path == "/api/v1/statuses"]
    assert dict(zip(run.calls_at_save, run.saved))[at]["sending"] == START.isoformat()
    assert run.saved[-1]["thread"] == [{"id": statuses(emulator)[0].id, "url": page(statuses(emulator)[0])}]


@pytest.mark.parametrize("killed_after", range(6))
def test_a_worker_killed_after_any_save_of_an_image_post_leaves_one_status(step, job, clocks, emulator, media,
                                                                           killed_after):
    done, _, _ = steps.publish_after_a_death(mastodon, step, job("only once", image(media)), clocks, killed_after,
                                             may_outlive=True)
    [made] = statuses(emulator)
    assert done.outcome.external_url == page(made)


@pytest.mark.parametrize("killed_after", range(8))
def test_a_worker_killed_after_any_save_of_a_thread_leaves_each_part_once(step, job, clocks, emulator, media,
                                                                          killed_after):
    thread = (Part("two", (image(media),)), Part("three"))
    done, _, _ = steps.publish_after_a_death(mastodon, step, job("one", thread=thread), clocks, killed_after,
                                             may_outlive=True)
    assert [s.text for s in statuses(emulator)] == ["one", "two", "three"]
    assert done.outcome.published_parts == tuple(page(s) for s in statuses(emulator))


# --- the preflight (foresee) -----------------------------------------------------------------------

def test_foresee_says_what_the_instance_would_refuse_before_anything_is_made(step, job, emulator, media):
    emulator.configure(max_characters=100, image_size_limit=100_000)
    found = mastodon.foresee(step(), job("e" * 101, image(media, "big.jpg"), image(media)))
    assert [o.error_code for o in found] == ["caption_too_long", "unsupported_media_for_platform"]
    assert "social.example allows 100" in found[0].error_message and "media[0]" in found[1].error_message
    assert not emulator.calls_to("POST")


def test_foresee_finds_nothing_in_what_the_instance_takes(step, job, emulator, media):
    assert mastodon.foresee(step(), job("fine", image(media))) == []


def test_foresee_says_the_host_may_not_be_called(http, settings, clocks, emulator, job):
    found = mastodon.foresee(unlisted_step(http, settings, clocks, emulator, {HOST: ["127.0.0.1"]}), job())
    assert [o.error_code for o in found] == ["unknown_platform_error"] and emulator.calls == []
