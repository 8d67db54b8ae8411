"""The TikTok emulator keeps to the protocol the TikTok adapter is written against
(tests/emulators/README.md#tiktok)."""
from __future__ import annotations

import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests


from ..conftest import Api, redirect_query, run_by_hand
from ..media import jpeg_bytes, mp4_bytes, png_bytes, webm_bytes
from .emulator import HOSTS

OPEN_ID = "-000emuTikTokOpenId0001"
REDIRECT = "https://fanout.example/connect/tiktok/callback"
SCOPE = "user.info.basic,video.publish,video.upload"
MIB = 1024 * 1024
INIT, PHOTO_INIT = "/v2/post/publish/video/init/", "/v2/post/publish/content/init/"
CREATOR, STATUS = "/v2/post/publish/creator_info/query/", "/v2/post/publish/status/fetch/"


@pytest.fixture
def tokens(tiktok) -> tuple[str, str]:
    """(access, refresh) of the default creator with every scope."""
    return tiktok.issue_token()


@pytest.fixture
def api(tiktok, tokens) -> Api:
    return Api(tiktok.base_url, tokens[0])


@pytest.fixture
def verified(tiktok, media_server):
    """The media server's host verified for PULL_FROM_URL."""
    tiktok.set_verified(domains=["127.0.0.1"])
    return media_server


# --- helpers ------------------------------------------------------------------------------------


def authorize(tiktok, **params) -> requests.Response:
    query = {"client_key": "app-id", "response_type": "code", "scope": SCOPE, "redirect_uri": REDIRECT,
             "state": "st-1", **params}
    return requests.get(tiktok.base_url + "/v2/auth/authorize/", params=query, allow_redirects=False, timeout=10)


def back(answer: requests.Response) -> dict:
    """The query of the redirect to REDIRECT an authorization answers."""
    return redirect_query(answer, to=REDIRECT)


def oauth(tiktok, path: str = "/v2/oauth/token/", **form) -> requests.Response:
    form = {"client_key": "app-id", "client_secret": "app-secret", **form}
    return requests.post(tiktok.base_url + path, data=form, timeout=10)


def exchange(tiktok, code: str, **form) -> requests.Response:
    return oauth(tiktok, grant_type="authorization_code", code=code, redirect_uri=REDIRECT, **form)


def refresh(tiktok, refresh_token: str) -> requests.Response:
    return oauth(tiktok, grant_type="refresh_token", refresh_token=refresh_token)


def code_of(tiktok, **params) -> str:
    return back(authorize(tiktok, **params))["code"]


def oauth_error(answer: requests.Response, status: int = 400) -> dict:
    """OAuth's flat error, checking its status and members."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error", "error_description", "log_id"}
    return body


def error_of(answer: requests.Response, status: int) -> dict:
    """An envelope error's `error`, checking the status, the empty data and the members."""
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"] == "application/json; charset=UTF-8"
    body = answer.json()
    assert body["data"] == {} and set(body["error"]) == {"code", "message", "log_id"} and body["error"]["log_id"]
    return body["error"]


def data_of(answer: requests.Response) -> dict:
    """An envelope success's `data`, checking `error.code` is ok."""
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["error"]["code"] == "ok" and body["error"]["log_id"]
    return body["data"]


def post_info(**fields) -> dict:
    return {"title": "a #cat video", "privacy_level": "SELF_ONLY", "disable_duet": False, "disable_comment": False,
            "disable_stitch": False, **fields}


