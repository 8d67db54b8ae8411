"""Live Pinterest end to end, through HTTP only: the app on a real loopback server with a
Pinterest app and the Pinterest emulator's hosts (www.pinterest.com, api.pinterest.com, the
upload store), a browser for the OAuth flow, a media server; the queue is run by the test,
at the test's clock, as a worker would. Connect (the account and its boards), image and
video Pins with board, title, link and alt text, the board a post must name (400 at upload
when it can be seen missing), the caps, the refresh before expiry and the account expired
when it is refused, the mapping table of docs/platforms.md#pinterest row by row through the
engine, sandbox accounts and Pins, and never twice when a worker dies at any call.
"""
from __future__ import annotations

import datetime as dt

import pytest
import requests

from fanout.platforms.base import App
from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.pinterest import PinterestEmulator
from ...threads_world import accounts, connect, connect_link, only_target, query_of, run_for, serve_app, served_with
from ..live import connected_account, stored, uploader
from ..threads.test_live import publish_with_a_death
from .test_adapter import PINS, PINTEREST_ROWS, USER, USERNAME, error, item_of

AUTH_ROWS = {row for row, *_, code in PINTEREST_ROWS if code == "platform_auth_expired"}


@pytest.fixture(scope="module")
def pin_server():
    with PinterestEmulator("pin-client-id", "pin-client-secret") as server:
        yield server


@pytest.fixture
def settings(settings, port, pin_server):
    return served_with(settings, port, {"pinterest": (pin_server, App("pin-client-id", "pin-client-secret"))})


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


@pytest.fixture
def pin(pin_server, live, clock):
    """The emulator, its clock at the test's (token ends are told as instants), the app's
    redirect URI registered."""
    pin_server.reset()
    pin_server.set_clock(clock.now)
    pin_server.configure(video_seconds=3, pin_writes_per_minute=100,
                         redirect_uris=[f"{live}/connect/pinterest/callback"])
    yield pin_server
    assert not pin_server.errors, pin_server.errors[0]


@pytest.fixture
def account(browser, live, headers, pin) -> str:
    return connected_account(browser, live, headers, "pinterest")


upload = uploader("pinterest")


def pins(pin) -> list:
    return pin.pins[USER]


def pin_url(made) -> str:
    return f"https://www.pinterest.com/pin/{made.id}/"


def photo(media, **fields) -> dict:
    return {"url": media.url("photo.jpg"), "type": "image", **fields}


# --- connect -------------------------------------------------------------------------------

def test_connecting_adds_an_active_account_named_by_the_pinterest_username(browser, live, headers, pin):
    query = connect(browser, live, headers, "pinterest")
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "pinterest", USERNAME, "active")
    assert stored(query["account_id"]).platform_user_id == USER


def test_the_consent_asks_for_the_four_scopes(browser, live, headers, pin):
    to_platform = browser.get(connect_link(live, headers, "pinterest"), allow_redirects=False, timeout=10)
    assert query_of(to_platform.headers["location"])["scope"] == "boards:read,pins:read,pins:write,user_accounts:read"


def test_a_user_who_says_no_comes_back_as_access_denied(browser, live, headers, pin):
    pin.deny_consent()
    assert connect(browser, live, headers, "pinterest")["error"] == "access_denied"


def test_connecting_the_same_user_again_is_the_same_account(browser, live, headers, pin):
    first = connect(browser, live, headers, "pinterest")["account_id"]
    assert connect(browser, live, headers, "pinterest")["account_id"] == first and len(accounts(live, headers)) == 1


