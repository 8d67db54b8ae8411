"""The X emulator keeps to the protocol the X adapter is written against
(tests/emulators/README.md#x)."""
from __future__ import annotations

import base64
import secrets

import pytest
import requests


from ..conftest import Api, redirect_query
from ..media import gif_bytes, jpeg_bytes, mp4_bytes, png_bytes
from .emulator import TOO_LONG, tco
from .oauth import s256

USER = "1600000000000000001"
REDIRECT = "https://fanout.example/connect/x/callback"
SCOPE = "tweet.read tweet.write users.read media.write offline.access"
MIB = 1024 * 1024
UNAUTHORIZED = {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}


@pytest.fixture
def tokens(x) -> tuple[str, str]:
    """(access, refresh) of the default user with every publishing scope."""
    return x.issue_token()


@pytest.fixture
def api(x, tokens) -> Api:
    return Api(x.base_url, tokens[0])


def authorize(x, path: str = "/i/oauth2/authorize", **params) -> requests.Response:
    query = {"response_type": "code", "client_id": "app-id", "redirect_uri": REDIRECT, "scope": SCOPE,
             "state": "st-1", "code_challenge": s256("v" * 43), "code_challenge_method": "S256", **params}
    return requests.get(x.base_url + path, params=query, allow_redirects=False, timeout=10)


def token_call(x, path: str = "/2/oauth2/token", auth=("app-id", "app-secret"), **form) -> requests.Response:
    return requests.post(x.base_url + path, data=form, auth=auth, timeout=10)


def exchange(x, code: str, verifier: str = "v" * 43, **form) -> requests.Response:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier,
            **form}
    return token_call(x, **form)


def connect(x, **params) -> dict:
    """The token answer of a whole PKCE round trip (S256)."""
    verifier = secrets.token_urlsafe(32)
    code = redirect_query(authorize(x, code_challenge=s256(verifier), **params))["code"]
    answer = exchange(x, code, verifier)
    assert answer.status_code == 200, answer.text
    return answer.json()


def refresh(x, refresh_token: str) -> requests.Response:
    return token_call(x, grant_type="refresh_token", refresh_token=refresh_token)


def oauth_error(answer: requests.Response, status: int = 400) -> dict:
    assert answer.status_code == status, answer.text
    return answer.json()


def problem(answer: requests.Response, status: int) -> dict:
    """A problem+json body, checking its status, type and the members every one has."""
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    body = answer.json()
    assert {"title", "type", "status", "detail"} <= set(body) and body["status"] == status
    return body


def tweet(api: Api, text: str = "Hello from the emulator", media_ids: list[str] | None = None,
          **kwargs) -> requests.Response:
    body = {"text": text, **({"media": {"media_ids": media_ids}} if media_ids is not None else {})}
    return api("POST", "/2/tweets", json=body, **kwargs)


def tweeted(api: Api, *args, **kwargs) -> dict:
    answer = tweet(api, *args, **kwargs)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]


def upload(api: Api, data: bytes, **fields) -> requests.Response:
    return api("POST", "/2/media/upload", files={"media": ("blob", data)}, data={"media_category": "tweet_image",
                                                                                 **fields})


def uploaded(api: Api, data: bytes | None = None) -> str:
    answer = upload(api, data or jpeg_bytes())
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]["id"]


def initialize(api: Api, total_bytes: int, media_type: str = "video/mp4", category: str = "tweet_video"):
    return api("POST", "/2/media/upload/initialize",
               json={"media_type": media_type, "total_bytes": total_bytes, "media_category": category})


def append(api: Api, media_id: str, chunk: bytes, index: int | str = 0) -> requests.Response:
    return api("POST", f"/2/media/upload/{media_id}/append", files={"media": ("blob", chunk)},
               data={"segment_index": str(index)})


def finalize(api: Api, media_id: str) -> requests.Response:
    return api("POST", f"/2/media/upload/{media_id}/finalize")


