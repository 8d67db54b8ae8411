"""The Pinterest emulator against Pinterest's documentation, as the platform reference's
Pinterest section compiles it:
the consent page and the token endpoint with HTTP Basic, continuous refresh, the account,
scopes, boards page by page, PinCreate's checks, image Pins fetched by URL, video uploads
through the S3 store, processing on the emulator's clock, the reads back, the Pin-write
quota, and the controls over HTTP."""
from __future__ import annotations

import base64
import datetime as dt
import json

import pytest
import requests

from ..clock import EmulatorClock
from ..conftest import START, redirect_query, run_by_hand, serving
from ..media import jpeg_bytes, mp4_bytes, png_bytes
from ..media.server import MediaServer
from . import PinterestEmulator

USER, USERNAME = "1150000000000000001", "emu_pinterest"
REDIRECT = "https://fanout.example/connect/pinterest/callback"
SCOPES = "boards:read,pins:read,pins:write,user_accounts:read"


@pytest.fixture
def pinterest():
    yield from serving(PinterestEmulator("app-id", "app-secret", redirect_uris=[REDIRECT], clock=EmulatorClock(START)))


@pytest.fixture(scope="module")
def files():
    with MediaServer() as server:
        server.put("/photo.jpg", jpeg_bytes(), "image/jpeg")
        server.put("/photo.png", png_bytes(), "image/png")
        server.put("/notes.txt", b"not an image", "text/plain")
        server.put("/clip.mp4", mp4_bytes(6), "video/mp4")
        server.put("/short.mp4", mp4_bytes(2), "video/mp4")
        yield server


@pytest.fixture
def token(pinterest) -> str:
    return pinterest.issue_token()[0]


def api(pinterest, method: str, path: str, token: str | None, **kwargs) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.request(method, f"{pinterest.base_url}/v5{path}", headers=headers, timeout=10, **kwargs)


def basic(client_id: str = "app-id", secret: str = "app-secret") -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()}


def token_call(pinterest, form: dict, headers: dict | None = None) -> requests.Response:
    return requests.post(f"{pinterest.base_url}/v5/oauth/token", data=form, headers=basic() if headers is None
                         else headers, timeout=10)


def consent(pinterest, **params) -> dict:
    query = {"client_id": "app-id", "redirect_uri": REDIRECT, "response_type": "code", "scope": SCOPES,
             "state": "st-1", **params}
    return redirect_query(requests.get(f"{pinterest.base_url}/oauth/", params=query, allow_redirects=False,
                                       timeout=10))


def error(answer: requests.Response, status: int) -> dict:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"code", "message"} and isinstance(body["code"], int)
    return body


def board_of(pinterest, user: str = USER) -> str:
    return pinterest.boards[user][0].id


# --- OAuth ------------------------------------------------------------------------------------

def test_the_consent_page_sends_a_code_back_with_the_state(pinterest):
    assert set(consent(pinterest)) == {"code", "state"}


def test_scopes_may_be_written_with_spaces_too(pinterest):
    assert "code" in consent(pinterest, scope=SCOPES.replace(",", " "))


def test_a_user_who_says_no_comes_back_with_access_denied(pinterest):
    pinterest.deny_consent()
    assert consent(pinterest) == {"error": "access_denied", "state": "st-1"}


def test_an_unregistered_redirect_uri_or_client_is_an_error_page(pinterest):
    for params in ({"redirect_uri": "https://elsewhere.example/cb"}, {"client_id": "other"}):
        answer = requests.get(f"{pinterest.base_url}/oauth/", allow_redirects=False, timeout=10, params={
            "client_id": "app-id", "redirect_uri": REDIRECT, "response_type": "code", "scope": SCOPES, **params})
        assert answer.status_code == 400 and "text/html" in answer.headers["Content-Type"]


def test_the_code_is_exchanged_once_with_the_apps_basic_credentials(pinterest):
    code = consent(pinterest)["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT}
    answer = token_call(pinterest, form)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["access_token"].startswith("pina_") and body["refresh_token"].startswith("pinr_")
    assert (body["token_type"], body["response_type"], body["expires_in"], body["refresh_token_expires_in"]) == (
        "bearer", "authorization_code", 30 * 86400, 60 * 86400)
    assert body["scope"] == SCOPES
    assert error(token_call(pinterest, form), 400)["message"] == "Invalid authorization code."


def test_the_token_call_without_the_right_basic_credentials_is_401_code_2(pinterest):
    code = consent(pinterest)["code"]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT}
    for headers in ({}, basic(secret="wrong")):
        assert error(token_call(pinterest, form, headers), 401) == {"code": 2, "message": "Authentication failed."}
    assert token_call(pinterest, form).status_code == 200  # the refusals spent nothing


