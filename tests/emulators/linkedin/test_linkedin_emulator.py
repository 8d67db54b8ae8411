"""The LinkedIn emulator keeps to the protocol LinkedIn documents for a member's app:
OAuth 2.0, userinfo, the versioned Posts, Images and Videos APIs
(tests/emulators/README.md#linkedin)."""
from __future__ import annotations

from urllib.parse import quote

import pytest
import requests

from ..clock import EmulatorClock
from ..conftest import START, redirect_query, serving
from ..media import gif_bytes, jpeg_bytes, mp4_bytes
from . import LinkedInEmulator
from .text import shown

SUB = "emuLiMember01"
URN = f"urn:li:person:{SUB}"
REDIRECT = "https://fanout.invalid/connect/linkedin/callback"
VERSION = "202611"


@pytest.fixture
def li():
    yield from serving(LinkedInEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


class Rest:
    """Calls to /rest/ with the member's token and the version headers."""

    def __init__(self, li, token: str, version: str | None = VERSION):
        self.li, self.token, self.version = li, token, version

    def __call__(self, method: str, path: str, *, token: str | None = None, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {token or self.token}", "X-Restli-Protocol-Version": "2.0.0"}
        if self.version:
            headers["LinkedIn-Version"] = self.version
        headers.update(kwargs.pop("headers", {}))
        return requests.request(method, self.li.base_url + path, headers=headers, timeout=10, **kwargs)


@pytest.fixture
def token(li) -> str:
    return li.issue_token(SUB)[0]


@pytest.fixture
def rest(li, token) -> Rest:
    return Rest(li, token)


def authorize(li, **params) -> requests.Response:
    query = {"response_type": "code", "client_id": "app-id", "redirect_uri": REDIRECT, "state": "st-1",
             "scope": "openid profile w_member_social", **params}
    return requests.get(f"{li.base_url}/oauth/v2/authorization", params=query, allow_redirects=False, timeout=10)


def token_call(li, **form) -> requests.Response:
    return requests.post(f"{li.base_url}/oauth/v2/accessToken",
                         data={"client_id": "app-id", "client_secret": "app-secret", **form}, timeout=10)


def exchange(li, code: str) -> requests.Response:
    return token_call(li, grant_type="authorization_code", code=code, redirect_uri=REDIRECT)


def body(commentary: str = "Hello LinkedIn", **extra) -> dict:
    return {"author": URN, "commentary": commentary, "visibility": "PUBLIC",
            "distribution": {"feedDistribution": "MAIN_FEED", "targetEntities": [], "thirdPartyDistributionChannels": []},
            "lifecycleState": "PUBLISHED", "isReshareDisabledByAuthor": False, **extra}


def rest_error(answer: requests.Response, status: int) -> dict:
    assert answer.status_code == status, answer.text
    return answer.json()


def input_code(answer: requests.Response, status: int) -> str:
    return rest_error(answer, status)["errorDetails"]["inputErrors"][0]["code"]


# --- OAuth ----------------------------------------------------------------------------------

def test_consent_sends_a_code_that_buys_a_60_day_token_without_refresh(li):
    code = redirect_query(authorize(li), to=REDIRECT)["code"]
    answer = exchange(li, code).json()
    assert answer["expires_in"] == 5_184_000 and answer["scope"] == "openid,profile,w_member_social"
    assert "refresh_token" not in answer and answer["token_type"] == "Bearer"


def test_an_app_with_refresh_tokens_gets_one_of_a_year_fixed_from_consent(li):
    li.configure(refresh_tokens=True)
    first = exchange(li, redirect_query(authorize(li))["code"]).json()
    assert first["refresh_token_expires_in"] == 31_536_000
    li.advance(86400)
    again = token_call(li, grant_type="refresh_token", refresh_token=first["refresh_token"]).json()
    assert again["refresh_token"] == first["refresh_token"] and again["refresh_token_expires_in"] == 31_536_000 - 86400
    assert again["access_token"] != first["access_token"] and again["expires_in"] == 5_184_000


def test_without_refresh_tokens_a_refresh_grant_is_refused(li):
    assert token_call(li, grant_type="refresh_token", refresh_token="x").json()["error"] == "invalid_request"


def test_a_code_is_single_use(li):
    code = redirect_query(authorize(li))["code"]
    exchange(li, code)
    assert rest_error(exchange(li, code), 400)["error"] == "invalid_request"


def test_a_wrong_secret_is_invalid_client(li):
    answer = token_call(li, grant_type="authorization_code", code="x", redirect_uri=REDIRECT, client_secret="nope")
    assert rest_error(answer, 401)["error"] == "invalid_client"


def test_refused_consent_comes_back_as_user_cancelled_authorize(li):
    li.deny_consent()
    query = redirect_query(authorize(li))
    assert query["error"] == "user_cancelled_authorize" and query["state"] == "st-1"


def test_a_scope_the_app_lacks_comes_back_as_unauthorized_scope_error(li):
    assert redirect_query(authorize(li, scope="openid r_member_social"))["error"] == "unauthorized_scope_error"


def test_an_unknown_client_gets_an_error_page(li):
    assert authorize(li, client_id="other").status_code == 400


def test_introspection_tells_whether_a_token_is_active_and_until_when(li, token):
    def introspect(value: str) -> dict:
        return requests.post(f"{li.base_url}/oauth/v2/introspectToken", timeout=10, data={
            "client_id": "app-id", "client_secret": "app-secret", "token": value}).json()

    answer = introspect(token)
    assert (answer["active"], answer["status"]) == (True, "active")
    assert answer["expires_at"] == int(START.timestamp()) + 60 * 86400
    li.revoke_tokens(SUB)
    assert (introspect(token)["active"], introspect(token)["status"]) == (False, "revoked")
    assert introspect("unknown") == {"active": False}


def test_userinfo_names_the_member(li, token):
    answer = requests.get(f"{li.base_url}/v2/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.json()["sub"] == SUB and answer.json()["name"] == "Emu Linked"


# --- the versioned API and the token ---------------------------------------------------------

def test_a_rest_call_without_a_version_is_version_missing(li, token):
    assert rest_error(Rest(li, token, None)("POST", "/rest/posts", json=body()), 400)["code"] == "VERSION_MISSING"


@pytest.mark.parametrize("version", ["202511", "202612", "20250401"])
def test_a_version_outside_the_last_twelve_months_is_426(li, token, version):
    answer = Rest(li, token, version)("POST", "/rest/posts", json=body())
    assert rest_error(answer, 426)["code"] == "NONEXISTENT_VERSION"
    assert li.posts[SUB] == []


def test_the_token_errors(li, rest, token):
    assert rest_error(rest("POST", "/rest/posts", json=body(), token="garbage"), 401)["serviceErrorCode"] == 65600
    li.expire_tokens(SUB)
    assert rest_error(rest("POST", "/rest/posts", json=body()), 401)["code"] == "EXPIRED_ACCESS_TOKEN"
    fresh = li.issue_token(SUB)[0]
    li.revoke_tokens(SUB)
    assert rest_error(rest("POST", "/rest/posts", json=body(), token=fresh), 401)["code"] == "REVOKED_ACCESS_TOKEN"


def test_a_token_without_w_member_social_is_access_denied(li, rest):
    token = li.issue_token(SUB, scopes=("openid", "profile"))[0]
    assert rest_error(rest("POST", "/rest/posts", json=body(), token=token), 403)["code"] == "ACCESS_DENIED"


# --- posts ---------------------------------------------------------------------------------

def test_a_post_answers_201_with_its_urn_in_x_restli_id(li, rest):
    answer = rest("POST", "/rest/posts", json=body())
    assert answer.status_code == 201 and answer.content == b""
    [post] = li.posts[SUB]
    assert answer.headers["x-restli-id"] == post.urn and post.urn.startswith("urn:li:share:")
    assert post.permalink == f"https://www.linkedin.com/feed/update/{post.urn}/"


def test_another_members_author_is_access_denied(rest):
    answer = rest("POST", "/rest/posts", json=body(author="urn:li:person:someoneElse"))
    assert rest_error(answer, 403)["code"] == "ACCESS_DENIED"


def test_3000_characters_pass_and_3001_are_refused_naming_the_commentary(li, rest):
    assert rest("POST", "/rest/posts", json=body("a" * 3000)).status_code == 201
    answer = rest("POST", "/rest/posts", json=body("b" * 3001))
    assert input_code(answer, 400) == "FIELD_ARRAY_SIZE_TOO_HIGH"
    assert "exceeded the maximum allowed (3000 characters)" in answer.json()["message"]


def test_the_same_commentary_again_is_a_duplicate_naming_the_first_post(li, rest):
    rest("POST", "/rest/posts", json=body("said once"))
    answer = rest("POST", "/rest/posts", json=body("said once"))
    assert input_code(answer, 422) == "DUPLICATE_POST"
    assert answer.json()["message"] == f"Content is a duplicate of {li.posts[SUB][0].urn}"


def test_an_unknown_visibility_is_invalid_enum_value(rest):
    assert input_code(rest("POST", "/rest/posts", json=body(visibility="EVERYONE")), 422) == "INVALID_ENUM_VALUE"


def test_past_the_members_daily_posts_posting_is_429_until_midnight(li, rest):
    li.exhaust(SUB)
    rest_error(rest("POST", "/rest/posts", json=body()), 429)
    li.advance(14 * 3600)  # 10:00 -> 00:00 UTC
    assert rest("POST", "/rest/posts", json=body()).status_code == 201


def test_reading_a_post_back_needs_r_member_social(li, rest):
    urn = rest("POST", "/rest/posts", json=body()).headers["x-restli-id"]
    assert rest_error(rest("GET", f"/rest/posts/{quote(urn, safe='')}"), 403)["code"] == "ACCESS_DENIED"
    reader = li.issue_token(SUB, scopes=("w_member_social", "r_member_social"))[0]
    assert rest("GET", f"/rest/posts/{quote(urn, safe='')}", token=reader).json()["commentary"] == "Hello LinkedIn"


# --- the little text format ------------------------------------------------------------------

def test_escaped_reserved_characters_show_as_themselves():
    assert shown(r"a \(b\) \_c\_ \@d \\ #tag") == r"a (b) _c_ @d \ #tag"


def test_an_unescaped_reserved_character_cuts_the_post_there(li, rest):
    assert rest("POST", "/rest/posts", json=body("price (in euros) is 5")).status_code == 201
    assert li.posts[SUB][0].text == "price "


def test_a_mention_shows_its_name():
    assert shown("hi @[Emu Linked](urn:li:person:emuLiMember01)!") == "hi Emu Linked!"


# --- images --------------------------------------------------------------------------------

def initialize_image(rest: Rest) -> dict:
    answer = rest("POST", "/rest/images", params={"action": "initializeUpload"},
                  json={"initializeUploadRequest": {"owner": URN}})
    assert answer.status_code == 200, answer.text
    return answer.json()["value"]


def put(li, url: str, data: bytes, token: str | None = None) -> requests.Response:
    assert url.startswith("https://www.linkedin.com/dms-uploads/")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.put(li.base_url + url.removeprefix("https://www.linkedin.com"), data=data, headers=headers,
                        timeout=10)


def image_status(rest: Rest, urn: str) -> str:
    return rest("GET", f"/rest/images/{quote(urn, safe='')}").json()["status"]


def test_an_image_is_initialized_put_processed_then_posted(li, rest):
    value = initialize_image(rest)
    assert image_status(rest, value["image"]) == "WAITING_UPLOAD"
    assert put(li, value["uploadUrl"], jpeg_bytes()).status_code == 201
    assert image_status(rest, value["image"]) == "PROCESSING"
    li.advance(2)
    assert image_status(rest, value["image"]) == "AVAILABLE"
    answer = rest("POST", "/rest/posts", json=body(content={"media": {"id": value["image"], "altText": "a photo"}}))
    assert answer.status_code == 201 and li.posts[SUB][0].media == (value["image"],)


def test_an_image_still_processing_cannot_be_posted(li, rest):
    value = initialize_image(rest)
    put(li, value["uploadUrl"], jpeg_bytes())
    answer = rest("POST", "/rest/posts", json=body(content={"media": {"id": value["image"]}}))
    assert "not ready" in rest_error(answer, 400)["message"]


def test_a_file_that_is_no_image_fails_processing(li, rest):
    value = initialize_image(rest)
    put(li, value["uploadUrl"], mp4_bytes())
    li.advance(2)
    assert image_status(rest, value["image"]) == "PROCESSING_FAILED"


def test_the_same_bytes_put_again_change_nothing(li, rest):
    value = initialize_image(rest)
    assert put(li, value["uploadUrl"], gif_bytes()).status_code == 201
    assert put(li, value["uploadUrl"], gif_bytes()).status_code == 201
    assert put(li, value["uploadUrl"], jpeg_bytes()).status_code == 400


def test_two_images_are_a_multi_image_post(li, rest):
    urns = []
    for data in (jpeg_bytes(), gif_bytes()):
        value = initialize_image(rest)
        put(li, value["uploadUrl"], data)
        urns.append(value["image"])
    li.advance(2)
    content = {"multiImage": {"images": [{"id": u, "altText": ""} for u in urns]}}
    answer = rest("POST", "/rest/posts", json=body(content=content))
    assert answer.headers["x-restli-id"].startswith("urn:li:ugcPost:")


def test_without_member_media_reads_the_image_read_is_forbidden(li, rest):
    li.configure(member_media_reads=False)
    value = initialize_image(rest)
    assert rest("GET", f"/rest/images/{quote(value['image'], safe='')}").status_code == 403


# --- videos ---------------------------------------------------------------------------------

def padded_mp4(size: int, seconds: float = 10) -> bytes:
    data = mp4_bytes(seconds)
    return data + b"\0" * (size - len(data))


def initialize_video(rest: Rest, size: int) -> dict:
    answer = rest("POST", "/rest/videos", params={"action": "initializeUpload"}, json={"initializeUploadRequest": {
        "owner": URN, "fileSizeBytes": size, "uploadCaptions": False, "uploadThumbnail": False}})
    assert answer.status_code == 200, answer.text
    return answer.json()["value"]


def finalize(rest: Rest, value: dict, etags: list[str]) -> requests.Response:
    return rest("POST", "/rest/videos", params={"action": "finalizeUpload"}, json={"finalizeUploadRequest": {
        "video": value["video"], "uploadToken": value["uploadToken"], "uploadedPartIds": etags}})


def upload_parts(li, value: dict, data: bytes) -> list[str]:
    etags = []
    for part in value["uploadInstructions"]:
        answer = put(li, part["uploadUrl"], data[part["firstByte"]:part["lastByte"] + 1])
        assert answer.status_code == 200, answer.text
        etags.append(answer.headers["ETag"])
    return etags


def test_a_video_goes_in_4_mib_parts_each_with_its_etag_then_finalize(li, rest):
    data = padded_mp4(9_000_000)
    value = initialize_video(rest, len(data))
    assert [(p["firstByte"], p["lastByte"]) for p in value["uploadInstructions"]] == [
        (0, 4_194_303), (4_194_304, 8_388_607), (8_388_608, 8_999_999)]
    etags = upload_parts(li, value, data)
    assert finalize(rest, value, etags).status_code == 200
    urn = quote(value["video"], safe="")
    assert rest("GET", f"/rest/videos/{urn}").json()["status"] == "PROCESSING"
    li.advance(10)
    assert rest("GET", f"/rest/videos/{urn}").json()["status"] == "AVAILABLE"
    answer = rest("POST", "/rest/posts", json=body(content={"media": {"id": value["video"], "title": "a clip"}}))
    assert answer.headers["x-restli-id"].startswith("urn:li:ugcPost:")


def test_finalize_needs_every_etag_in_order(li, rest):
    data = padded_mp4(5_000_000)
    value = initialize_video(rest, len(data))
    etags = upload_parts(li, value, data)
    assert finalize(rest, value, list(reversed(etags))).status_code == 400
    assert finalize(rest, value, etags[:1]).status_code == 400
    assert finalize(rest, value, etags).status_code == 200


def test_a_part_of_the_wrong_length_is_refused(li, rest):
    value = initialize_video(rest, 100_000)
    assert put(li, value["uploadInstructions"][0]["uploadUrl"], b"\0" * 99_999).status_code == 400


def test_a_video_outside_its_sizes_is_refused_at_initialize(rest):
    answer = rest("POST", "/rest/videos", params={"action": "initializeUpload"},
                  json={"initializeUploadRequest": {"owner": URN, "fileSizeBytes": 1000}})
    assert answer.status_code == 400


def test_a_video_too_short_fails_processing_with_its_reason(li, rest):
    data = padded_mp4(100_000, seconds=1)
    value = initialize_video(rest, len(data))
    finalize(rest, value, upload_parts(li, value, data))
    li.advance(10)
    view = rest("GET", f"/rest/videos/{quote(value['video'], safe='')}").json()
    assert view["status"] == "PROCESSING_FAILED" and "duration" in view["processingFailureReason"]


def test_controls_answer_over_http(li, rest):
    requests.post(f"{li.base_url}/_emulator/exhaust", json={"sub": SUB}, timeout=10)
    rest_error(rest("POST", "/rest/posts", json=body()), 429)