def chunked(api: Api, data: bytes, media_type: str = "video/mp4", category: str = "tweet_video",
            chunk: int = 64) -> dict:
    """initialize, append in `chunk`-byte pieces, finalize: the finalize answer's data."""
    media_id = initialize(api, len(data), media_type, category).json()["data"]["id"]
    for index, start in enumerate(range(0, len(data), chunk)):
        assert append(api, media_id, data[start:start + chunk], index).status_code == 200
    answer = finalize(api, media_id)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


def status(api: Api, media_id: str) -> requests.Response:
    return api("GET", "/2/media/upload", params={"command": "STATUS", "media_id": media_id})


def state(api: Api, media_id: str) -> dict:
    return status(api, media_id).json()["data"]["processing_info"]


def ready_video(x, api: Api) -> str:
    media_id = chunked(api, mp4_bytes(3))["id"]
    x.advance(10)
    return media_id


# --- OAuth ------------------------------------------------------------------------------------


def test_the_pkce_round_trip_gives_a_two_hour_bearer_token_a_refresh_token_and_the_scopes_granted(x):
    answer = connect(x)
    assert (answer["token_type"], answer["expires_in"], answer["scope"]) == ("bearer", 7200, SCOPE)
    assert answer["refresh_token"] and answer["access_token"] != answer["refresh_token"]
    me = Api(x.base_url, answer["access_token"])("GET", "/2/users/me")
    assert me.json() == {"data": {"id": USER, "name": "Emu X", "username": "emu_x"}}


@pytest.mark.parametrize("path", ["/i/oauth2/authorize", "/2/oauth2/authorize"])
def test_authorize_redirects_with_the_state_and_a_code_on_either_path(x, path):
    query = redirect_query(authorize(x, path))
    assert query["state"] == "st-1" and query["code"]


def test_a_plain_challenge_is_taken_too(x):
    verifier = "p" * 50
    code = redirect_query(authorize(x, code_challenge=verifier, code_challenge_method="plain"))["code"]
    assert exchange(x, code, verifier).status_code == 200


@pytest.mark.parametrize("params", [
    {"code_challenge": ""}, {"code_challenge_method": ""}, {"code_challenge_method": "S512"},
    {"code_challenge": "too-short"}, {"client_id": "other"}, {"state": ""}, {"scope": "tweet.read nonsense"},
])
def test_an_authorization_it_cannot_serve_is_an_error_page(x, params):
    answer = authorize(x, **params)
    assert answer.status_code == 400 and answer.headers["Content-Type"].startswith("text/html")


def test_a_redirect_uri_outside_the_registered_ones_is_an_error_page(x):
    x.redirect_uris = {REDIRECT}
    assert authorize(x, redirect_uri="https://elsewhere.example/cb").status_code == 400
    assert authorize(x).status_code == 302


def test_a_user_who_denies_is_redirected_with_access_denied_and_the_state(x):
    x.deny_consent()
    assert redirect_query(authorize(x)) == {"error": "access_denied", "state": "st-1"}


def test_the_consenting_user_can_be_another_one(x):
    other = x.add_user("second_user", name="Second")
    x.consent_as(other.id)
    token = connect(x)["access_token"]
    assert Api(x.base_url, token)("GET", "/2/users/me").json()["data"] == {
        "id": other.id, "name": "Second", "username": "second_user"}


def test_without_offline_access_there_is_no_refresh_token(x):
    answer = connect(x, scope="tweet.read tweet.write users.read")
    assert "refresh_token" not in answer and answer["scope"] == "tweet.read tweet.write users.read"


@pytest.mark.parametrize("auth", [None, ("app-id", "wrong-secret"), ("other-id", "app-secret")])
def test_the_token_endpoint_wants_the_apps_basic_credentials(x, auth):
    code = redirect_query(authorize(x))["code"]
    answer = token_call(x, auth=auth, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
                        code_verifier="v" * 43)
    assert oauth_error(answer, 401) == {"error": "unauthorized_client",
                                        "error_description": "Missing valid authorization header"}


def test_a_wrong_verifier_is_refused(x):
    code = redirect_query(authorize(x))["code"]
    assert oauth_error(exchange(x, code, "w" * 43)) == {
        "error": "invalid_request", "error_description": "Value passed for the code verifier was invalid."}