def test_a_code_lives_ten_minutes_and_needs_its_redirect_uri(pinterest):
    form = {"grant_type": "authorization_code", "code": consent(pinterest)["code"], "redirect_uri": REDIRECT + "x"}
    assert token_call(pinterest, form).status_code == 400
    form = {"grant_type": "authorization_code", "code": consent(pinterest)["code"], "redirect_uri": REDIRECT}
    pinterest.advance(600)
    assert token_call(pinterest, form).status_code == 400


def test_a_refresh_answers_a_new_pair_and_the_spent_refresh_token_stops(pinterest):
    access, refresh = pinterest.issue_token()
    pinterest.advance(59 * 86400)
    answer = token_call(pinterest, {"grant_type": "refresh_token", "refresh_token": refresh})
    body = answer.json()
    assert answer.status_code == 200 and body["response_type"] == "refresh_token"
    assert body["refresh_token"] != refresh and body["refresh_token_expires_in"] == 60 * 86400
    assert api(pinterest, "GET", "/user_account", body["access_token"]).status_code == 200
    assert error(token_call(pinterest, {"grant_type": "refresh_token", "refresh_token": refresh}), 400)[
        "message"] == "Invalid refresh token."


def test_an_expired_or_revoked_refresh_token_is_refused(pinterest):
    _, refresh = pinterest.issue_token()
    pinterest.advance(60 * 86400)
    assert token_call(pinterest, {"grant_type": "refresh_token", "refresh_token": refresh}).status_code == 400
    _, refresh = pinterest.issue_token()
    pinterest.revoke_tokens()
    assert token_call(pinterest, {"grant_type": "refresh_token", "refresh_token": refresh}).status_code == 400


def test_the_account_names_the_user(pinterest, token):
    body = api(pinterest, "GET", "/user_account", token).json()
    assert (body["id"], body["username"], body["account_type"], body["board_count"]) == (USER, USERNAME,
                                                                                        "BUSINESS", 1)


@pytest.mark.parametrize("how", ["none", "unknown", "expired", "revoked"])
def test_a_token_that_does_not_sign_in_is_401_code_2(pinterest, token, how):
    used = {"none": None, "unknown": "pina_nope", "expired": token, "revoked": token}[how]
    if how == "expired":
        pinterest.advance(30 * 86400)
    if how == "revoked":
        pinterest.revoke_tokens()
    assert error(api(pinterest, "GET", "/boards", used), 401) == {"code": 2, "message": "Authentication failed."}


def test_a_token_without_the_scope_is_403_code_29(pinterest):
    token = pinterest.issue_token(scopes=["user_accounts:read"])[0]
    assert error(api(pinterest, "POST", "/pins", token, json={}), 403)["code"] == 29
    assert error(api(pinterest, "GET", "/boards", token), 403)["code"] == 29
    without = pinterest.issue_token(scopes=["boards:read"])[0]
    assert error(api(pinterest, "GET", "/user_account", without), 403) == {
        "code": 403, "message": "Not authorized to access the user account."}


# --- boards -------------------------------------------------------------------------------------

def test_boards_come_page_by_page_following_the_bookmark(pinterest, token):
    for n in range(4):
        pinterest.add_board(f"board {n}")
    first = api(pinterest, "GET", "/boards", token, params={"page_size": 2}).json()
    second = api(pinterest, "GET", "/boards", token, params={"page_size": 2, "bookmark": first["bookmark"]}).json()
    third = api(pinterest, "GET", "/boards", token, params={"page_size": 2, "bookmark": second["bookmark"]}).json()
    names = [b["name"] for page in (first, second, third) for b in page["items"]]
    assert names == [f"{USERNAME}'s board", "board 0", "board 1", "board 2", "board 3"]
    assert third["bookmark"] is None and {"id", "name", "owner", "privacy"} <= set(first["items"][0])
    assert error(api(pinterest, "GET", "/boards", token, params={"page_size": 251}), 400)["code"] == 1


def test_secret_boards_need_boards_read_secret(pinterest, token):
    pinterest.add_board("hidden", privacy="SECRET")
    assert len(api(pinterest, "GET", "/boards", token).json()["items"]) == 1
    secret = pinterest.issue_token(scopes=["boards:read", "boards:read_secret"])[0]
    assert len(api(pinterest, "GET", "/boards", secret).json()["items"]) == 2


# --- Pins ---------------------------------------------------------------------------------------

def pin_body(pinterest, source: dict, **fields) -> dict:
    return {"board_id": board_of(pinterest), "media_source": source, **fields}


def image_source(files, name: str = "photo.jpg") -> dict:
    return {"source_type": "image_url", "url": files.url(name)}


