"""The Mastodon emulator keeps to the protocol Mastodon documents for a client app: the
instance documents, app registration, OAuth 2.0 with PKCE, media processed in the
background, statuses with the Idempotency-Key, the character cap, the rate limits and the
public reads (tests/emulators/README.md#mastodon)."""
from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from ..clock import EmulatorClock
from ..conftest import START, run_by_hand, serving
from ..media import gif_bytes, jpeg_bytes, mp4_bytes
from . import MastodonEmulator
from .text import render, status_length

REDIRECT = "https://fanout.invalid/connect/mastodon/callback"
ACCOUNT = "109000000000000001"


@pytest.fixture
def md():
    yield from serving(MastodonEmulator("social.example", clock=EmulatorClock(START)))


@pytest.fixture
def token(md) -> str:
    return md.issue_token(ACCOUNT)


def call(md, method: str, path: str, token: str | None = None, **kwargs) -> requests.Response:
    headers = {**({"Authorization": f"Bearer {token}"} if token else {}), **kwargs.pop("headers", {})}
    return requests.request(method, md.base_url + path, headers=headers, timeout=10, allow_redirects=False, **kwargs)


def register(md, **form) -> dict:
    answer = call(md, "POST", "/api/v1/apps", data={"client_name": "Fanout", "redirect_uris": REDIRECT,
                                                   "scopes": "write:statuses write:media read:accounts", **form})
    assert answer.status_code == 200, answer.text
    return answer.json()


def challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def authorize(md, app: dict, **params) -> dict:
    query = {"response_type": "code", "client_id": app["client_id"], "redirect_uri": REDIRECT,
             "scope": "write:statuses write:media read:accounts", "state": "st-1", "force_login": "true",
             "code_challenge": challenge("v" * 43), "code_challenge_method": "S256", **params}
    answer = call(md, "GET", "/oauth/authorize", params=query)
    assert answer.status_code == 302, answer.text
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["Location"]).query).items()}


def exchange(md, app: dict, code: str, verifier: str = "v" * 43) -> requests.Response:
    return call(md, "POST", "/oauth/token", data={
        "grant_type": "authorization_code", "code": code, "client_id": app["client_id"],
        "client_secret": app["client_secret"], "redirect_uri": REDIRECT, "code_verifier": verifier})


def status(md, token: str, key: str | None = None, **body) -> requests.Response:
    return call(md, "POST", "/api/v1/statuses", token, json=body, headers={"Idempotency-Key": key} if key else {})


def upload(md, token: str, data: bytes, name: str = "f", **form) -> requests.Response:
    return call(md, "POST", "/api/v2/media", token, files={"file": (name, data)}, data=form)


# --- the instance ----------------------------------------------------------------------------

def test_the_instance_states_its_configuration_on_v2(md):
    document = call(md, "GET", "/api/v2/instance").json()
    assert document["domain"] == "social.example"
    assert document["configuration"]["statuses"]["max_characters"] == 500
    assert document["configuration"]["media_attachments"]["video_size_limit"] == 103_809_024


def test_an_instance_configured_so_states_another_cap_or_none(md):
    md.configure(max_characters=5000)
    assert call(md, "GET", "/api/v2/instance").json()["configuration"]["statuses"]["max_characters"] == 5000
    md.configure(max_characters=None)
    assert "max_characters" not in call(md, "GET", "/api/v2/instance").json()["configuration"]["statuses"]


def test_a_server_before_4_answers_v1_only(md):
    md.configure(api_v2=False)
    assert call(md, "GET", "/api/v2/instance").status_code == 404
    assert call(md, "GET", "/api/v1/instance").json()["uri"] == "social.example"


def test_hosts_setting_sends_its_domain_here(md):
    assert md.hosts_setting == f"social.example={md.base_url}"


# --- apps and OAuth ------------------------------------------------------------------------------

def test_an_app_registers_with_its_redirect_uri_and_scopes_and_is_logged(md):
    app = register(md)
    assert app["redirect_uris"] == [REDIRECT] and app["scopes"] == ["write:statuses", "write:media", "read:accounts"]
    assert app["client_secret_expires_at"] == 0 and [a.client_id for a in md.apps] == [app["client_id"]]


def test_an_app_without_an_absolute_redirect_uri_is_422(md):
    answer = call(md, "POST", "/api/v1/apps", data={"client_name": "Fanout", "redirect_uris": "/callback"})
    assert answer.status_code == 422
    assert answer.json() == {"error": "Validation failed: Redirect URI must be an absolute URI."}