def test_a_code_lives_30_seconds(x):
    first, second = (redirect_query(authorize(x))["code"] for _ in range(2))
    x.advance(29)
    assert exchange(x, first).status_code == 200
    x.advance(1)
    assert oauth_error(exchange(x, second)) == {
        "error": "invalid_request", "error_description": "Value passed for the authorization code was invalid."}


def test_a_code_is_single_use(x):
    code = redirect_query(authorize(x))["code"]
    assert exchange(x, code).status_code == 200
    assert oauth_error(exchange(x, code))["error_description"] == "Value passed for the authorization code was invalid."


def test_the_code_exchange_needs_the_redirect_uri_of_the_authorization(x):
    code = redirect_query(authorize(x))["code"]
    assert oauth_error(exchange(x, code, redirect_uri="https://elsewhere.example/cb"))["error"] == "invalid_request"


def test_a_refresh_rotates_the_refresh_token_and_the_old_access_token_keeps_working(x):
    first = connect(x)
    second = refresh(x, first["refresh_token"]).json()
    assert second["refresh_token"] != first["refresh_token"] and second["access_token"] != first["access_token"]
    assert (second["expires_in"], second["scope"]) == (7200, SCOPE)
    for token in (first["access_token"], second["access_token"]):
        assert Api(x.base_url, token)("GET", "/2/users/me").status_code == 200


def test_a_rotated_refresh_token_used_again_is_refused_and_revokes_its_family(x):
    first = connect(x)
    second = refresh(x, first["refresh_token"]).json()
    assert oauth_error(refresh(x, first["refresh_token"])) == {
        "error": "invalid_request", "error_description": "Value passed for the token was invalid."}
    assert refresh(x, second["refresh_token"]).status_code == 400
    assert problem(Api(x.base_url, second["access_token"])("GET", "/2/users/me"), 401) == UNAUTHORIZED


def test_revoke_answers_revoked_and_the_token_stops_working(x, api, tokens):
    answer = token_call(x, "/2/oauth2/revoke", token=tokens[0])
    assert (answer.status_code, answer.json()) == (200, {"revoked": True})
    assert api("GET", "/2/users/me").status_code == 401


def test_an_access_token_expires_after_two_hours(x, api):
    x.advance(7199)
    assert api("GET", "/2/users/me").status_code == 200
    x.advance(1)
    assert problem(api("GET", "/2/users/me"), 401) == UNAUTHORIZED


@pytest.mark.parametrize("token", [None, "unknown", "revoked", "refresh"])
def test_a_missing_unknown_revoked_or_refresh_token_is_401(x, tokens, token):
    value = {"unknown": "not-a-token", "revoked": tokens[0], "refresh": tokens[1]}.get(token)
    if token == "revoked":
        assert x.revoke_tokens() == 2
    answer = requests.post(x.base_url + "/2/tweets", json={"text": "hi"}, timeout=10,
                           headers={"Authorization": f"Bearer {value}"} if value else {})
    assert problem(answer, 401) == UNAUTHORIZED


@pytest.mark.parametrize("scope,call", [
    ("tweet.write", lambda api: tweet(api)),
    ("media.write", lambda api: upload(api, jpeg_bytes())),
    ("users.read", lambda api: api("GET", "/2/users/me")),
])
def test_a_token_lacking_the_scope_an_endpoint_needs_is_403(x, scope, call):
    token, _ = x.issue_token(scopes=[s for s in SCOPE.split() if s != scope])
    body = problem(call(Api(x.base_url, token)), 403)
    assert (body["title"], body["type"]) == ("Forbidden", "about:blank") and scope in body["detail"]


def test_the_call_log_masks_the_verifier_and_the_refresh_token(x):
    refresh(x, connect(x)["refresh_token"])
    bodies = [c.body for c in x.calls_to("POST", "/2/oauth2/token$")]
    assert bodies[0]["code_verifier"] == "***" and bodies[1]["refresh_token"] == "***"


# --- the user's posts -------------------------------------------------------------------------