def file_source(size: int, chunk: int | None = None, count: int | None = None) -> dict:
    chunk = chunk or size
    return {"source": "FILE_UPLOAD", "video_size": size, "chunk_size": chunk,
            "total_chunk_count": count if count is not None else max(1, size // chunk)}


def init(api: Api, source: dict, **info) -> requests.Response:
    return api("POST", INIT, json={"post_info": post_info(**info), "source_info": source})


def pull(api: Api, url: str, **info) -> requests.Response:
    return init(api, {"source": "PULL_FROM_URL", "video_url": url}, **info)


def photo(api: Api, urls: list[str], cover: int = 0, **info) -> requests.Response:
    info = {"title": "cats", "description": "a #photo post", "privacy_level": "SELF_ONLY", "disable_comment": False,
            "auto_add_music": True, **info}
    return api("POST", PHOTO_INIT, json={
        "post_info": info, "source_info": {"source": "PULL_FROM_URL", "photo_cover_index": cover, "photo_images": urls},
        "post_mode": "DIRECT_POST", "media_type": "PHOTO"})


def local(tiktok, upload_url: str) -> str:
    """The upload URL on the emulator, as FANOUT_PLATFORM_HOSTS makes it."""
    assert upload_url.startswith("https://open-upload.tiktokapis.com/video/?upload_id=")
    return upload_url.replace("https://open-upload.tiktokapis.com", tiktok.base_url)


def put(tiktok, upload_url: str, chunk: bytes, first: int, total: int, content_type: str = "video/mp4",
        **headers) -> requests.Response:
    headers = {"Content-Type": content_type, "Content-Range": f"bytes {first}-{first + len(chunk) - 1}/{total}",
               **headers}
    return requests.put(local(tiktok, upload_url), data=chunk, headers=headers, timeout=60)


def video(size: int) -> bytes:
    """An MP4 of `size` bytes (its header, then zeros)."""
    head = mp4_bytes(3)
    return head + bytes(size - len(head))


def uploaded(tiktok, api: Api, data: bytes, chunk: int | None = None, content_type: str = "video/mp4") -> str:
    """init, then every chunk PUT (206s, then 201): the publish id."""
    chunk = chunk or len(data)
    answer = data_of(init(api, file_source(len(data), chunk)))
    count = max(1, len(data) // chunk)
    for index in range(count):
        start = index * chunk
        end = len(data) if index == count - 1 else start + chunk
        sent = put(tiktok, answer["upload_url"], data[start:end], start, len(data), content_type)
        assert (sent.status_code, sent.content) == (201 if index == count - 1 else 206, b""), sent.text
    return answer["publish_id"]


def status(api: Api, publish_id: str) -> dict:
    return data_of(api("POST", STATUS, json={"publish_id": publish_id}))


# --- OAuth ------------------------------------------------------------------------------------


def test_the_web_login_round_trip_gives_the_flat_token_answer(tiktok):
    answer = exchange(tiktok, code_of(tiktok))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"access_token", "expires_in", "open_id", "refresh_expires_in", "refresh_token", "scope",
                         "token_type"}
    assert body["access_token"].startswith("act.") and body["refresh_token"].startswith("rft.")
    assert (body["expires_in"], body["refresh_expires_in"], body["open_id"], body["scope"], body["token_type"]) == (
        86400, 31536000, OPEN_ID, SCOPE, "Bearer")


def test_authorize_redirects_with_the_code_the_granted_scopes_and_the_state(tiktok):
    query = back(authorize(tiktok))
    assert set(query) == {"code", "scopes", "state"}
    assert (query["scopes"], query["state"]) == (SCOPE, "st-1")


def test_a_code_carries_characters_the_redirect_escapes(tiktok):
    location = authorize(tiktok).headers["Location"]
    assert "%2A" in location and "*" in back(authorize(tiktok))["code"]


def test_a_user_who_denies_is_redirected_with_access_denied_a_description_and_the_state(tiktok):
    tiktok.deny_consent()
    query = back(authorize(tiktok))
    assert (query["error"], query["state"], set(query)) == ("access_denied", "st-1",
                                                            {"error", "error_description", "state"})


@pytest.mark.parametrize("params", [{"client_key": "other"}, {"redirect_uri": ""}])
def test_an_authorization_for_another_app_or_without_a_redirect_uri_is_an_error_page(tiktok, params):
    answer = authorize(tiktok, **params)
    assert answer.status_code == 400 and answer.headers["Content-Type"].startswith("text/html")


def test_a_redirect_uri_outside_the_registered_ones_is_an_error_page(tiktok):
    tiktok.redirect_uris = {REDIRECT}
    assert authorize(tiktok, redirect_uri="https://elsewhere.example/cb").status_code == 400
    assert authorize(tiktok).status_code == 302


@pytest.mark.parametrize("params,error", [
    ({"response_type": "token"}, "unsupported_response_type"), ({"scope": "video.publish,nonsense"}, "invalid_scope"),
    ({"scope": ""}, "invalid_scope"),
])
def test_another_response_type_or_unknown_scopes_are_sent_back_as_oauth_errors(tiktok, params, error):
    query = back(authorize(tiktok, **params))
    assert (query["error"], query["state"]) == (error, "st-1")


def test_the_consenting_user_can_be_another_one(tiktok):
    other = tiktok.add_user("other_creator")
    tiktok.consent_as(other.open_id)
    assert exchange(tiktok, code_of(tiktok)).json()["open_id"] == other.open_id


def test_a_code_is_single_use(tiktok):
    code = code_of(tiktok)
    assert exchange(tiktok, code).status_code == 200
    assert oauth_error(exchange(tiktok, code))["error"] == "invalid_grant"


def test_a_code_lives_10_minutes(tiktok):
    code, later = code_of(tiktok), code_of(tiktok)
    tiktok.advance(599)
    assert exchange(tiktok, code).status_code == 200
    tiktok.advance(1)
    assert oauth_error(exchange(tiktok, later))["error"] == "invalid_grant"


def test_the_code_exchange_needs_the_redirect_uri_of_the_authorization(tiktok):
    code = code_of(tiktok)
    answer = oauth(tiktok, grant_type="authorization_code", code=code, redirect_uri="https://elsewhere.example/cb")
    assert oauth_error(answer)["error"] == "invalid_grant"
    assert exchange(tiktok, code).status_code == 200


@pytest.mark.parametrize("path", ["/v2/oauth/token/", "/v2/oauth/revoke/"])
@pytest.mark.parametrize("client", [{"client_key": "other"}, {"client_secret": "wrong"}, {"client_secret": ""}])
def test_a_wrong_client_key_or_secret_is_401_invalid_client(tiktok, tokens, path, client):
    answer = oauth(tiktok, path, grant_type="refresh_token", refresh_token=tokens[1], token=tokens[0], **client)
    assert oauth_error(answer, 401)["error"] == "invalid_client"


def test_another_grant_type_is_unsupported_grant_type(tiktok):
    assert oauth_error(oauth(tiktok, grant_type="client_credentials"))["error"] == "unsupported_grant_type"


def test_a_refresh_answers_a_new_pair_and_the_refresh_token_sent_stops_at_once(tiktok, tokens):
    answer = refresh(tiktok, tokens[1])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["refresh_token"] != tokens[1] and body["access_token"] != tokens[0]
    error = oauth_error(refresh(tiktok, tokens[1]))
    assert (error["error"], error["error_description"]) == ("invalid_grant", "Refresh token is invalid or expired.")
    assert refresh(tiktok, body["refresh_token"]).status_code == 200


def test_the_access_token_a_refresh_replaces_keeps_working_until_it_expires(tiktok, api, tokens):
    refresh(tiktok, tokens[1])
    assert api("POST", CREATOR).status_code == 200
    tiktok.advance(86400)
    error_of(api("POST", CREATOR), 401)


@pytest.mark.parametrize("which", ["unknown", "expired", "access"])
def test_an_unknown_or_expired_refresh_token_or_an_access_token_is_invalid_grant(tiktok, tokens, which):
    if which == "expired":
        tiktok.advance(31536000)
    value = {"unknown": "rft.nothing", "expired": tokens[1], "access": tokens[0]}[which]
    assert oauth_error(refresh(tiktok, value))["error"] == "invalid_grant"


def test_token_lifetimes_can_be_set_for_tokens_issued_from_then(tiktok):
    tiktok.set_token_lifetimes(7200, 15552000)
    body = exchange(tiktok, code_of(tiktok)).json()
    assert (body["expires_in"], body["refresh_expires_in"]) == (7200, 15552000)
    api = Api(tiktok.base_url, body["access_token"])
    tiktok.advance(7199)
    assert api("POST", CREATOR).status_code == 200
    tiktok.advance(1)
    assert error_of(api("POST", CREATOR), 401)["code"] == "access_token_invalid"


def test_revoke_ends_every_token_of_the_user(tiktok, api, tokens):
    other_access, other_refresh = tiktok.issue_token()
    answer = oauth(tiktok, "/v2/oauth/revoke/", token=tokens[0])
    assert (answer.status_code, answer.json()) == (200, {})
    error_of(api("POST", CREATOR), 401)
    error_of(api("POST", CREATOR, token=other_access), 401)
    assert oauth_error(refresh(tiktok, other_refresh))["error"] == "invalid_grant"


@pytest.mark.parametrize("which", ["missing", "unknown", "revoked", "refresh"])
def test_a_missing_unknown_revoked_or_refresh_token_is_401_access_token_invalid(tiktok, tokens, which):
    if which == "revoked":
        assert tiktok.revoke_tokens() == 2
    token = {"missing": None, "unknown": "act.nothing", "revoked": tokens[0], "refresh": tokens[1]}[which]
    error = error_of(Api(tiktok.base_url, token)("POST", CREATOR), 401)
    assert error == {"code": "access_token_invalid", "message": "The access token is invalid or not found in the "
                     "request.", "log_id": error["log_id"]}


@pytest.mark.parametrize("path", [CREATOR, INIT, PHOTO_INIT, STATUS])
def test_a_token_without_video_publish_is_401_scope_not_authorized_on_posting_endpoints(tiktok, path):
    api = Api(tiktok.base_url, tiktok.issue_token(scopes=["user.info.basic", "video.upload"])[0])
    assert error_of(api("POST", path, json={}), 401)["code"] == "scope_not_authorized"


def test_user_info_answers_the_fields_asked_for(api):
    user = data_of(api("GET", "/v2/user/info/", params={"fields": "open_id,display_name,username"}))["user"]
    assert user == {"open_id": OPEN_ID, "display_name": "Emu TikTok", "username": "emu_tiktok"}


def test_asking_the_username_without_user_info_profile_is_scope_permission_missed(tiktok):
    api = Api(tiktok.base_url, tiktok.issue_token(scopes=["user.info.basic", "video.publish"])[0])
    assert error_of(api("GET", "/v2/user/info/", params={"fields": "open_id,username"}), 401)["code"] == (
        "scope_permission_missed")
    assert data_of(api("GET", "/v2/user/info/", params={"fields": "open_id,avatar_url"}))["user"]["open_id"] == OPEN_ID


@pytest.mark.parametrize("fields", ["", "open_id,follower_count"])
def test_user_info_without_fields_or_with_unknown_ones_is_invalid_param(api, fields):
    assert error_of(api("GET", "/v2/user/info/", params={"fields": fields}), 400)["code"] == "invalid_param"


def test_the_call_log_masks_the_secret_the_tokens_and_the_upload_token(tiktok, api, tokens):
    refresh(tiktok, tokens[1])
    oauth(tiktok, "/v2/oauth/revoke/", token=tokens[0])
    answer = data_of(init(Api(tiktok.base_url, tiktok.issue_token()[0]), file_source(1000)))
    put(tiktok, answer["upload_url"], video(1000), 0, 1000)
    token_call, revoke_call, _, upload_call = tiktok.calls
    assert (token_call.body["client_secret"], token_call.body["refresh_token"]) == ("***", "***")
    assert revoke_call.body["token"] == "***" and upload_call.query["upload_token"] == "***"


# --- creator info -----------------------------------------------------------------------------


def test_creator_info_answers_the_creators_settings(api):
    assert data_of(api("POST", CREATOR)) == {
        "creator_avatar_url": f"https://p16-sign.tiktokcdn-us.com/emu/{OPEN_ID}~c5_168x168.jpeg",
        "creator_username": "emu_tiktok", "creator_nickname": "Emu TikTok",
        "privacy_level_options": ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"],
        "comment_disabled": False, "duet_disabled": False, "stitch_disabled": False,
        "max_video_post_duration_sec": 600}


def test_a_creators_own_options_and_maximum_duration_are_answered(tiktok):
    user = tiktok.add_user("private_one", privacy_level_options=["FOLLOWER_OF_CREATOR", "SELF_ONLY"],
                           max_video_post_duration_sec=180)
    info = data_of(Api(tiktok.base_url, tiktok.issue_token(user.open_id)[0])("POST", CREATOR))
    assert (info["privacy_level_options"], info["max_video_post_duration_sec"]) == (
        ["FOLLOWER_OF_CREATOR", "SELF_ONLY"], 180)


def test_an_unaudited_app_is_offered_self_only(tiktok, api):
    tiktok.set_unaudited(True)
    assert data_of(api("POST", CREATOR))["privacy_level_options"] == ["SELF_ONLY"]


def test_creator_info_takes_20_calls_a_minute_per_token(tiktok, api):
    for _ in range(20):
        data_of(api("POST", CREATOR))
    assert error_of(api("POST", CREATOR), 429)["code"] == "rate_limit_exceeded"
    assert api("POST", CREATOR, token=tiktok.issue_token()[0]).status_code == 200
    tiktok.advance(60)
    assert api("POST", CREATOR).status_code == 200


# --- video init -------------------------------------------------------------------------------


def test_a_file_upload_init_answers_a_publish_id_and_an_upload_url_on_the_upload_host(tiktok, api):
    answer = data_of(init(api, file_source(1000)))
    assert answer["publish_id"].startswith("v_pub_file~v2-1.") and len(answer["publish_id"]) <= 64
    query = parse_qs(urlsplit(answer["upload_url"]).query)
    assert answer["upload_url"].startswith("https://open-upload.tiktokapis.com/video/?upload_id=")
    assert set(query) == {"upload_id", "upload_token"} and len(answer["upload_url"]) <= 256
    [post] = tiktok.posts[OPEN_ID]
    assert (post.publish_id, post.status, post.title, post.source, post.media) == (
        answer["publish_id"], "PROCESSING_UPLOAD", "a #cat video", "FILE_UPLOAD", "video")


def test_an_upload_base_set_off_tiktoks_hosts_is_what_the_next_inits_upload_url_names_until_reset(tiktok, api):
    tiktok.set_upload_base("http://127.0.0.1:9/")
    answer = data_of(init(api, file_source(1000)))
    assert answer["upload_url"].startswith("http://127.0.0.1:9/video/?upload_id=")
    tiktok.reset()
    assert tiktok.upload_base == "https://open-upload.tiktokapis.com"


def test_video_init_takes_6_calls_in_a_sliding_minute_per_token(tiktok, api):
    for call in range(6):
        tiktok.advance(10 if call else 0)
        data_of(init(api, file_source(1000)))
    tiktok.advance(9)
    assert error_of(init(api, file_source(1000)), 429)["code"] == "rate_limit_exceeded"
    tiktok.advance(1)  # the first call is now 60 s old: out of the window
    assert init(api, file_source(1000)).status_code == 200


@pytest.mark.parametrize("level", [None, "NOBODY", "FOLLOWER_OF_CREATOR"])
def test_a_privacy_level_missing_or_not_among_the_creators_options_is_403_mismatch(tiktok, level):
    user = tiktok.add_user("picky", privacy_level_options=["PUBLIC_TO_EVERYONE", "SELF_ONLY"])
    api = Api(tiktok.base_url, tiktok.issue_token(user.open_id)[0])
    assert error_of(init(api, file_source(1000), privacy_level=level), 403)["code"] == "privacy_level_option_mismatch"
    assert tiktok.posts[user.open_id] == []


def test_branded_content_posted_private_is_refused_naming_the_option(api):
    error = error_of(init(api, file_source(1000), privacy_level="SELF_ONLY", brand_content_toggle=True), 400)
    assert error["code"] == "invalid_param" and "brand_content_toggle" in error["message"]


def test_a_switch_that_is_not_a_boolean_is_refused(api):
    assert error_of(init(api, file_source(1000), is_aigc="yes"), 400)["code"] == "invalid_param"


def test_comments_asked_on_for_a_creator_who_turned_them_off_are_refused(tiktok):
    user = tiktok.add_user("quiet", comment_disabled=True)
    api = Api(tiktok.base_url, tiktok.issue_token(user.open_id)[0])
    assert "disable_comment" in error_of(init(api, file_source(1000), disable_comment=False), 400)["message"]
    assert init(api, file_source(1000), disable_comment=True).status_code == 200


def test_an_unaudited_app_posting_other_than_self_only_is_refused(tiktok, api):
    tiktok.set_unaudited(True)
    error = error_of(init(api, file_source(1000), privacy_level="PUBLIC_TO_EVERYONE"), 403)
    assert error["code"] == "unaudited_client_can_only_post_to_private_accounts"
    assert init(api, file_source(1000), privacy_level="SELF_ONLY").status_code == 200


def test_a_title_over_2200_utf16_units_is_invalid_param_naming_its_length(api):
    assert init(api, file_source(1000), title="😀" * 1100).status_code == 200  # 2 units each
    error = error_of(init(api, file_source(1000), title="😀" * 1100 + "a"), 400)
    assert error["code"] == "invalid_param" and "2201" in error["message"]


def test_the_daily_cap_counts_posts_complete_or_processing_and_not_failed_ones(tiktok, api):
    tiktok.set_daily_cap(2)
    uploaded(tiktok, api, video(1000))
    tiktok.advance(5)  # complete
    data_of(init(api, file_source(1000)))  # processing: its upload not begun
    assert error_of(init(api, file_source(1000)), 403)["code"] == "spam_risk_too_many_posts"
    tiktok.set_daily_cap(3)
    uploaded(tiktok, api, b"not a video at all")  # fails its format check
    assert init(api, file_source(1000)).status_code == 200


def test_the_daily_cap_frees_a_place_24_hours_after_a_post(tiktok, api):
    tiktok.set_daily_cap(1)
    uploaded(tiktok, api, video(1000))
    tiktok.advance(24 * 3600 - 1)
    api.token = tiktok.issue_token()[0]  # the first one lasted 24 h too
    error_of(init(api, file_source(1000)), 403)
    tiktok.advance(1)
    assert init(api, file_source(1000)).status_code == 200


@pytest.mark.parametrize("size,chunk,count", [
    (1000, 1000, 1), (5 * MIB - 1, 5 * MIB - 1, 1), (5 * MIB, 5 * MIB, 1), (64 * MIB, 64 * MIB, 1),
    (12 * MIB, 5 * MIB, 2), (100 * MIB, 64 * MIB, 1), (128 * MIB + 10 * MIB, 10 * MIB, 13), (5000 * MIB, 5 * MIB, 1000),
], ids=["small", "just under 5 MiB", "5 MiB whole", "64 MiB whole", "remainder in the last", "100 MiB: 1 chunk",
        "13 chunks", "1000 chunks"])
def test_chunk_plans_that_keep_the_media_transfer_rules_are_taken(api, size, chunk, count):
    assert init(api, file_source(size, chunk, count)).status_code == 200


@pytest.mark.parametrize("size,chunk,count", [
    (1000, 500, 2), (1000, 1000, 2), (12 * MIB, 5 * MIB - 1, 2), (200 * MIB, 65 * MIB, 3), (12 * MIB, 5 * MIB, 3),
    (12 * MIB, 5 * MIB, 1), (200 * MIB, 64 * MIB, 2), (5005 * MIB, 5 * MIB, 1001), (0, 0, 1), (1000, "1000", 1),
], ids=["small in chunks", "small counted twice", "chunk under 5 MiB", "chunk over 64 MiB", "count not floor",
        "count too small", "last over 128 MiB", "1001 chunks", "empty", "not a number"])
def test_chunk_plans_that_break_the_media_transfer_rules_are_invalid_param(tiktok, api, size, chunk, count):
    assert error_of(init(api, file_source(size, chunk, count)), 400)["code"] == "invalid_param"
    assert tiktok.posts[OPEN_ID] == []


@pytest.mark.parametrize("body", [None, {"post_info": post_info()}, {"post_info": post_info(),
                                                                     "source_info": {"source": "INBOX"}}])
def test_a_body_without_a_json_object_or_a_known_source_is_invalid_param(api, body):
    assert error_of(api("POST", INIT, json=body), 400)["code"] == "invalid_param"


# --- uploads ------------------------------------------------------------------------------------


def test_chunks_go_up_in_order_206_then_201_and_are_counted_and_hashed_not_kept(tiktok, api):
    data = video(12 * MIB + 123)
    publish_id = uploaded(tiktok, api, data, chunk=5 * MIB)  # 5 MiB, then 7 MiB + 123
    [upload] = tiktok.uploads.values()
    digest = hashlib.sha256(data).hexdigest()
    assert (upload.publish_id, upload.chunks_received, upload.bytes_received, upload.sha256, upload.complete) == (
        publish_id, 2, len(data), digest, True)
    [post] = tiktok.posts[OPEN_ID]
    assert (post.bytes_received, post.sha256) == (len(data), digest)
    assert all(not isinstance(v, bytes) or len(v) <= 64 for v in vars(tiktok._uploads[upload.upload_id]).values())


def test_status_shows_processing_upload_with_the_bytes_so_far(tiktok, api):
    data = video(12 * MIB)
    answer = data_of(init(api, file_source(len(data), 5 * MIB)))
    put(tiktok, answer["upload_url"], data[:5 * MIB], 0, len(data))
    assert status(api, answer["publish_id"]) == {"status": "PROCESSING_UPLOAD", "publicaly_available_post_id": [],
                                                 "uploaded_bytes": 5 * MIB}


@pytest.mark.parametrize("fault", ["skipped", "short", "total", "body", "content type", "no range"])
def test_a_chunk_out_of_order_of_another_size_or_badly_labelled_is_invalid_param(tiktok, api, fault):
    data = video(12 * MIB)
    url = data_of(init(api, file_source(len(data), 5 * MIB)))["upload_url"]
    chunk, first, total, headers, content_type = data[:5 * MIB], 0, len(data), {}, "video/mp4"
    if fault == "skipped":
        chunk, first = data[5 * MIB:], 5 * MIB
    elif fault == "short":
        chunk = data[:4 * MIB]
    elif fault == "total":
        total = len(data) + 1
    elif fault == "body":
        headers = {"Content-Range": f"bytes 0-{5 * MIB - 1}/{len(data)}"}
        chunk = data[:5 * MIB - 1]
    elif fault == "content type":
        content_type = "application/octet-stream"
    else:
        headers = {"Content-Range": ""}
    assert error_of(put(tiktok, url, chunk, first, total, content_type, **headers), 400)["code"] == "invalid_param"
    assert put(tiktok, url, data[:5 * MIB], 0, len(data)).status_code == 206


def test_a_chunk_after_the_last_is_invalid_param(tiktok, api):
    url = data_of(init(api, file_source(1000)))["upload_url"]
    assert put(tiktok, url, video(1000), 0, 1000).status_code == 201
    assert error_of(put(tiktok, url, video(1000), 0, 1000), 400)["code"] == "invalid_param"


def test_an_unknown_upload_or_a_wrong_upload_token_is_404(tiktok, api):
    url = data_of(init(api, file_source(1000)))["upload_url"]
    assert error_of(put(tiktok, url.replace("upload_token=", "upload_token=x"), video(1000), 0, 1000), 404)
    assert error_of(put(tiktok, url.replace("upload_id=", "upload_id=9"), video(1000), 0, 1000), 404)


def test_an_upload_url_an_hour_old_is_403_and_its_publish_fails(tiktok, api):
    answer = data_of(init(api, file_source(1000)))
    tiktok.advance(3600)
    assert error_of(put(tiktok, answer["upload_url"], video(1000), 0, 1000), 403)["code"] == "invalid_param"
    assert (status(api, answer["publish_id"])["status"], tiktok.posts[OPEN_ID][0].fail_reason) == ("FAILED",
                                                                                                   "internal")


@pytest.mark.parametrize("data,content_type", [(mp4_bytes(3, brand=b"qt  "), "video/quicktime"),
                                               (webm_bytes(), "video/webm")], ids=["mov", "webm"])
def test_mov_and_webm_files_are_videos_too(tiktok, api, data, content_type):
    publish_id = uploaded(tiktok, api, data, content_type=content_type)
    tiktok.advance(5)
    assert status(api, publish_id)["status"] == "PUBLISH_COMPLETE"


def test_a_file_that_is_not_a_video_fails_the_format_check_once_uploaded(tiktok, api):
    publish_id = uploaded(tiktok, api, png_bytes())
    assert status(api, publish_id) == {"status": "FAILED", "fail_reason": "file_format_check_failed",
                                       "publicaly_available_post_id": [], "uploaded_bytes": len(png_bytes())}


def test_uploads_of_hundreds_of_mib_go_through(tiktok, api):
    size, chunk = 300 * MIB + 7, 64 * MIB  # 3 chunks of 64 MiB, then 108 MiB + 7
    answer = data_of(init(api, file_source(size, chunk)))
    head, digest = mp4_bytes(3), hashlib.sha256()
    for index, length in enumerate([chunk] * 3 + [size - 3 * chunk]):
        body = head + bytes(length - len(head)) if index == 0 else bytes(length)  # one chunk in memory at a time
        digest.update(body)
        assert put(tiktok, answer["upload_url"], body, index * chunk, size).status_code == (201 if index == 3 else 206)
    assert tiktok.posts[OPEN_ID][0].sha256 == digest.hexdigest()


# --- status -------------------------------------------------------------------------------------


def test_a_post_completes_after_the_processing_time_with_its_public_id(tiktok, api):
    publish_id = uploaded(tiktok, api, video(1000))
    tiktok.advance(4)
    assert status(api, publish_id)["status"] == "PROCESSING_UPLOAD"
    tiktok.advance(1)
    done = status(api, publish_id)
    post_id = tiktok.posts[OPEN_ID][0].post_id
    assert done == {"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": [post_id], "uploaded_bytes": 1000}
    assert isinstance(post_id, int) and post_id < 2 ** 63


def test_moderation_delays_the_public_post_id(tiktok, api):
    tiktok.set_processing_time(2, moderation_seconds=30)
    publish_id = uploaded(tiktok, api, video(1000))
    tiktok.advance(2)
    assert status(api, publish_id)["publicaly_available_post_id"] == []
    assert status(api, publish_id)["status"] == "PUBLISH_COMPLETE"
    tiktok.advance(30)
    assert status(api, publish_id)["publicaly_available_post_id"] == [tiktok.posts[OPEN_ID][0].post_id]


def test_the_next_publish_can_be_forced_to_fail_once_processed(tiktok, api):
    tiktok.force_next_publish("FAILED", "duration_check_failed")
    publish_id = uploaded(tiktok, api, video(1000))
    assert status(api, publish_id)["status"] == "PROCESSING_UPLOAD"
    tiktok.advance(5)
    assert status(api, publish_id)["fail_reason"] == "duration_check_failed"
    tiktok.advance(60)
    assert status(api, uploaded(tiktok, api, video(1000)))["status"] == "PROCESSING_UPLOAD"


def test_the_next_publish_can_be_kept_processing_forever(tiktok, api):
    tiktok.force_next_publish("PROCESSING")
    publish_id = uploaded(tiktok, api, video(1000))
    tiktok.advance(30 * 24 * 3600)
    api.token = tiktok.issue_token()[0]
    assert status(api, publish_id)["status"] == "PROCESSING_UPLOAD"


def test_another_creators_or_an_unknown_publish_id_is_invalid_param(tiktok, api):
    publish_id = data_of(init(api, file_source(1000)))["publish_id"]
    other = Api(tiktok.base_url, tiktok.issue_token(tiktok.add_user("other").open_id)[0])
    assert error_of(other("POST", STATUS, json={"publish_id": publish_id}), 400)["code"] == "invalid_param"
    assert error_of(api("POST", STATUS, json={"publish_id": "v_pub_file~v2-1.1"}), 400)["code"] == "invalid_param"


def test_status_takes_30_calls_a_minute_per_token(tiktok, api):
    publish_id = data_of(init(api, file_source(1000)))["publish_id"]
    for _ in range(30):
        status(api, publish_id)
    assert error_of(api("POST", STATUS, json={"publish_id": publish_id}), 429)["code"] == "rate_limit_exceeded"


# --- pulls --------------------------------------------------------------------------------------


def test_a_video_from_an_unverified_host_is_403_url_ownership_unverified(tiktok, api, media_server):
    assert error_of(pull(api, media_server.url("/clip.mp4")), 403)["code"] == "url_ownership_unverified"
    assert media_server.calls == [] and tiktok.posts[OPEN_ID] == []


def test_a_verified_prefix_admits_the_urls_under_it_only(tiktok, api, media_server):
    tiktok.set_verified(prefixes=[media_server.url("/verified/")])
    media_server.put("/verified/clip.mp4", mp4_bytes(3), "video/mp4")
    assert data_of(pull(api, media_server.url("/verified/clip.mp4")))["publish_id"].startswith("v_pub_url~v2.")
    assert error_of(pull(api, media_server.url("/clip.mp4")), 403)["code"] == "url_ownership_unverified"


def test_a_pulled_video_is_fetched_then_completes_after_processing(tiktok, api, verified):
    publish_id = data_of(pull(api, verified.url("/clip.mp4")))["publish_id"]
    assert [c.path for c in verified.calls] == ["/clip.mp4"]
    size = len(mp4_bytes(3.0))
    assert status(api, publish_id) == {"status": "PROCESSING_DOWNLOAD", "publicaly_available_post_id": [],
                                       "downloaded_bytes": size}
    tiktok.advance(5)
    assert status(api, publish_id)["status"] == "PUBLISH_COMPLETE"
    assert tiktok.posts[OPEN_ID][0].sha256 == hashlib.sha256(mp4_bytes(3.0)).hexdigest()


def test_a_video_that_cannot_be_fetched_fails_video_pull_failed_at_once(api, verified):
    publish_id = data_of(pull(api, verified.url("/missing.mp4")))["publish_id"]
    assert status(api, publish_id)["fail_reason"] == "video_pull_failed"


def test_a_pulled_file_that_is_not_a_video_fails_the_format_check(api, verified):
    publish_id = data_of(pull(api, verified.url("/photo.jpg")))["publish_id"]
    assert status(api, publish_id)["fail_reason"] == "file_format_check_failed"


# --- photos -------------------------------------------------------------------------------------


def test_a_photo_post_pulls_each_image_and_completes(tiktok, api, verified):
    webp = verified.put("/photo.webp", b"RIFF\x00\x00\x00\x00WEBPVP8 " + bytes(100), "image/webp")
    publish_id = data_of(photo(api, [verified.url("/photo.jpg"), webp], cover=1))["publish_id"]
    assert publish_id.startswith("p_pub_url~v2.")
    tiktok.advance(5)
    assert status(api, publish_id)["status"] == "PUBLISH_COMPLETE"
    [post] = tiktok.posts[OPEN_ID]
    assert (post.media, post.photo_urls, post.description) == ("photo", (verified.url("/photo.jpg"), webp),
                                                               "a #photo post")
    assert post.cover_index == 1  # the second: the index starts at 0


@pytest.mark.parametrize("count", [0, 36])
def test_a_photo_post_takes_1_to_35_images(api, verified, count):
    assert error_of(photo(api, [verified.url("/photo.jpg")] * count), 400)["code"] == "invalid_param"


@pytest.mark.parametrize("field,limit", [("title", 90), ("description", 4000)])
def test_a_photo_title_over_90_or_description_over_4000_utf16_units_is_invalid_param(api, verified, field, limit):
    assert photo(api, [verified.url("/photo.jpg")], **{field: "x" * limit}).status_code == 200
    error = error_of(photo(api, [verified.url("/photo.jpg")], **{field: "x" * (limit + 1)}), 400)
    assert error["code"] == "invalid_param" and str(limit + 1) in error["message"]


@pytest.mark.parametrize("change", [{"post_mode": "MEDIA_UPLOAD"}, {"media_type": "VIDEO"}, {"cover": 1}])
def test_a_photo_post_other_than_a_direct_post_of_photos_with_a_cover_among_them_is_invalid_param(api, verified,
                                                                                                 change):
    if "cover" in change:
        answer = photo(api, [verified.url("/photo.jpg")], cover=1)
    else:
        body = {"post_info": {"privacy_level": "SELF_ONLY"}, "post_mode": "DIRECT_POST", "media_type": "PHOTO",
                "source_info": {"source": "PULL_FROM_URL", "photo_images": [verified.url("/photo.jpg")]}, **change}
        answer = api("POST", PHOTO_INIT, json=body)
    assert error_of(answer, 400)["code"] == "invalid_param"


def test_a_photo_from_an_unverified_host_is_403(tiktok, api, verified):
    tiktok.set_verified(prefixes=[verified.url("/photo.jpg")])
    assert photo(api, [verified.url("/photo.jpg")]).status_code == 200
    assert error_of(photo(api, [verified.url("/photo.jpg"), verified.url("/photo.png")]), 403)["code"] == (
        "url_ownership_unverified")


@pytest.mark.parametrize("path,reason", [("/missing.jpg", "photo_pull_failed"),
                                         ("/photo.png", "file_format_check_failed"),
                                         ("/huge.jpg", "picture_size_check_failed")])
def test_a_photo_that_cannot_be_fetched_is_not_jpeg_or_webp_or_is_over_20_mib_fails(api, verified, path, reason):
    verified.put("/huge.jpg", jpeg_bytes() + bytes(20 * MIB), "image/jpeg")
    publish_id = data_of(photo(api, [verified.url("/photo.jpg"), verified.url(path)]))["publish_id"]
    assert status(api, publish_id)["fail_reason"] == reason


# --- controls, hosts, running by hand -----------------------------------------------------------


def test_fail_tiktok_answers_that_envelope_error_without_effect(tiktok, api):
    tiktok.fail_tiktok("/video/init/$", 403, "spam_risk_user_banned_from_posting", "banned")
    error = error_of(init(api, file_source(1000)), 403)
    assert (error["code"], error["message"], tiktok.posts[OPEN_ID]) == ("spam_risk_user_banned_from_posting", "banned",
                                                                        [])
    assert init(api, file_source(1000)).status_code == 200


def test_an_unknown_path_is_a_404_envelope(api):
    assert error_of(api("POST", "/v2/post/publish/video/init"), 404)["code"] == "not_found"


def test_reset_forgets_tokens_and_posts_keeps_users_and_puts_the_settings_back(tiktok, api):
    tiktok.add_user("kept")
    uploaded(tiktok, api, video(1000))
    tiktok.set_daily_cap(1)
    tiktok.set_processing_time(60, moderation_seconds=600)
    tiktok.set_verified(domains=["127.0.0.1"])
    tiktok.set_unaudited()
    tiktok.reset()
    assert [u.username for u in tiktok.users] == ["emu_tiktok", "kept"] and tiktok.uploads == {}
    assert all(posts == [] for posts in tiktok.posts.values())
    error_of(api("POST", CREATOR), 401)
    assert (tiktok.daily_cap, tiktok.processing_seconds, tiktok.moderation_seconds, tiktok.verified_domains,
            tiktok.unaudited) == (15, 5, 0, (), False)


def test_the_controls_and_views_are_reachable_over_http(tiktok, media_server):
    control = tiktok.base_url + "/_emulator/"
    access, _ = requests.post(control + "issue_token", json={}, timeout=10).json()["result"]
    api = Api(tiktok.base_url, access)
    requests.post(control + "set_verified", json={"domains": ["127.0.0.1"]}, timeout=10)
    requests.post(control + "force_next_publish", json={"status": "FAILED", "fail_reason": "spam_risk_text"},
                  timeout=10)
    publish_id = data_of(pull(api, media_server.url("/clip.mp4")))["publish_id"]
    requests.post(control + "advance", json={"seconds": 5}, timeout=10)
    [post] = requests.get(control + "posts", timeout=10).json()[OPEN_ID]
    assert (post["publish_id"], post["status"], post["fail_reason"]) == (publish_id, "FAILED", "spam_risk_text")
    requests.post(control + "fail_tiktok", timeout=10, json={"path": "creator_info", "status": 500,
                                                             "code": "internal_error"})
    assert error_of(api("POST", CREATOR), 500)["code"] == "internal_error"
    assert requests.post(control + "force_next_publish", json={"status": "DONE"}, timeout=10).status_code == 400


@pytest.mark.slow
def test_it_runs_on_its_own_with_its_settings_and_the_verified_host():
    with run_by_hand("tiktok", "--port", "0", "--client-id", "ck", "--user=-000x:someone", "--verified", "127.0.0.1",
                     lines=4) as (base_url, settings):
        assert settings["FANOUT_PLATFORM_HOSTS"] == ",".join(f"{host}={base_url}" for host in HOSTS)
        assert (settings["FANOUT_TIKTOK_CLIENT_ID"], settings["FANOUT_TIKTOK_CLIENT_SECRET"],
                settings["FANOUT_TIKTOK_VERIFIED_DOMAINS"]) == ("ck", "tiktok-app-secret", "127.0.0.1")
        users = requests.get(base_url + "/_emulator/users", timeout=10).json()
        assert [(u["open_id"], u["username"]) for u in users] == [("-000x", "someone")]