def board_list(live, headers, account: str) -> dict:
    answer = requests.get(f"{live}/v1/accounts/{account}/boards", headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_accounts_boards_read_at_connect_are_readable_through_the_api(browser, live, headers, pin, clock):
    recipes = pin.add_board("Recipes")
    account = connected_account(browser, live, headers, "pinterest")
    [first, _] = pin.boards[USER]
    assert board_list(live, headers, account) == {"data": [
        {"id": first.id, "name": f"{USERNAME}'s board", "privacy": "public"},
        {"id": recipes.id, "name": "Recipes", "privacy": "public"}], "read_at": clock.now.strftime(
            "%Y-%m-%dT%H:%M:%S.000Z")}
    calls = len(pin.calls)
    board_list(live, headers, account)
    assert len(pin.calls) == calls  # Pinterest is not asked


# --- publishing ----------------------------------------------------------------------------

def test_an_image_pin_publishes_with_its_board_title_link_and_alt_text(live, headers, account, pin, media, rt, clock):
    other = pin.add_board("Recipes")
    post = upload(live, headers, "The words", [photo(media, alt_text="A red door")], overrides={"pinterest": {
        "options": {"board_id": other.id, "title": "A title", "link": "https://shop.example.com/a"}}})
    run_queue(rt, clock)
    [made] = pins(pin)
    assert only_target(live, headers, post["id"])["external_url"] == pin_url(made)
    assert (made.board_id, made.description, made.title, made.link, made.alt_text) == (
        other.id, "The words", "A title", "https://shop.example.com/a", "A red door")


def test_a_video_pin_publishes_after_processing_with_its_board_title_link_and_alt_text(
        live, headers, account, pin, media, rt, clock):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    item = {"url": media.url("six.mp4"), "type": "video", "alt_text": "A clip of a door"}
    board = pin.boards[USER][0].id
    post = upload(live, headers, "a clip", [item], overrides={"pinterest": {"options": {
        "board_id": board, "title": "Clip", "link": "https://shop.example.com/clip", "cover_at_ms": 1000}}})
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing" and pins(pin) == []
    run_for(rt, clock, pin, 20, every=2)
    [made] = pins(pin)
    assert only_target(live, headers, post["id"])["external_url"] == pin_url(made)
    assert (made.media_type, made.board_id, made.title, made.link, made.alt_text, made.cover) == (
        "video", board, "Clip", "https://shop.example.com/clip", "A clip of a door", {"cover_image_key_frame_time": 1})


def test_an_account_of_one_board_needs_no_board_id(live, headers, account, pin, media, rt, clock):
    post = upload(live, headers, "to the one board", [photo(media)])
    run_queue(rt, clock)
    [made] = pins(pin)
    assert made.board_id == pin.boards[USER][0].id and only_target(live, headers, post["id"])["status"] == "published"


def test_an_account_of_several_boards_without_a_board_id_is_400_at_upload(browser, live, headers, pin, media):
    pin.add_board("Recipes")
    account = connected_account(browser, live, headers, "pinterest")  # its two boards are read now
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "where?", "platforms": ["pinterest"], "media": [photo(media)]})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == {"code": "validation_error", "message": (
        f"overrides.pinterest.options.board_id is required: Pinterest account {account} has 2 boards "
        f"(GET /v1/accounts/{account}/boards lists them)")}
    preflight = requests.post(f"{live}/v1/upload/preflight", headers=headers, timeout=10, json={
        "caption": "where?", "platforms": ["pinterest"], "media": [photo(media)]})
    assert preflight.status_code == 400 and preflight.json() == answer.json()


def test_a_board_made_since_the_connect_fails_the_target_option_rejected(live, headers, account, pin, media, rt,
                                                                         clock):
    pin.add_board("Made since")  # the account's kept boards say one: the upload lets it through
    post = upload(live, headers, "where?", [photo(media)])
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "platform_option_rejected" and "options.board_id" in failed["error_message"]


def test_a_description_over_800_characters_fails_before_any_call(live, headers, account, pin, media, rt, clock):
    pin.reset()
    post = upload(live, headers, "d" * 801, [photo(media)])
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "caption_too_long" and "pinterest allows 800" in failed["error_message"]
    assert pin.calls == []


@pytest.mark.parametrize(("media_items", "words"), [
    ("none", "a text-only post is not possible"),
    ("two", "pinterest takes at most 1 image"),
    ("alt", "alt_text is 501 characters; pinterest allows 500"),
])
def test_what_a_pin_cannot_carry_is_422_at_upload(live, headers, account, pin, media, media_items, words):
    given = {"none": [], "two": [photo(media), photo(media)], "alt": [photo(media, alt_text="a" * 501)]}[media_items]
    answer = upload(live, headers, "no", given, expect=422)
    assert answer["error"]["code"] == "unsupported_media_for_platform" and words in answer["error"]["message"]


def test_a_title_over_100_or_a_link_that_is_not_http_is_400_at_upload(live, headers, account, pin, media):
    for options in ({"title": "t" * 101}, {"link": "ftp://files.example.com/a"}, {"board_id": "abc"}):
        answer = upload(live, headers, "no", [photo(media)], expect=400, overrides={"pinterest": {"options": options}})
        assert answer["error"]["code"] == "validation_error"


# --- tokens --------------------------------------------------------------------------------