def test_a_users_posts_are_listed_newest_first_with_created_at_when_asked(x, api):
    ids = []
    for i in range(3):
        ids.append(tweeted(api, f"post {i} https://example.com/{i}")["id"])
        x.advance(60)
    answer = api("GET", f"/2/users/{USER}/tweets", params={"max_results": 5, "tweet.fields": "created_at"}).json()
    assert [t["id"] for t in answer["data"]] == ids[::-1]
    assert answer["data"][2] == {"id": ids[0], "text": f"post 0 {tco('https://example.com/0')}",
                                 "created_at": "2026-11-22T10:00:00.000Z", "edit_history_tweet_ids": [ids[0]]}
    assert answer["meta"] == {"result_count": 3, "newest_id": ids[2], "oldest_id": ids[0]}


def test_created_at_is_left_out_unless_asked_for(api):
    tweeted(api)
    assert "created_at" not in api("GET", f"/2/users/{USER}/tweets").json()["data"][0]


def test_a_user_without_posts_has_a_result_count_of_0(api):
    assert api("GET", f"/2/users/{USER}/tweets").json() == {"meta": {"result_count": 0}}


def test_the_timeline_pages_with_next_token(x, api):
    ids = [tweeted(api, f"post {i}")["id"] for i in range(7)]
    first = api("GET", f"/2/users/{USER}/tweets", params={"max_results": 5}).json()
    rest = api("GET", f"/2/users/{USER}/tweets",
               params={"max_results": 5, "pagination_token": first["meta"]["next_token"]}).json()
    assert [t["id"] for t in first["data"] + rest["data"]] == ids[::-1] and "next_token" not in rest["meta"]


@pytest.mark.parametrize("size", ["4", "101", "ten"])
def test_max_results_outside_5_to_100_is_an_invalid_request(api, size):
    body = problem(api("GET", f"/2/users/{USER}/tweets", params={"max_results": size}), 400)
    assert body["type"] == "https://api.twitter.com/2/problems/invalid-request"


# --- media ------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [jpeg_bytes(), png_bytes(), b"RIFF\x00\x00\x00\x00WEBPVP8 ", gif_bytes()],
                         ids=["jpeg", "png", "webp", "still gif"])
def test_an_image_is_uploaded_in_one_call_and_ready_at_once(x, api, data):
    answer = upload(api, data).json()["data"]
    assert answer == {"id": answer["id"], "media_key": f"3_{answer['id']}", "size": len(data),
                      "expires_after_secs": 86400}
    assert status(api, answer["id"]).json() == {"data": {"id": answer["id"], "media_key": answer["media_key"]}}


def metadata(api: Api, media_id: str, text) -> requests.Response:
    return api("POST", "/2/media/metadata", json={"id": media_id, "metadata": {"alt_text": {"text": text}}})


def test_alt_text_is_set_on_an_upload_by_the_media_metadata(x, api):
    media_id = uploaded(api)
    answer = metadata(api, media_id, "A red door")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"data": {"id": media_id, "associated_metadata": {"alt_text": {"text": "A red door"}}}}
    assert x.media[media_id].alt_text == "A red door"


@pytest.mark.parametrize("text, media_id", [("a" * 1001, None), (7, None), ("fine", "1")],
                         ids=["over 1000 characters", "not text", "no such upload"])
def test_media_metadata_x_refuses_is_an_invalid_request(x, api, text, media_id):
    body = problem(metadata(api, media_id or uploaded(api), text), 400)
    assert body["type"] == "https://api.twitter.com/2/problems/invalid-request"


def test_an_image_is_taken_as_base64_too(api):
    answer = api("POST", "/2/media/upload", json={"media": base64.b64encode(png_bytes()).decode(),
                                                  "media_category": "tweet_image"})
    assert answer.status_code == 200, answer.text


def test_an_image_over_5_mib_is_an_invalid_request(api):
    assert upload(api, jpeg_bytes().ljust(5 * MIB, b"\0")).status_code == 200
    body = problem(upload(api, jpeg_bytes().ljust(5 * MIB + 1, b"\0")), 400)
    assert body["type"] == "https://api.twitter.com/2/problems/invalid-request"