def test_an_image_pin_is_made_from_a_url_pinterest_fetches(pinterest, token, files):
    answer = api(pinterest, "POST", "/pins", token, json=pin_body(
        pinterest, image_source(files), title="A title", description="The words", link="https://shop.example/a",
        alt_text="A red door"))
    assert answer.status_code == 201, answer.text
    pin = answer.json()
    [made] = pinterest.pins[USER]
    assert (pin["id"], pin["board_id"], pin["title"], pin["description"], pin["link"], pin["alt_text"]) == (
        made.id, board_of(pinterest), "A title", "The words", "https://shop.example/a", "A red door")
    assert pin["media"]["media_type"] == "image" and made.permalink == f"https://www.pinterest.com/pin/{made.id}/"
    assert dt.datetime.fromisoformat(pin["created_at"]) == START.replace(tzinfo=None)


@pytest.mark.parametrize("name", ["notes.txt", "missing.jpg"])
def test_an_image_pinterest_cannot_fetch_is_refused(pinterest, token, files, name):
    body = error(api(pinterest, "POST", "/pins", token, json=pin_body(pinterest, image_source(files, name))), 400)
    assert "Sorry, we could not fetch the image." in body["message"] and pinterest.pins[USER] == []


@pytest.mark.parametrize(("fields", "words"), [
    ({"board_id": "abc"}, "'abc' does not match '^\\d+$' - 'board_id'"),
    ({"board_id": None}, "'board_id' is a required property"),
    ({"title": "t" * 101}, "is too long - 'title'"),
    ({"description": "d" * 801}, "is too long - 'description'"),
    ({"alt_text": "a" * 501}, "is too long - 'alt_text'"),
    ({"link": "ftp://files.example/a"}, "is not a valid URL - 'link'"),
    ({"link": "https://x.example/" + "p" * 2048}, "is too long - 'link'"),
    ({"media_source": {"source_type": "carousel"}}, "- 'media_source.source_type'"),
])
def test_pin_create_checks_its_schema_naming_the_field(pinterest, token, files, fields, words):
    body = pin_body(pinterest, image_source(files))
    body.update(fields)
    body = {k: v for k, v in body.items() if v is not None}
    assert words in error(api(pinterest, "POST", "/pins", token, json=body), 400)["message"]
    assert pinterest.pins[USER] == []


def test_a_board_that_is_not_the_users_is_404_board_not_found(pinterest, token, files):
    other = pinterest.add_user("someone_else", board="theirs")
    for board_id in ("1", board_of(pinterest, other.id)):
        body = {"board_id": board_id, "media_source": image_source(files)}
        assert error(api(pinterest, "POST", "/pins", token, json=body), 404) == {"code": 40, "message": "Board not found."}


def test_past_the_users_pin_writes_of_the_minute_it_is_429_code_8(pinterest, token, files):
    pinterest.exhaust()
    assert error(api(pinterest, "POST", "/pins", token, json=pin_body(pinterest, image_source(files))), 429)[
        "code"] == 8
    pinterest.advance(61)
    assert api(pinterest, "POST", "/pins", token, json=pin_body(pinterest, image_source(files))).status_code == 201


def test_pins_are_read_back_one_by_one_and_by_board_newest_first(pinterest, token, files):
    ids = [api(pinterest, "POST", "/pins", token, json=pin_body(pinterest, image_source(files), title=f"n{n}"))
           .json()["id"] for n in range(3)]
    assert api(pinterest, "GET", f"/pins/{ids[1]}", token).json()["title"] == "n1"
    listed = api(pinterest, "GET", f"/boards/{board_of(pinterest)}/pins", token, params={"page_size": 2}).json()
    assert [p["id"] for p in listed["items"]] == ids[:0:-1] and listed["bookmark"]
    assert error(api(pinterest, "GET", "/pins/1", token), 404) == {"code": 50, "message": "Pin not found."}


# --- video Pins -------------------------------------------------------------------------------------

def register(pinterest, token) -> dict:
    answer = api(pinterest, "POST", "/media", token, json={"media_type": "video"})
    assert answer.status_code == 201, answer.text
    return answer.json()


def store(pinterest, registered: dict, data: bytes, *, drop: str | None = None, file_first: bool = False,
          **changed) -> requests.Response:
    fields = [(k, (None, changed.get(k, v))) for k, v in registered["upload_parameters"].items() if k != drop]
    parts = [("file", ("clip.mp4", data, "video/mp4"))]
    parts = parts + fields if file_first else fields + parts
    return requests.post(pinterest.base_url + "/", files=parts, timeout=10)


def status(pinterest, token, media_id: str) -> str:
    return api(pinterest, "GET", f"/media/{media_id}", token).json()["status"]