def test_the_token_is_refreshed_a_day_before_its_30_days_and_the_boards_read_again(
        live, headers, account, pin, media, rt, clock):
    before = stored(account)
    assert before.refresh_at <= before.token_expires_at - dt.timedelta(days=1)
    pin.add_board("Made since")
    clock.advance(days=29, hours=1)
    pin.advance((29 * 24 + 1) * 3600)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.access_token) != rt.keyring.decrypt(before.access_token)
    assert rt.keyring.decrypt(after.refresh_token) != rt.keyring.decrypt(before.refresh_token)
    answer = upload(live, headers, "where now?", [photo(media)], expect=400)  # two boards known now
    assert "has 2 boards" in answer["error"]["message"]
    assert [b["name"] for b in board_list(live, headers, account)["data"]] == [f"{USERNAME}'s board", "Made since"]
    board = pin.boards[USER][1].id
    post = upload(live, headers, "with the renewed token", [photo(media)],
                  overrides={"pinterest": {"options": {"board_id": board}}})
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "published"


def test_a_refresh_pinterest_refuses_expires_the_account(live, headers, account, pin, rt, clock):
    pin.revoke_tokens(USER)
    clock.advance(days=29, hours=1)
    pin.advance((29 * 24 + 1) * 3600)
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}
    assert stored(account).status == "expired"


# --- sandbox -------------------------------------------------------------------------------

def test_a_sandbox_account_has_one_board_and_pins_without_pinterest(client, auth, pin, rt, clock):
    started = client.post("/v1/accounts/pinterest/connect", headers=auth, json={})
    landed = client.get(started.json()["url"].replace(rt.settings.connect_url, ""), follow_redirects=False)
    assert query_of(landed.headers["location"])["status"] == "connected"
    answer = client.post("/v1/upload", headers=auth, json={
        "caption": "hello", "platforms": ["pinterest"], "media": [{"url": "https://cdn.example.com/a.jpg",
                                                                    "type": "image"}]})
    assert answer.status_code == 201, answer.text
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["status"] == "published" and "/sandbox/pinterest/" in target["external_url"]
    assert pin.calls == []


# --- never twice -----------------------------------------------------------------------------

def test_a_pin_whose_answer_is_lost_is_published_once(live, headers, account, pin, media, rt, clock):
    pin.drop(*PINS)
    post = upload(live, headers, "said once", [photo(media)])
    run_for(rt, clock, pin, 120, every=30)
    [made] = pins(pin)
    assert only_target(live, headers, post["id"])["external_url"] == pin_url(made)
    assert len(pin.calls_to(*PINS)) == 1


@pytest.mark.parametrize("kind", ["image", "video"])
@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_leaves_exactly_one_pin(live, headers, account, pin, media, rt, clock, kind,
                                                            after):
    pin.configure(video_seconds=0)  # every call of the publish in its first step, the create's too
    n = 1
    while True:
        pin.set_clock(clock.now)  # the clocks agree, as servers' do: the sweeper's wait moved ours alone
        before = len(pins(pin))
        post = upload(live, headers, f"death at call {n} {after}", [item_of(kind, media)])
        died = publish_with_a_death(rt, clock, n, after)
        run_for(rt, clock, pin, 20, every=2)  # Pinterest's clock catches up: the video is processed
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(pins(pin)) == before + 1, f"death at call {n}: {len(pins(pin)) - before} Pins"
        assert published["external_url"] == pin_url(pins(pin)[-1]), (n, published)
        if not died:
            break
        n += 1
    assert n > (2 if kind == "image" else 5)  # the boards, then the Pin; or the media, the store, its status first


# --- the mapping table, through the engine ------------------------------------------------------

@pytest.mark.parametrize("row, call, status, body, kind, code", PINTEREST_ROWS, ids=[r[0] for r in PINTEREST_ROWS])
def test_each_pinterest_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, pin, media, rt, clock, row, call, status, body, kind, code):
    pin.fail(*call, status, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        pin.revoke_tokens(USER)  # the refresh the auth error earns is refused too
    post = upload(live, headers, "hello", [item_of(kind, media)])
    run_for(rt, clock, pin, 20, every=2)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")
    assert pins(pin) == []


def test_a_5xx_through_the_engine_is_retried_then_ends_unknown(live, headers, account, pin, media, rt, clock):
    pin.fail(*PINS, 503, error(0, "Something went wrong on our end. Sorry about that."), times=None)
    post = upload(live, headers, "hello", [photo(media)])
    run_for(rt, clock, pin, 4 * 3600, every=1800)
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "unknown_platform_error" and "gave up after 5 retries" in failed["error_message"]