@pytest.mark.parametrize("data", [mp4_bytes(), gif_bytes(frames=3), b"<html>"], ids=["video", "animated gif", "text"])
def test_a_video_an_animated_gif_or_no_image_at_all_is_refused_by_the_one_shot_upload(api, data):
    problem(upload(api, data), 400)


def test_a_video_is_uploaded_in_chunks_then_pending_in_progress_and_succeeded_after_10_seconds(x, api):
    data = mp4_bytes(3)
    done = chunked(api, data)
    assert done == {"id": done["id"], "media_key": f"7_{done['id']}", "size": len(data), "expires_after_secs": 86400,
                    "processing_info": {"state": "pending", "check_after_secs": 1}}
    x.advance(1)
    assert state(api, done["id"]) == {"state": "in_progress", "check_after_secs": 9, "progress_percent": 10}
    x.advance(9)
    assert state(api, done["id"]) == {"state": "succeeded", "progress_percent": 100}


def test_initialize_answers_the_id_media_key_and_expiry(api):
    data = initialize(api, 1000, "image/gif", "tweet_gif").json()["data"]
    assert data == {"id": data["id"], "media_key": f"16_{data['id']}", "expires_after_secs": 86400}


def test_an_animated_gif_processes_for_2_seconds(x, api):
    media_id = chunked(api, gif_bytes(frames=3), "image/gif", "tweet_gif")["id"]
    x.advance(2)
    assert state(api, media_id)["state"] == "succeeded"


def test_processing_time_can_be_set_per_category(x, api):
    x.set_processing_time("tweet_video", 60)
    media_id = chunked(api, mp4_bytes())["id"]
    x.advance(59)
    assert state(api, media_id)["state"] == "in_progress"


@pytest.mark.parametrize("category,media_type,cap", [("tweet_video", "video/mp4", 512 * MIB),
                                                     ("tweet_gif", "image/gif", 15 * MIB)])
def test_initialize_refuses_more_bytes_than_the_category_takes(api, category, media_type, cap):
    assert initialize(api, cap, media_type, category).status_code == 200
    problem(initialize(api, cap + 1, media_type, category), 400)


def test_a_chunk_over_5_mib_is_refused(api):
    media_id = initialize(api, 6 * MIB).json()["data"]["id"]
    assert append(api, media_id, b"\0" * (5 * MIB)).status_code == 200
    problem(append(api, media_id, b"\0" * (5 * MIB + 1), 1), 400)


@pytest.mark.parametrize("index", ["-1", "1000", "x"])
def test_a_segment_index_outside_0_to_999_is_refused(api, index):
    media_id = initialize(api, 10).json()["data"]["id"]
    problem(append(api, media_id, b"\0" * 10, index), 400)


def test_append_answers_when_the_upload_expires(x, api):
    media_id = initialize(api, 10).json()["data"]["id"]
    assert append(api, media_id, b"\0" * 10).json() == {"data": {"expires_at": int(x.clock.now().timestamp()) + 86400}}


def test_finalize_wants_every_byte_declared(api):
    media_id = initialize(api, 1000).json()["data"]["id"]
    append(api, media_id, mp4_bytes())
    assert "mismatch" in problem(finalize(api, media_id), 400)["detail"]


def test_a_video_that_is_not_mp4_or_mov_fails_once_processed(x, api):
    media_id = chunked(api, jpeg_bytes())["id"]
    assert state(api, media_id)["state"] == "pending"
    x.advance(10)
    assert state(api, media_id) == {"state": "failed", "error": {"code": 1, "name": "InvalidMedia",
                                                                 "message": "Unsupported video format"}}


def test_the_next_media_can_be_forced_to_fail_with_an_error(x, api):
    error = {"code": 3, "name": "InvalidMedia", "message": "Video too long"}
    x.force_next_media("failed", error)
    media_id = chunked(api, mp4_bytes())["id"]
    x.advance(10)
    assert state(api, media_id) == {"state": "failed", "error": error}
    assert x.media[media_id].state == "failed"


def test_the_next_media_can_be_kept_in_progress_forever(x, api):
    x.force_next_media("in_progress")
    media_id = chunked(api, mp4_bytes())["id"]
    x.advance(3600)
    assert state(api, media_id)["state"] == "in_progress"


