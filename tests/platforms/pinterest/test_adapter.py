"""The Pinterest adapter (fanout/platforms/pinterest/adapter.py) against the Pinterest
emulator, over real HTTP on loopback: OAuth 2.0 with the app's credentials as HTTP Basic,
the account and its boards, continuous refresh, image and video Pins step by step (the
board, the title, the link, the alt text, a video's upload, processing and cover), the
mapping table of docs/platforms.md#pinterest row by row, answers that break the contract,
and never twice (a marker saved before the create, the board's Pins read back after).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.platforms.base import App, AuthFailed, ClientRefused, Job, Retry, Wait
from fanout.platforms.http import PlatformUnreachable
from fanout.platforms.pinterest import adapter as pinterest

from ... import adapter_steps as steps
from ...adapter_steps import Clocks, image, video
from ...emulators.clock import EmulatorClock
from ...emulators.pinterest import PinterestEmulator
from .conftest import SIX_SECONDS

START = dt.datetime(2026, 11, 22, 10, 0)
USER, USERNAME = "1150000000000000001", "emu_pinterest"
REDIRECT_URI = "https://c.example.com/connect/pinterest/callback"
PINS = ("POST", r"/v5/pins$")
MEDIA = ("POST", r"/v5/media$")
STORE = ("POST", r"^/$")
BOARDS = ("GET", r"/v5/boards$")
BOARD_PINS = ("GET", r"/v5/boards/\d+/pins$")


@pytest.fixture(scope="module")
def pin_server():
    with PinterestEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as server:
        yield server


@pytest.fixture
def emulator(pin_server):
    pin_server.reset()
    pin_server.set_clock(START)
    pin_server.configure(video_seconds=3, pin_writes_per_minute=100)
    yield pin_server
    assert not pin_server.errors, pin_server.errors[0]


@pytest.fixture
def token(emulator) -> str:
    return emulator.issue_token(USER)[0]


@pytest.fixture
def job(token):
    def make(caption: str = "hello from fanout", *items: dict, **kwargs) -> Job:
        return Job(target_id="tgt_1", platform="pinterest", user_id=USER, username=USERNAME, access_token=token,
                   caption=caption, media=tuple(items), state={}, **kwargs)
    return make


def publish_to_the_end(make_step, job: Job, clocks: Clocks, **kwargs):
    return steps.publish_to_the_end(pinterest, make_step, job, clocks, **kwargs)


def pins(emulator) -> list:
    return emulator.pins[USER]


def board(emulator) -> str:
    return emulator.boards[USER][0].id


def error(code: int, message: str) -> dict:
    return {"code": code, "message": message}


# --- OAuth 2.0 --------------------------------------------------------------------------------

def consent(http, app, scope: str | None = None) -> tuple[str, dict]:
    """The consent as the browser goes through it: (code, query sent to Pinterest)."""
    url = pinterest.authorize(app, REDIRECT_URI, "S1").url
    if scope is not None:
        url = url.replace("scope=", f"scope={scope}&was=", 1)
    sent = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    back = requests.get(http.url(url), allow_redirects=False, timeout=5).headers["location"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(back).query).items()}
    assert query["state"] == "S1"
    return query["code"], sent


@pytest.fixture
def app() -> App:
    return App("app-id", "app-secret")


def test_the_authorize_url_asks_for_the_four_scopes_comma_separated(http, app, emulator):
    _, sent = consent(http, app)
    assert sent["scope"] == "boards:read,pins:read,pins:write,user_accounts:read"
    assert (sent["response_type"], sent["client_id"], sent["redirect_uri"]) == ("code", "app-id", REDIRECT_URI)
    assert urlsplit(pinterest.authorize(app, REDIRECT_URI, "S1").url).hostname == "www.pinterest.com"


def test_the_exchange_gives_the_user_their_boards_and_30_day_tokens(http, app, clocks, emulator):
    emulator.add_board("Recipes")
    code, _ = consent(http, app)
    grant = pinterest.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    assert (grant.user_id, grant.username) == (USER, USERNAME)
    assert grant.access_token.startswith("pina_") and grant.refresh_token.startswith("pinr_")
    assert grant.expires_at == START + dt.timedelta(days=30)
    assert grant.details == {"boards": [{"id": b.id, "name": b.name, "privacy": "public"}
                                        for b in emulator.boards[USER]], "read_at": START.isoformat()}
    assert pinterest.refresh_due(grant.expires_at) == grant.expires_at - dt.timedelta(days=1)


def test_every_board_is_read_page_by_page(http, app, clocks, emulator):
    for n in range(260):
        emulator.add_board(f"board {n}")
    code, _ = consent(http, app)
    grant = pinterest.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    assert len(grant.details["boards"]) == 261 and len(emulator.calls_to(*BOARDS)) == 2


def test_a_grant_short_of_a_scope_publishing_needs_fails_the_connect(http, app, clocks, emulator):
    code, _ = consent(http, app, scope="boards:read,user_accounts:read")
    with pytest.raises(AuthFailed) as refused:
        pinterest.exchange(http, app, code, REDIRECT_URI, now=clocks.ours.now)
    assert "pins:read, pins:write" in refused.value.reason


def test_a_code_pinterest_refuses_is_auth_failed_and_wrong_app_credentials_are_not_the_users(http, clocks, emulator,
                                                                                            app):
    with pytest.raises(AuthFailed) as refused:
        pinterest.exchange(http, app, "not-a-code", REDIRECT_URI, now=clocks.ours.now)
    assert "Invalid authorization code." in refused.value.reason
    code, _ = consent(http, app)
    with pytest.raises(ClientRefused) as client:
        pinterest.exchange(http, App("app-id", "wrong-secret"), code, REDIRECT_URI, now=clocks.ours.now)
    assert "FANOUT_PINTEREST_CLIENT_ID/SECRET" in str(client.value) and "wrong-secret" not in str(client.value)


def test_a_refresh_gives_a_new_pair_and_reads_the_boards_again(http, app, clocks, emulator):
    access, refresh_token = emulator.issue_token(USER)
    emulator.add_board("Made since")
    clocks.advance(29 * 86400)
    grant = pinterest.refresh(http, app, access, refresh_token, now=clocks.ours.now)
    assert grant.access_token != access and grant.refresh_token not in (None, refresh_token)
    assert grant.expires_at == clocks.ours.now + dt.timedelta(days=30)
    assert [b["name"] for b in grant.details["boards"]] == [f"{USERNAME}'s board", "Made since"]


def test_boards_pinterest_does_not_give_at_a_refresh_keep_the_stored_ones(http, app, clocks, emulator):
    access, refresh_token = emulator.issue_token(USER)
    emulator.fail(*BOARDS, 503, error(0, "Something went wrong on our end."))
    grant = pinterest.refresh(http, app, access, refresh_token, now=clocks.ours.now)
    assert grant.access_token and grant.details is None


@pytest.mark.parametrize("how", ["revoked", "spent", "expired"])
def test_a_refresh_token_pinterest_refuses_is_auth_failed(http, app, clocks, emulator, how):
    access, refresh_token = emulator.issue_token(USER)
    if how == "revoked":
        emulator.revoke_tokens(USER)
    elif how == "spent":
        pinterest.refresh(http, app, access, refresh_token, now=clocks.ours.now)
    else:
        clocks.advance(60 * 86400)
    with pytest.raises(AuthFailed) as refused:
        pinterest.refresh(http, app, access, refresh_token, now=clocks.ours.now)
    assert "Invalid refresh token." in refused.value.reason and refresh_token not in refused.value.reason


# --- publishing --------------------------------------------------------------------------------

def test_an_image_pin_goes_to_the_accounts_one_board_with_its_words(step, job, clocks, emulator, media):
    item = {**image(media), "alt_text": "A red door"}
    done, _, _ = publish_to_the_end(step, job("The words", item, options={"title": "A title",
                                                                          "link": "https://shop.example/a"}), clocks)
    [pin] = pins(emulator)
    assert done.outcome.external_url == f"https://www.pinterest.com/pin/{pin.id}/"
    assert (pin.board_id, pin.media_type, pin.source) == (board(emulator), "image", item["url"])
    assert (pin.description, pin.title, pin.link, pin.alt_text) == ("The words", "A title", "https://shop.example/a",
                                                                    "A red door")
    [listed] = emulator.calls_to(*BOARDS)
    assert listed.query["page_size"] == "2"


def test_a_board_id_given_is_the_pins_and_no_board_is_looked_for(step, job, clocks, emulator, media):
    other = emulator.add_board("Recipes")
    publish_to_the_end(step, job("to recipes", image(media), options={"board_id": other.id}), clocks)
    [pin] = pins(emulator)
    assert pin.board_id == other.id and emulator.calls_to(*BOARDS) == []


def test_an_empty_caption_sends_no_description(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("", image(media)), clocks)
    [call] = emulator.calls_to(*PINS)
    assert "description" not in call.body and "title" not in call.body


@pytest.mark.parametrize("boards", [0, 2])
def test_without_a_board_id_an_account_of_several_boards_or_none_fails_option_rejected(step, job, clocks, emulator,
                                                                                      media, boards):
    made = job("where?", image(media))
    if boards:
        emulator.add_board("Recipes")
    else:
        boardless = emulator.add_user("boardless")
        made = dataclasses.replace(made, user_id=boardless.id, access_token=emulator.issue_token(boardless.id)[0])
    done, _, _ = publish_to_the_end(step, made, clocks)
    assert done.outcome.error_code == "platform_option_rejected" and "options.board_id" in done.outcome.error_message
    assert not emulator.calls_to(*PINS)


def test_a_video_pin_is_registered_uploaded_waited_for_and_pinned_with_its_cover(step, job, clocks, emulator,
                                                                                media):
    item = {**video(media, "six.mp4"), "alt_text": "A clip of a door"}
    done, results, _ = publish_to_the_end(step, job("a clip", item, options={"cover_at_ms": 2500,
                                                                             "title": "Clip"}), clocks)
    [pin] = pins(emulator)
    assert done.outcome.external_url == f"https://www.pinterest.com/pin/{pin.id}/"
    assert (pin.media_type, pin.cover, pin.alt_text, pin.title) == ("video", {"cover_image_key_frame_time": 2},
                                                                   "A clip of a door", "Clip")
    assert emulator.stored[pin.source] == hashlib.sha256(SIX_SECONDS).hexdigest()  # every byte, in order
    assert any(isinstance(r, Wait) for r in results)  # Pinterest processes it for 3 s
    [registered] = emulator.calls_to(*MEDIA)
    assert registered.body == {"media_type": "video"}


def test_a_videos_cover_is_its_first_frame_by_default(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("a clip", video(media, "six.mp4")), clocks)
    assert pins(emulator)[0].cover == {"cover_image_key_frame_time": 0}


def test_the_signed_upload_parameters_are_never_saved(step, job, clocks, emulator, media):
    run = step()
    publish_to_the_end(lambda **kw: run, job("a clip", video(media, "six.mp4")), clocks)
    assert run.saved and all("x-amz" not in str(saved) and "policy" not in str(saved) for saved in run.saved)


def test_a_video_pinterest_fails_to_process_is_rejected_media(step, job, clocks, emulator, media):
    emulator.fail_next_video("The file is corrupted")
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, "six.mp4")), clocks)
    assert done.outcome.error_code == "platform_rejected_media" and pins(emulator) == []


def test_a_video_under_four_seconds_is_refused_before_pinterest_is_called(step, job, emulator, media):
    done = pinterest.publish(step(), job("short", video(media, "clip.mp4")))  # 3 s
    assert done.outcome.error_code == "unsupported_media_for_platform" and not emulator.calls_to(*MEDIA)


# --- the mapping table, row by row ------------------------------------------------------------

# (row, call that answers, HTTP status, body, media kind) -> the target's code.
PINTEREST_ROWS = [
    ("401 code 2", PINS, 401, error(2, "Authentication failed."), "image", "platform_auth_expired"),
    ("403 code 29", PINS, 403, error(29, "You are not permitted to access that resource."), "image",
     "platform_auth_expired"),
    ("429 code 8", PINS, 429, error(8, "This request exceeded a rate limit."), "image", "platform_rate_limited"),
    ("429 on the media registration", MEDIA, 429, error(8, "This request exceeded a rate limit."), "video",
     "platform_rate_limited"),
    ("404 board not found", PINS, 404, error(40, "Board not found."), "image", "platform_option_rejected"),
    ("400 bad link", PINS, 400, error(1, "'ftp://a' is not a valid URL - 'link'"), "image",
     "platform_option_rejected"),
    ("400 bad board_id", PINS, 400, error(1, "'abc' does not match '^\\d+$' - 'board_id'"), "image",
     "platform_option_rejected"),
    ("400 description too long", PINS, 400, error(1, "'aaa...' is too long - 'description'"), "image",
     "caption_too_long"),
    ("400 could not fetch the image", PINS, 400, error(1, "Sorry, we could not fetch the image. - "
                                                          "'media_source.url'"), "image", "platform_rejected_media"),
    ("400 no cover", PINS, 400, error(1, "'cover_image_url or cover_image_content_type' is a required property - "
                                         "'media_source'"), "video", "platform_rejected_media"),
    ("400 from the upload store", STORE, 400, "<Error><Code>EntityTooLarge</Code></Error>", "video",
     "platform_rejected_media"),
    ("403 from the upload store", STORE, 403, "<Error><Code>AccessDenied</Code></Error>", "video",
     "unknown_platform_error"),
    ("anything else: an HTML page", PINS, 400, "<html>Bad Request</html>", "image", "unknown_platform_error"),
]


def item_of(kind: str, media) -> dict:
    return image(media) if kind == "image" else video(media, "six.mp4")


@pytest.mark.parametrize("row, call, status, body, kind, code", PINTEREST_ROWS, ids=[r[0] for r in PINTEREST_ROWS])
def test_each_pinterest_error_ends_in_its_target_code(step, job, clocks, emulator, media, row, call, status, body,
                                                      kind, code):
    emulator.fail(*call, status, body)
    done, _, _ = publish_to_the_end(step, job("hello", item_of(kind, media)), clocks)
    assert done.outcome.error_code == code
    said = body["message"] if isinstance(body, dict) else body
    assert said in done.outcome.error_message  # Pinterest's own words, or its raw answer
    assert pins(emulator) == []


def test_a_5xx_is_retried_and_then_pins_once(step, job, clocks, emulator, media):
    emulator.fail(*PINS, 503, error(0, "Something went wrong on our end. Sorry about that."))
    done, results, _ = publish_to_the_end(step, job("hello", image(media)), clocks)
    assert isinstance(results[0], Retry) and done.outcome.published and len(pins(emulator)) == 1


def test_the_unknown_error_carries_the_raw_answer_without_the_token(step, job, emulator, media, token):
    emulator.fail(*PINS, 400, {"code": 99, "message": f"odd {token}"})
    done = pinterest.publish(step(), job("hello", image(media)))
    assert done.outcome.error_code == "unknown_platform_error" and token not in done.outcome.error_message


# --- answers that break Pinterest's contract (fanout/platforms/contract.py) ----------------------

def test_a_pin_answered_without_its_id_is_found_on_its_board_and_never_sent_again(step, job, clocks, emulator, media):
    emulator.garble(*PINS, 201, {"board_id": "1"})  # pinned; no id
    done, results, _ = publish_to_the_end(step, job("pinned, unnamed", image(media)), clocks)
    [pin] = pins(emulator)
    assert results == [done] and done.outcome.external_url == f"https://www.pinterest.com/pin/{pin.id}/"
    assert len(emulator.calls_to(*PINS)) == 1 and len(emulator.calls_to(*BOARD_PINS)) == 1


def test_a_broken_answer_to_a_pin_that_is_not_on_its_board_fails_saying_nothing_was_published(
        step, job, clocks, emulator, media):
    emulator.fail(*PINS, 200, "<html>ok</html>")  # answered, nothing made
    done, results, _ = publish_to_the_end(step, job("not made", image(media)), clocks)
    assert results == [done] and done.outcome.error_code == "unknown_platform_error"
    assert "shows no such Pin on the board, so nothing was published" in done.outcome.error_message
    assert len(emulator.calls_to(*PINS)) == 1


def test_an_upload_url_off_pinterests_store_fails_at_once_sending_no_bytes(step, job, emulator, media):
    emulator.garble(*MEDIA, 201, {"media_id": "5150000000000000001", "upload_url": "https://127.0.0.2:9/",
                                  "upload_parameters": {"key": "k"}})
    done = pinterest.publish(step(), job("a clip", video(media, "six.mp4")))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "an upload URL at https://127.0.0.2:9, not https on one of its hosts" in done.outcome.error_message
    assert not emulator.calls_to(*STORE) and not emulator.calls_to(*PINS)


def test_a_media_status_pinterest_does_not_list_fails_at_once(step, job, clocks, emulator, media):
    emulator.garble("GET", r"/v5/media/\d+$", 200, {"status": "thinking"}, times=None)
    done, _, _ = publish_to_the_end(step, job("a clip", video(media, "six.mp4")), clocks)
    assert done.outcome.error_code == "unknown_platform_error" and not emulator.calls_to(*PINS)
    assert "the video's status with status 'thinking', not one of registered" in done.outcome.error_message


# --- never twice -----------------------------------------------------------------------------

def test_the_marker_is_saved_before_the_pin_is_sent(step, job, emulator, media):
    run = step()
    pinterest.publish(run, job("marked", image(media)))
    [at] = [i for i, call in enumerate(emulator.calls) if call.path == "/v5/pins"]
    assert dict(zip(run.calls_at_save, run.saved))[at]["sending"] == START.isoformat()
    assert run.saved[-1]["pin"] == pins(emulator)[0].id and "sending" not in run.saved[-1]


def test_a_pin_whose_answer_is_lost_is_found_on_its_board_and_not_sent_again(step, job, clocks, emulator, media):
    emulator.drop(*PINS)  # pinned, then the connection is closed
    first = pinterest.publish(step(), job("maybe pinned", image(media)))
    assert isinstance(first, Retry) and first.state["sending"] and len(pins(emulator)) == 1
    clocks.to(first.after)
    done = pinterest.publish(step(), dataclasses.replace(job("maybe pinned", image(media)), state=first.state))
    [pin] = pins(emulator)
    assert done.outcome.external_url.endswith(f"/pin/{pin.id}/") and len(emulator.calls_to(*PINS)) == 1


def test_a_pin_that_never_arrived_is_sent_again(step, job, clocks, emulator, media):
    emulator.drop(*PINS, after_effect=False)
    first = pinterest.publish(step(), job("not there yet", image(media)))
    clocks.to(first.after)
    done = pinterest.publish(step(), dataclasses.replace(job("not there yet", image(media)), state=first.state))
    [pin] = pins(emulator)
    assert done.outcome.external_url.endswith(f"/pin/{pin.id}/") and len(emulator.calls_to(*PINS)) == 2


def test_an_older_pin_of_the_same_words_on_the_board_is_not_taken_for_it(step, job, clocks, emulator, media):
    publish_to_the_end(step, job("same words", image(media)), clocks)
    clocks.advance(3600)
    emulator.drop(*PINS, after_effect=False)
    first = pinterest.publish(step(), job("same words", image(media)))
    clocks.to(first.after)
    pinterest.publish(step(), dataclasses.replace(job("same words", image(media)), state=first.state))
    assert len(pins(emulator)) == 2


class Unsent:
    """The platform client of a worker whose create never leaves (a refused connection)."""

    def __init__(self, inner):
        self.inner = inner

    def url(self, url):
        return self.inner.url(url)

    def request(self, method, url, **kwargs):
        if method == "POST" and url.endswith("/v5/pins"):
            raise PlatformUnreachable("api.pinterest.com: connection failed", sent=False)
        return self.inner.request(method, url, **kwargs)


def test_a_create_that_never_left_takes_its_marker_back(step, job, emulator, media):
    run = step()
    run.http = Unsent(run.http)
    first = pinterest.publish(run, job("never left", image(media)))
    assert isinstance(first, Retry) and "sending" not in first.state and emulator.calls_to(*BOARD_PINS) == []


def test_a_read_back_pinterest_refuses_fails_saying_the_pin_may_be_out(step, job, clocks, emulator, media):
    emulator.drop(*PINS)
    first = pinterest.publish(step(), job("maybe pinned", image(media)))
    emulator.fail(*BOARD_PINS, 403, error(29, "You are not permitted to access that resource."))
    clocks.to(first.after)
    done = pinterest.publish(step(), dataclasses.replace(job("maybe pinned", image(media)), state=first.state))
    assert done.outcome.error_code == "platform_auth_expired"
    assert "Pinterest may have published it all the same" in done.outcome.error_message
    assert len(emulator.calls_to(*PINS)) == 1


def test_a_read_back_that_breaks_the_contract_fails_saying_the_pin_may_be_out(step, job, clocks, emulator, media):
    emulator.drop(*PINS)
    first = pinterest.publish(step(), job("maybe pinned", image(media)))
    emulator.garble(*BOARD_PINS, 200, "<html>")
    clocks.to(first.after)
    done = pinterest.publish(step(), dataclasses.replace(job("maybe pinned", image(media)), state=first.state))
    assert done.outcome.error_code == "unknown_platform_error"
    assert "Pinterest may have published it all the same" in done.outcome.error_message


@pytest.mark.parametrize("kind", ["image", "video"])
@pytest.mark.parametrize("killed_after", range(6))
def test_a_worker_killed_after_any_save_leaves_exactly_one_pin(step, job, clocks, emulator, media, kind,
                                                               killed_after):
    done, _, _ = steps.publish_after_a_death(pinterest, step, job("only once", item_of(kind, media)), clocks,
                                             killed_after, may_outlive=True)
    [pin] = pins(emulator)
    assert done.outcome.external_url.endswith(f"/pin/{pin.id}/")


@pytest.mark.parametrize("killed_after", range(3))
def test_a_worker_killed_after_any_save_of_a_video_pins_last_step_leaves_exactly_one_pin(
        step, job, clocks, emulator, media, killed_after):
    made = job("only once", video(media, "six.mp4"))
    waiting = pinterest.publish(step(), made)
    assert isinstance(waiting, Wait)
    clocks.to(waiting.until + dt.timedelta(seconds=3))
    done, _, _ = steps.publish_after_a_death(pinterest, step, dataclasses.replace(made, state=waiting.state), clocks,
                                             killed_after, may_outlive=True)
    [pin] = pins(emulator)
    assert done.outcome.external_url.endswith(f"/pin/{pin.id}/") and len(emulator.calls_to(*MEDIA)) == 1