def test_a_video_is_registered_stored_by_its_policy_and_processed(pinterest, token):
    registered = register(pinterest, token)
    assert registered["upload_url"] == "https://pinterest-media-upload.s3-accelerate.amazonaws.com/"
    assert {"x-amz-date", "x-amz-signature", "x-amz-security-token", "x-amz-algorithm", "key", "policy",
            "x-amz-credential", "Content-Type"} == set(registered["upload_parameters"])
    media_id = registered["media_id"]
    assert status(pinterest, token, media_id) == "registered"
    assert store(pinterest, registered, mp4_bytes(6)).status_code == 204
    assert status(pinterest, token, media_id) == "processing"
    pinterest.advance(3)
    assert status(pinterest, token, media_id) == "succeeded"


@pytest.mark.parametrize(("how", "answered"), [
    ({"drop": "policy"}, 403), ({"x-amz-signature": "0" * 64}, 403), ({"file_first": True}, 400)])
def test_the_store_refuses_a_post_without_its_fields_as_handed_out_or_the_file_last(pinterest, token, how, answered):
    registered = register(pinterest, token)
    answer = store(pinterest, registered, mp4_bytes(6), **how)
    assert answer.status_code == answered and answer.text.startswith("<?xml") and "<Error><Code>" in answer.text
    assert status(pinterest, token, registered["media_id"]) == "registered"


@pytest.mark.parametrize("data", [mp4_bytes(2), b"plain bytes, no video"], ids=["2-seconds", "not-a-video"])
def test_a_video_too_short_or_not_a_video_fails_processing(pinterest, token, data):
    registered = register(pinterest, token)
    store(pinterest, registered, data)
    pinterest.advance(3)
    assert status(pinterest, token, registered["media_id"]) == "failed"


def video_pin(pinterest, token, media_id: str, **source) -> requests.Response:
    return api(pinterest, "POST", "/pins", token, json=pin_body(pinterest, {
        "source_type": "video_id", "media_id": media_id, **source}, title="A clip"))


def test_a_video_pin_needs_the_processed_media_and_a_cover(pinterest, token):
    registered = register(pinterest, token)
    media_id = registered["media_id"]
    store(pinterest, registered, mp4_bytes(6))
    assert "is processing, not succeeded" in error(video_pin(pinterest, token, media_id,
                                                             cover_image_key_frame_time=1), 400)["message"]
    pinterest.advance(3)
    assert "cover_image_url or cover_image_content_type" in error(video_pin(pinterest, token, media_id), 400)[
        "message"]
    answer = video_pin(pinterest, token, media_id, cover_image_key_frame_time=2)
    assert answer.status_code == 201 and answer.json()["media"]["media_type"] == "video"
    assert pinterest.pins[USER][0].cover == {"cover_image_key_frame_time": 2}


def test_a_video_pin_of_media_not_the_users_is_404(pinterest, token):
    assert error(video_pin(pinterest, token, "5150000000000000999", cover_image_key_frame_time=0), 404)["code"] == 41


def test_fail_next_video_makes_the_next_upload_fail(pinterest, token):
    pinterest.fail_next_video()
    registered = register(pinterest, token)
    store(pinterest, registered, mp4_bytes(6))
    pinterest.advance(3)
    assert status(pinterest, token, registered["media_id"]) == "failed"


# --- controls, by hand -----------------------------------------------------------------------------

def test_the_controls_answer_over_http(pinterest):
    made = requests.post(f"{pinterest.base_url}/_emulator/add_board", json={"name": "Recipes"}, timeout=10).json()
    assert made["result"]["name"] == "Recipes" and len(pinterest.boards[USER]) == 2
    boards = requests.get(f"{pinterest.base_url}/_emulator/boards", timeout=10).json()
    assert [b["name"] for b in boards[USER]] == [f"{USERNAME}'s board", "Recipes"]
    pinterest.reset()
    assert len(pinterest.boards[USER]) == 1  # the boards made since construction are forgotten


def test_secrets_are_masked_in_the_call_log(pinterest):
    _, refresh = pinterest.issue_token()
    token_call(pinterest, {"grant_type": "refresh_token", "refresh_token": refresh})
    [call] = pinterest.calls_to("POST", "/v5/oauth/token")
    assert call.body["refresh_token"] == "***" and refresh not in json.dumps(call.body)


@pytest.mark.slow
def test_it_runs_by_hand_and_prints_its_settings():
    with run_by_hand("pinterest", "--port", "0", "--board", "Recipes") as (base_url, settings):
        assert settings["FANOUT_PINTEREST_CLIENT_ID"] == "pinterest-app-id"
        assert f"api.pinterest.com={base_url}" in settings["FANOUT_PLATFORM_HOSTS"]
        boards = requests.get(f"{base_url}/_emulator/boards", timeout=10).json()
        assert [b["name"] for b in boards[USER]] == ["emu_pinterest's board", "Recipes"]