def test_another_users_media_cannot_be_appended_to_or_read(x, api):
    media_id = initialize(api, 10).json()["data"]["id"]
    other = Api(x.base_url, x.issue_token(x.add_user("other").id)[0])
    problem(append(other, media_id, b"\0" * 10), 400)
    problem(status(other, media_id), 400)


# --- posts ------------------------------------------------------------------------------------


def test_a_text_post_answers_201_with_its_id_text_and_edit_history(x, api):
    answer = tweet(api, "Hello from the emulator")
    assert answer.status_code == 201
    data = answer.json()["data"]
    assert data == {"id": data["id"], "text": "Hello from the emulator", "edit_history_tweet_ids": [data["id"]]}
    [post] = x.posts[USER]
    assert (post.id, post.text, post.text_sent, post.media_ids) == (data["id"], data["text"], data["text"], ())


def test_every_http_url_is_stored_as_a_tco_link_the_same_for_the_same_url(x, api):
    sent = "a https://example.com/a?b=1 b HTTP://Example.org/x c example.net"
    data = tweeted(api, sent)
    link = data["text"].split()[1]
    assert link.startswith("https://t.co/") and len(link) == len("https://t.co/") + 10
    assert data["text"] == f"a {tco('https://example.com/a?b=1')} b {tco('HTTP://Example.org/x')} c example.net"
    assert tweeted(api, "again https://example.com/a?b=1")["text"] == f"again {link}"
    assert x.posts[USER][0].text_sent == sent


@pytest.mark.parametrize("text,taken", [
    ("a" * 280, True), ("a" * 281, False), ("字" * 140, True), ("字" * 141, False),
    ("😀" * 140, True), ("https://example.com/" + "a" * 300 + " " + "b" * 256, True),
])
def test_text_is_counted_by_twitter_texts_weights_up_to_280(api, text, taken):
    answer = tweet(api, text)
    if taken:
        assert answer.status_code == 201, answer.text
    else:
        body = problem(answer, 400)
        assert body["detail"] == TOO_LONG and body["errors"][0]["message"] == TOO_LONG
        assert body["type"] == "https://api.twitter.com/2/problems/invalid-request"


@pytest.mark.parametrize("body", [{"text": ""}, {}, {"text": "   "}])
def test_a_post_without_text_or_media_is_refused(api, body):
    problem(api("POST", "/2/tweets", json=body), 400)


def test_a_post_of_media_alone_is_taken(x, api):
    media_id = uploaded(api)
    data = tweeted(api, "", [media_id])
    assert x.posts[USER][0].media_ids == (media_id,) and data["text"] == ""


def test_up_to_4_images_are_taken_and_5_are_refused(api):
    ids = [uploaded(api, png_bytes(i + 1, 1)) for i in range(5)]
    assert tweet(api, "four", ids[:4]).status_code == 201
    assert "maximum of 4 items" in problem(tweet(api, "five", ids), 400)["detail"]


def test_a_video_with_other_media_is_refused(x, api):
    video = ready_video(x, api)
    problem(tweet(api, "mixed", [video, uploaded(api)]), 400)
    assert tweet(api, "alone", [video]).status_code == 201


@pytest.mark.parametrize("which", ["unknown", "another user's", "processing", "failed", "not finalized"])
def test_media_that_is_not_the_users_or_not_ready_is_an_invalid_request(x, api, which):
    if which == "unknown":
        media_id = "1234567890"
    elif which == "another user's":
        media_id = uploaded(Api(x.base_url, x.issue_token(x.add_user("other").id)[0]))
    elif which == "processing":
        media_id = chunked(api, mp4_bytes())["id"]
    elif which == "failed":
        media_id = chunked(api, jpeg_bytes())["id"]
        x.advance(10)
    else:
        media_id = initialize(api, 10).json()["data"]["id"]
    body = problem(tweet(api, "with media", [media_id]), 400)
    assert body["type"] == "https://api.twitter.com/2/problems/invalid-request" and media_id in body["detail"]


def test_an_expired_media_id_is_refused_saying_so(x, api):
    media_id = uploaded(api)
    x.advance(86400)
    fresh = Api(x.base_url, x.issue_token()[0])
    assert "expired" in problem(tweet(fresh, "late", [media_id]), 400)["detail"]