def test_the_code_flow_with_pkce_gives_a_token_without_expiry(md):
    app = register(md)
    query = authorize(md, app)
    assert query["state"] == "st-1" and md.force_logins == 1
    answer = exchange(md, app, query["code"]).json()
    assert answer["token_type"] == "Bearer" and answer["scope"] == "write:statuses write:media read:accounts"
    assert "expires_in" not in answer and "refresh_token" not in answer
    me = call(md, "GET", "/api/v1/accounts/verify_credentials", answer["access_token"]).json()
    assert (me["id"], me["username"], me["acct"]) == (ACCOUNT, "emu", "emu")


def test_a_wrong_verifier_a_reused_code_and_a_wrong_secret_are_refused(md):
    app = register(md)
    code = authorize(md, app)["code"]
    assert exchange(md, app, code, verifier="w" * 43).json()["error"] == "invalid_grant"
    code = authorize(md, app)["code"]
    assert exchange(md, app, code).status_code == 200
    assert exchange(md, app, code).json()["error"] == "invalid_grant"
    wrong = {**app, "client_secret": "nope"}
    answer = exchange(md, wrong, authorize(md, app)["code"])
    assert (answer.status_code, answer.json()["error"]) == (401, "invalid_client")


def test_a_scope_beyond_the_apps_and_a_refusal_go_back_as_errors(md):
    app = register(md)
    assert authorize(md, app, scope="write:statuses read:statuses")["error"] == "invalid_scope"
    md.deny_consent()
    assert authorize(md, app)["error"] == "access_denied"


def test_a_swept_app_is_an_unknown_client(md):
    app = register(md)
    code = authorize(md, app)["code"]
    md.forget_apps()
    assert exchange(md, app, code).json()["error"] == "invalid_client"


def test_a_revoked_token_and_an_unknown_one_are_401_and_a_missing_scope_403(md, token):
    md.revoke_token(token)
    assert call(md, "GET", "/api/v1/accounts/verify_credentials", token).json() == {
        "error": "The access token was revoked"}
    assert call(md, "GET", "/api/v1/accounts/verify_credentials", "garbage").json() == {
        "error": "The access token is invalid"}
    narrow = md.issue_token(ACCOUNT, scopes=("write:media",))
    answer = status(md, narrow, status="hi")
    assert (answer.status_code, answer.json()["error"]) == (403, "This action is outside the authorized scopes")


# --- media -----------------------------------------------------------------------------------------

def test_an_image_is_processed_at_once_with_its_description(md, token):
    answer = upload(md, token, jpeg_bytes(), description="A red door")
    assert answer.status_code == 200 and answer.json()["url"] and answer.json()["description"] == "A red door"


def test_a_video_is_processed_in_the_background(md, token):
    answer = upload(md, token, mp4_bytes(3))
    assert (answer.status_code, answer.json()["url"]) == (202, None)
    media_id = answer.json()["id"]
    assert call(md, "GET", f"/api/v1/media/{media_id}", token).status_code == 206
    md.advance(10)
    done = call(md, "GET", f"/api/v1/media/{media_id}", token)
    assert done.status_code == 200 and done.json()["url"]


def test_a_gif_is_a_gifv_processed_like_a_video(md, token):
    answer = upload(md, token, gif_bytes(frames=2))
    assert answer.status_code == 202 and answer.json()["type"] == "gifv"


def test_a_file_of_no_supported_type_and_one_too_large_are_422(md, token):
    assert upload(md, token, b"not media at all").json() == {
        "error": "Validation failed: File content type is invalid, File is invalid"}
    md.configure(image_size_limit=100)
    assert "file size" in upload(md, token, jpeg_bytes(64, 64)).json()["error"]


def test_media_whose_processing_fails_answers_422_when_read(md, token):
    md.fail_next_media()
    media_id = upload(md, token, mp4_bytes(3)).json()["id"]
    md.advance(10)
    answer = call(md, "GET", f"/api/v1/media/{media_id}", token)
    assert (answer.status_code, answer.json()["error"]) == (422, "Error processing thumbnail for uploaded media")


# --- statuses ---------------------------------------------------------------------------------------

def test_a_status_answers_its_url_and_renders_its_content(md, token):
    answer = status(md, token, status="Hello https://example.com/a and #tag", visibility="unlisted",
                    spoiler_text="cw")
    made = answer.json()
    assert answer.status_code == 200 and made["url"] == f"https://social.example/@emu/{made['id']}"
    assert (made["visibility"], made["spoiler_text"], made["sensitive"]) == ("unlisted", "cw", True)
    assert made["content"].startswith("<p>Hello <a href=\"https://example.com/a\"")
    assert int(answer.headers["X-RateLimit-Remaining"]) == 299