def test_the_same_text_within_24_hours_is_a_403_duplicate(x, api):
    tweeted(api, "same https://example.com")
    assert problem(tweet(api, "same https://example.com"), 403) == {
        "detail": "You are not allowed to create a Tweet with duplicate content.", "type": "about:blank",
        "title": "Forbidden", "status": 403}
    x.advance(86400)
    assert tweet(Api(x.base_url, x.issue_token()[0]), "same https://example.com").status_code == 201


def test_another_users_same_text_is_no_duplicate(x, api):
    tweeted(api, "shared words")
    assert tweet(Api(x.base_url, x.issue_token(x.add_user("other").id)[0]), "shared words").status_code == 201


def test_past_the_users_posts_in_15_minutes_a_post_is_429_until_the_oldest_leaves(x, api):
    x.set_limits(user_tweet_limit=3)
    for i in range(3):
        tweeted(api, f"post {i}")
        x.advance(60)
    answer = tweet(api, "one too many")
    assert problem(answer, 429) == {"title": "Too Many Requests", "detail": "Too Many Requests",
                                    "type": "about:blank", "status": 429}
    start = int(x.clock.now().timestamp()) - 180
    assert (answer.headers["x-rate-limit-limit"], answer.headers["x-rate-limit-remaining"],
            answer.headers["x-rate-limit-reset"]) == ("3", "0", str(start + 900))
    x.advance(900 - 180)
    assert tweet(api, "one too many").status_code == 201


def test_past_the_apps_posts_in_24_hours_any_user_is_429(x, api):
    x.set_limits(app_tweet_limit=2)
    tweeted(api, "one")
    tweeted(Api(x.base_url, x.issue_token(x.add_user("other").id)[0]), "two")
    answer = tweet(api, "three")
    problem(answer, 429)
    assert (answer.headers["x-rate-limit-limit"], answer.headers["x-app-limit-24hour-remaining"]) == ("2", "0")


def test_a_post_answer_carries_the_15_minute_and_24_hour_headers(x, api):
    answer = tweet(api, "counted")
    reset_15, reset_24 = str(int(x.clock.now().timestamp()) + 900), str(int(x.clock.now().timestamp()) + 86400)
    assert {k: v for k, v in answer.headers.items() if k.startswith("x-")} == {
        "x-rate-limit-limit": "100", "x-rate-limit-remaining": "99", "x-rate-limit-reset": reset_15,
        "x-user-limit-24hour-limit": "10000", "x-user-limit-24hour-remaining": "9999",
        "x-user-limit-24hour-reset": reset_24,
        "x-app-limit-24hour-limit": "10000", "x-app-limit-24hour-remaining": "9999",
        "x-app-limit-24hour-reset": reset_24}


@pytest.mark.parametrize("call,limit", [
    (lambda api: api("GET", "/2/users/me"), "75"),
    (lambda api: api("GET", f"/2/users/{USER}/tweets"), "900"),
    (lambda api: upload(api, b"not an image"), "500"),
    (lambda api: status(api, "1"), "1000"),
    (lambda api: initialize(api, 0), "1875"),
    (lambda api: api("POST", "/2/media/upload/1/finalize"), "1875"),
    (lambda api: api("GET", "/2/users/me", token="unknown"), "75"),
])
def test_every_api_answer_carries_its_endpoints_rate_limit_headers(api, call, limit):
    answer = call(api)
    assert answer.headers["x-rate-limit-limit"] == limit and int(answer.headers["x-rate-limit-reset"]) > 0
    assert answer.headers["x-rate-limit-remaining"] in (str(int(limit) - 1), limit)


def test_an_endpoint_past_its_calls_in_15_minutes_is_429(x, api):
    for _ in range(75):
        api("GET", "/2/users/me")
    answer = api("GET", "/2/users/me")
    problem(answer, 429)
    assert answer.headers["x-rate-limit-remaining"] == "0"
    x.advance(900)
    assert api("GET", "/2/users/me").headers["x-rate-limit-remaining"] == "74"