def test_the_same_idempotency_key_answers_the_first_status_for_an_hour_whatever_the_body(md, token):
    first = status(md, token, "key-1", status="one").json()
    again = status(md, token, "key-1", status="something else").json()
    assert again["id"] == first["id"] and len(md.statuses) == 1
    md.advance(3600)
    assert status(md, token, "key-1", status="one").json()["id"] != first["id"] and len(md.statuses) == 2


def test_the_character_cap_counts_the_content_warning_links_as_23_and_remote_mentions_short(md, token):
    assert status_length("a" * 10, "cw") == 12
    assert status_length("see https://example.com/" + "x" * 100) == 4 + 23
    assert status_length("hi @someone@far.example.org") == len("hi @someone")
    assert status_length("👩‍👩‍👧‍👦" * 3) == 3
    answer = status(md, token, status="a" * 499, spoiler_text="bc")
    assert (answer.status_code, answer.json()["error"]) == (422, "Validation failed: Text character limit of 500 "
                                                                 "exceeded")
    assert status(md, token, status="a" * 400 + " https://example.com/" + "y" * 200).status_code == 200


def test_a_bigger_instance_takes_a_longer_status(md, token):
    md.configure(max_characters=1000)
    assert status(md, token, status="a" * 1000).status_code == 200


def test_media_must_be_processed_and_a_video_alone(md, token):
    video_id = upload(md, token, mp4_bytes(3)).json()["id"]
    answer = status(md, token, media_ids=[video_id])
    assert answer.json()["error"] == "Cannot attach files that have not finished processing. Try again in a moment!"
    md.advance(10)
    image_id = upload(md, token, jpeg_bytes()).json()["id"]
    assert status(md, token, media_ids=[image_id, video_id]).json()["error"] == \
        "Cannot attach a video to a post that already contains images"
    made = status(md, token, media_ids=[video_id]).json()
    assert [m["id"] for m in made["media_attachments"]] == [video_id]
    assert call(md, "GET", f"/api/v1/media/{video_id}", token).status_code == 404  # attached now


def test_too_many_media_a_blank_status_and_an_unknown_reply_are_refused(md, token):
    ids = [upload(md, token, jpeg_bytes()).json()["id"] for _ in range(5)]
    assert status(md, token, media_ids=ids).status_code == 422
    assert status(md, token, status="  ").json() == {"error": "Validation failed: Text can't be blank"}
    assert status(md, token, status="hi", in_reply_to_id="1").json() == {"error": "Record not found"}


def test_a_thread_is_replies_and_its_context_shows_them(md, token):
    first = status(md, token, status="one").json()
    second = status(md, token, status="two", in_reply_to_id=first["id"]).json()
    assert second["in_reply_to_id"] == first["id"]
    context = call(md, "GET", f"/api/v1/statuses/{first['id']}/context").json()
    assert [s["id"] for s in context["descendants"]] == [second["id"]]


def test_the_statuses_window_is_429_with_its_reset(md, token):
    md.exhaust("statuses", ACCOUNT)
    answer = status(md, token, status="one too many")
    assert (answer.status_code, answer.json()) == (429, {"error": "Too many requests"})
    assert answer.headers["X-RateLimit-Remaining"] == "0" and answer.headers["X-RateLimit-Reset"].endswith("Z")


def test_an_accounts_statuses_are_read_without_a_token_public_and_unlisted_only(md, token):
    for visibility in ("public", "unlisted", "private"):
        status(md, token, status=visibility, visibility=visibility)
    listed = call(md, "GET", f"/api/v1/accounts/{ACCOUNT}/statuses").json()
    assert [s["spoiler_text"] or s["visibility"] for s in listed] == ["unlisted", "public"]
    assert call(md, "GET", f"/api/v1/accounts/{ACCOUNT}/statuses", token).status_code == 403  # no read scope


def test_content_renders_paragraphs_mentions_and_long_links(md):
    content = render("Hi @emu and @far@other.example\n\nnext https://example.com/" + "p" * 40, "social.example",
                     {"emu"})
    assert content.startswith('<p>Hi <span class="h-card"><a href="https://social.example/@emu"')
    assert "@far@other.example</p><p>next <a" in content and '<span class="ellipsis">' in content


# --- by hand -------------------------------------------------------------------------------------

def test_it_runs_by_hand_on_the_domain_it_is_told(tmp_path):
    with run_by_hand("mastodon", "--port", "0", "--domain", "toot.example", lines=1) as (base_url, settings):
        assert settings["FANOUT_PLATFORM_HOSTS"] == f"toot.example={base_url}"
        assert requests.get(f"{base_url}/api/v2/instance", timeout=10).json()["domain"] == "toot.example"