# --- controls and failures ------------------------------------------------------------------


def test_fail_problem_answers_that_problem_without_effect(x, api):
    x.fail_problem("POST", "/2/tweets$", 403, "Forbidden", "You are not permitted to perform this action.")
    body = problem(tweet(api), 403)
    assert body["detail"] == "You are not permitted to perform this action." and x.posts[USER] == []
    assert tweet(api).status_code == 201


def test_reset_forgets_tokens_media_and_posts_and_keeps_users(x, api):
    tweeted(api, "before", [uploaded(api)])
    x.reset()
    assert x.posts == {USER: []} and x.media == {} and api("GET", "/2/users/me").status_code == 401
    assert [u.username for u in x.users] == ["emu_x"]


def test_the_controls_and_views_are_reachable_over_http(x, api):
    control = x.base_url + "/_emulator/"
    access, refresh_token = requests.post(control + "issue_token", json={}, timeout=10).json()["result"]
    assert refresh_token and Api(x.base_url, access)("GET", "/2/users/me").status_code == 200
    requests.post(control + "set_limits", json={"user_tweet_limit": 1}, timeout=10)
    tweeted(api, "one")
    assert tweet(api, "two").status_code == 429
    posts = requests.get(control + "posts", timeout=10).json()[USER]
    assert [(p["text"], p["text_sent"]) for p in posts] == [("one", "one")]
    requests.post(control + "fail_problem", timeout=10, json={
        "method": "GET", "path": "/2/users/me", "status": 503, "title": "Service Unavailable",
        "detail": "Service Unavailable"})
    assert problem(api("GET", "/2/users/me"), 503)["title"] == "Service Unavailable"
    assert requests.post(control + "force_next_media", json={"state": "done"}, timeout=10).status_code == 400



# --- replies, quotes, reply settings ------------------------------------------------------------

def said(api: Api, text: str, **fields) -> requests.Response:
    """POST /2/tweets with fields beside the text (reply, quote_tweet_id, reply_settings)."""
    return api("POST", "/2/tweets", json={"text": text, **fields})


def made(api: Api, text: str, **fields) -> dict:
    answer = said(api, text, **fields)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]

def test_a_reply_keeps_its_parent_and_the_conversation_of_the_first_post(x, api):
    first = made(api, "the first")
    second = made(api, "a reply", reply={"in_reply_to_tweet_id": first["id"]})
    third = made(api, "a reply to the reply", reply={"in_reply_to_tweet_id": second["id"]})
    assert [p.id for p in x.chain(third["id"])] == [first["id"], second["id"], third["id"]]
    assert [p.id for p in x.replies_to(first["id"])] == [second["id"]]
    assert {p.conversation_id for p in x.chain(third["id"])} == {first["id"]}


def test_a_reply_to_a_post_that_does_not_exist_is_403(api):
    assert "deleted or not visible" in problem(said(api, "orphan", reply={"in_reply_to_tweet_id": "42"}), 403)["detail"]


def test_the_timeline_shows_what_each_post_replies_to_and_quotes_when_asked(x, api):
    first = made(api, "the first")
    quoting = made(api, "quoting and replying", reply={"in_reply_to_tweet_id": first["id"]},
                      quote_tweet_id=first["id"], reply_settings="following")
    listed = api("GET", f"/2/users/{USER}/tweets", params={
        "tweet.fields": "referenced_tweets,conversation_id,reply_settings"}).json()["data"][0]
    assert listed["id"] == quoting["id"] and listed["conversation_id"] == first["id"]
    assert listed["referenced_tweets"] == [{"type": "replied_to", "id": first["id"]},
                                           {"type": "quoted", "id": first["id"]}]
    assert listed["reply_settings"] == "following"


def test_a_quote_of_a_post_that_does_not_exist_is_400_naming_quote_tweet_id(api):
    assert "quote_tweet_id" in problem(said(api, "quoting nothing", quote_tweet_id="42"), 400)["detail"]


def test_reply_settings_outside_xs_values_are_400(api):
    assert "reply_settings" in problem(said(api, "who may reply?", reply_settings="everyone"), 400)["detail"]
