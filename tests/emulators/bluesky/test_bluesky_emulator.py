"""The Bluesky emulator keeps to the AT Protocol as the Lexicons and the reference PDS
describe it (tests/emulators/README.md#bluesky)."""
from __future__ import annotations

import base64
import json

import pytest
import requests

from ..clock import EmulatorClock
from ..conftest import START, serving
from ..media import jpeg_bytes, mp4_bytes, png_bytes
from . import BlueskyAccount, BlueskyEmulator
from .state import tid

DID, HANDLE, APP_PASSWORD = "did:plc:emu2bsky3account4default", "emu.bsky.social", "abcd-efgh-ijkl-mnop"
OTHER = BlueskyAccount("did:plc:other2account3second4two", "other.bsky.social", app_passwords=("wxyz-wxyz-wxyz-wxyz",))
NOW = "2026-11-22T10:00:00.000Z"


@pytest.fixture
def sky():
    yield from serving(BlueskyEmulator(accounts=[BlueskyEmulator.DEFAULT_ACCOUNT, OTHER], clock=EmulatorClock(START)))


class Xrpc:
    def __init__(self, sky, token: str | None = None):
        self.sky, self.token = sky, token

    def __call__(self, method: str, nsid: str, *, token: str | None = None, **kwargs) -> requests.Response:
        token = token or self.token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(kwargs.pop("headers", {}))
        return requests.request(method, f"{self.sky.base_url}/xrpc/{nsid}", headers=headers, timeout=10, **kwargs)


@pytest.fixture
def session(sky) -> dict:
    return sky.issue_session(DID)


@pytest.fixture
def xrpc(sky, session) -> Xrpc:
    return Xrpc(sky, session["accessJwt"])


def error(answer: requests.Response, status: int, name: str) -> str:
    assert (answer.status_code, answer.json().get("error")) == (status, name), answer.text
    return answer.json()["message"]


def claims(jwt: str) -> dict:
    body = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


def rkey(n: int = 0) -> str:
    return tid(int(START.timestamp() * 1_000_000) + n)


def post(text: str = "hello", **fields) -> dict:
    return {"$type": "app.bsky.feed.post", "text": text, "createdAt": NOW, **fields}


def create(xrpc: Xrpc, record: dict, key: str | None = None, repo: str = DID) -> requests.Response:
    body = {"repo": repo, "collection": "app.bsky.feed.post", "record": record}
    if key is not None:
        body["rkey"] = key
    return xrpc("POST", "com.atproto.repo.createRecord", json=body)


def upload(xrpc: Xrpc, data: bytes, mime: str = "image/jpeg") -> dict:
    answer = xrpc("POST", "com.atproto.repo.uploadBlob", data=data, headers={"Content-Type": mime})
    assert answer.status_code == 200, answer.text
    return answer.json()["blob"]


def images(*blobs: dict, alt: str = "a photo") -> dict:
    return {"$type": "app.bsky.embed.images", "images": [{"image": b, "alt": alt} for b in blobs]}


# --- identity --------------------------------------------------------------------------------

def test_a_handle_resolves_to_its_did(sky):
    answer = Xrpc(sky)("GET", "com.atproto.identity.resolveHandle", params={"handle": HANDLE})
    assert answer.json() == {"did": DID}


def test_an_unknown_handle_is_handle_not_found(sky):
    answer = Xrpc(sky)("GET", "com.atproto.identity.resolveHandle", params={"handle": "nobody.bsky.social"})
    error(answer, 400, "HandleNotFound")


def test_the_did_document_names_the_pds_and_the_handle(sky):
    document = requests.get(f"{sky.base_url}/{DID}", timeout=10).json()
    [pds] = [s for s in document["service"] if s["id"] == "#atproto_pds"]
    assert pds == {"id": "#atproto_pds", "type": "AtprotoPersonalDataServer",
                   "serviceEndpoint": "https://pds.bsky.invalid"}
    assert document["alsoKnownAs"] == [f"at://{HANDLE}"]


def test_an_account_on_another_pds_has_it_in_its_document_and_in_the_hosts_setting(sky):
    sky.add_account("far.example.invalid", "pass-word-pass-word", did="did:plc:far2away3account4on5pds2",
                    pds_host="far-pds.invalid")
    document = requests.get(f"{sky.base_url}/did:plc:far2away3account4on5pds2", timeout=10).json()
    assert document["service"][0]["serviceEndpoint"] == "https://far-pds.invalid"
    assert f"far-pds.invalid={sky.base_url}" in sky.hosts_setting.split(",")


def test_an_unknown_did_is_404_at_the_directory(sky):
    assert requests.get(f"{sky.base_url}/did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", timeout=10).status_code == 404


# --- sessions --------------------------------------------------------------------------------

def sign_in(sky, identifier: str = HANDLE, password: str = APP_PASSWORD, **extra) -> requests.Response:
    return Xrpc(sky)("POST", "com.atproto.server.createSession",
                     json={"identifier": identifier, "password": password, **extra})


def test_an_app_password_signs_in_with_two_jwts_of_two_hours_and_ninety_days(sky):
    answer = sign_in(sky)
    body = answer.json()
    assert (body["did"], body["handle"], body["active"]) == (DID, HANDLE, True)
    assert body["didDoc"]["service"][0]["serviceEndpoint"] == "https://pds.bsky.invalid"
    access, refresh = claims(body["accessJwt"]), claims(body["refreshJwt"])
    assert (access["scope"], access["sub"], access["exp"] - access["iat"]) == ("com.atproto.access", DID, 7200)
    assert (refresh["scope"], refresh["exp"] - refresh["iat"]) == ("com.atproto.refresh", 90 * 86400)
    assert answer.headers["RateLimit-Policy"] == "300;w=86400"


def test_the_did_and_the_email_sign_in_too(sky):
    assert sign_in(sky, DID).status_code == 200
    assert sign_in(sky, BlueskyEmulator.DEFAULT_ACCOUNT.email).status_code == 200


def test_a_wrong_password_is_authentication_required(sky):
    assert error(sign_in(sky, password="nope"), 401, "AuthenticationRequired") == "Invalid identifier or password"


def test_the_main_password_with_email_2fa_asks_for_a_code(sky):
    error(sign_in(sky, password="emu-main-password"), 401, "AuthFactorTokenRequired")


def test_a_taken_down_account_cannot_sign_in(sky):
    sky.add_account("gone.bsky.social", "gone-gone-gone-gone", status="takendown")
    error(sign_in(sky, "gone.bsky.social", "gone-gone-gone-gone"), 401, "AccountTakedown")


def test_past_the_daily_sign_ins_createsession_is_rate_limited(sky):
    sky.exhaust("createSession")
    answer = sign_in(sky)
    error(answer, 429, "RateLimitExceeded")
    assert answer.headers["RateLimit-Remaining"] == "0"


def test_a_refresh_gives_a_new_pair_and_the_old_refresh_token_is_revoked(sky, session):
    refresh = Xrpc(sky, session["refreshJwt"])
    renewed = refresh("POST", "com.atproto.server.refreshSession")
    assert renewed.status_code == 200 and renewed.json()["refreshJwt"] != session["refreshJwt"]
    assert error(refresh("POST", "com.atproto.server.refreshSession"), 400, "ExpiredToken") == "Token has been revoked"
    assert Xrpc(sky, renewed.json()["refreshJwt"])("POST", "com.atproto.server.refreshSession").status_code == 200


def test_within_the_grace_period_a_rotated_refresh_token_still_refreshes(sky, session):
    sky.configure(refresh_grace=60)
    refresh = Xrpc(sky, session["refreshJwt"])
    assert refresh("POST", "com.atproto.server.refreshSession").status_code == 200
    assert refresh("POST", "com.atproto.server.refreshSession").status_code == 200
    sky.advance(61)
    error(refresh("POST", "com.atproto.server.refreshSession"), 400, "ExpiredToken")


def test_a_revoked_app_password_ends_refreshing(sky, session):
    sky.revoke_refresh(DID)
    error(Xrpc(sky, session["refreshJwt"])("POST", "com.atproto.server.refreshSession"), 400, "ExpiredToken")


def test_the_token_errors_of_a_pds(sky, session, xrpc):
    get = "com.atproto.server.getSession"
    assert xrpc("GET", get).json()["did"] == DID
    error(Xrpc(sky)("GET", get), 401, "AuthMissing")
    error(xrpc("GET", get, token="not.a.jwt"), 400, "InvalidToken")
    assert error(xrpc("GET", get, token=session["refreshJwt"]), 400, "InvalidToken") == "Bad token scope"
    error(xrpc("POST", "com.atproto.server.refreshSession", token=session["accessJwt"]), 400, "InvalidToken")
    sky.advance(7200)
    assert error(xrpc("GET", get), 400, "ExpiredToken") == "Token has expired"


def test_expire_tokens_ends_the_access_tokens_but_not_the_refresh_token(sky, session, xrpc):
    sky.expire_tokens(DID)
    error(xrpc("GET", "com.atproto.server.getSession"), 400, "ExpiredToken")
    assert Xrpc(sky, session["refreshJwt"])("POST", "com.atproto.server.refreshSession").status_code == 200


def test_the_password_is_masked_in_the_call_log(sky):
    sign_in(sky)
    assert sky.calls[-1].body == {"identifier": HANDLE, "password": "***"}


# --- records ----------------------------------------------------------------------------------

def test_a_post_is_created_under_the_rkey_the_client_chose_and_read_back(xrpc):
    made = create(xrpc, post(), rkey()).json()
    assert made["uri"] == f"at://{DID}/app.bsky.feed.post/{rkey()}" and made["cid"].startswith("bafyrei")
    assert made["validationStatus"] == "valid" and made["commit"]["rev"]
    read = Xrpc(xrpc.sky)("GET", "com.atproto.repo.getRecord",
                          params={"repo": DID, "collection": "app.bsky.feed.post", "rkey": rkey()})
    assert read.json() == {"uri": made["uri"], "cid": made["cid"], "value": post()}


def test_a_record_key_in_use_answers_500_and_writes_nothing(sky, xrpc):
    create(xrpc, post("first"), rkey())
    error(create(xrpc, post("second"), rkey()), 500, "InternalServerError")
    assert [r.text for r in sky.posts[DID]] == ["first"]


def test_a_post_record_key_must_be_a_tid(xrpc):
    assert "Invalid record key" in error(create(xrpc, post(), "my-post-1"), 400, "InvalidRequest")


def test_without_an_rkey_the_pds_chooses_a_tid(xrpc):
    uri = create(xrpc, post()).json()["uri"]
    assert len(uri.rsplit("/", 1)[1]) == 13


def test_a_missing_record_is_record_not_found(sky):
    answer = Xrpc(sky)("GET", "com.atproto.repo.getRecord",
                       params={"repo": DID, "collection": "app.bsky.feed.post", "rkey": rkey()})
    assert error(answer, 400, "RecordNotFound").startswith("Could not locate record: at://")


def test_list_records_is_newest_first_with_a_cursor(xrpc):
    for n in range(3):
        create(xrpc, post(f"post {n}"), rkey(n))
    page = Xrpc(xrpc.sky)("GET", "com.atproto.repo.listRecords",
                          params={"repo": HANDLE, "collection": "app.bsky.feed.post", "limit": 2}).json()
    assert [r["value"]["text"] for r in page["records"]] == ["post 2", "post 1"] and page["cursor"] == rkey(1)


def test_writing_another_accounts_repo_is_authentication_required(xrpc):
    error(create(xrpc, post(), rkey(), repo=OTHER.did), 401, "AuthenticationRequired")


def test_apply_writes_creates_records_with_the_keys_given(sky, xrpc):
    answer = xrpc("POST", "com.atproto.repo.applyWrites", json={"repo": DID, "writes": [
        {"$type": "com.atproto.repo.applyWrites#create", "collection": "app.bsky.feed.post", "rkey": rkey(n),
         "value": post(f"part {n}")} for n in range(2)]})
    assert [r["uri"].rsplit("/", 1)[1] for r in answer.json()["results"]] == [rkey(0), rkey(1)]
    assert [r.text for r in sky.posts[DID]] == ["part 0", "part 1"]


def test_past_the_hours_write_points_a_create_is_rate_limited(sky, xrpc):
    sky.exhaust("writes")
    answer = create(xrpc, post(), rkey())
    error(answer, 429, "RateLimitExceeded")
    assert answer.headers["RateLimit-Policy"] == "5000;w=3600" and sky.posts[DID] == []


# --- the text -------------------------------------------------------------------------------

def test_300_graphemes_pass_and_301_are_refused_with_the_validators_words(xrpc):
    assert create(xrpc, post("é" * 300), rkey(0)).status_code == 200
    message = error(create(xrpc, post("a" * 301), rkey(1)), 400, "InvalidRequest")
    assert message == "Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes"


def test_a_family_emoji_is_one_grapheme_but_3000_bytes_still_cap_the_text(xrpc):
    family = "\U0001F469\u200d\U0001F469\u200d\U0001F467"  # 18 bytes
    assert create(xrpc, post(family * 166), rkey(0)).status_code == 200  # 2,988 bytes
    assert "3000 characters" in error(create(xrpc, post(family * 167), rkey(1)), 400, "InvalidRequest")


def facet(start: int, end: int, kind: str, **feature) -> dict:
    return {"index": {"byteStart": start, "byteEnd": end},
            "features": [{"$type": f"app.bsky.richtext.facet#{kind}", **feature}]}


def test_facets_in_utf8_byte_offsets_are_taken(xrpc):
    text = "café https://example.com/a #launch @other.bsky.social"
    data = text.encode()
    link_at, tag_at, mention_at = data.index(b"https"), data.index(b"#launch"), data.index(b"@other")
    answer = create(xrpc, post(text, facets=[
        facet(link_at, link_at + len("https://example.com/a"), "link", uri="https://example.com/a"),
        facet(tag_at, tag_at + len("#launch"), "tag", tag="launch"),
        facet(mention_at, len(data), "mention", did=OTHER.did)]), rkey())
    assert answer.status_code == 200, answer.text


def test_a_facet_counted_in_characters_instead_of_bytes_is_refused(xrpc):
    text = "café https://example.com/a"
    start = text.index("https")  # 5 characters, but 6 bytes: "é" is two
    answer = create(xrpc, post(text, facets=[facet(start, start + 21, "link", uri="https://example.com/a")]), rkey())
    assert "does not match" in error(answer, 400, "InvalidRequest")


def test_a_facet_past_the_end_or_inside_a_character_is_refused(xrpc):
    error(create(xrpc, post("é", facets=[facet(0, 1, "tag", tag="x")]), rkey(0)), 400, "InvalidRequest")
    error(create(xrpc, post("ab", facets=[facet(0, 9, "tag", tag="x")]), rkey(1)), 400, "InvalidRequest")


def test_without_strict_facets_the_pds_takes_any_range_as_bluesky_does(sky, xrpc):
    sky.configure(strict_facets=False)
    assert create(xrpc, post("ab", facets=[facet(0, 9, "tag", tag="x")]), rkey()).status_code == 200


# --- images ---------------------------------------------------------------------------------

def test_an_image_post_carries_the_uploaded_blob_unchanged(sky, xrpc):
    blob = upload(xrpc, jpeg_bytes())
    assert blob["ref"]["$link"].startswith("bafkrei") and blob["mimeType"] == "image/jpeg"
    assert create(xrpc, post("a photo", embed=images(blob)), rkey()).status_code == 200
    assert sky.posts[DID][0].embed["images"][0]["image"] == blob


def test_the_same_bytes_are_the_same_blob(xrpc):
    assert upload(xrpc, png_bytes()) == upload(xrpc, png_bytes())


def test_an_image_needs_its_alt_even_empty(xrpc):
    blob = upload(xrpc, jpeg_bytes())
    no_alt = {"$type": "app.bsky.embed.images", "images": [{"image": blob}]}
    assert 'property "alt"' in error(create(xrpc, post(embed=no_alt), rkey(0)), 400, "InvalidRequest")
    assert create(xrpc, post(embed=images(blob, alt="")), rkey(1)).status_code == 200


def test_five_images_are_refused(xrpc):
    blob = upload(xrpc, jpeg_bytes())
    assert "more than 4" in error(create(xrpc, post(embed=images(*[blob] * 5)), rkey()), 400, "InvalidRequest")


def test_an_image_over_the_cap_is_blob_too_large_at_the_post(sky, xrpc):
    sky.configure(image_max_bytes=100)
    blob = upload(xrpc, jpeg_bytes(64, 64))  # the upload itself is taken
    message = error(create(xrpc, post(embed=images(blob)), rkey()), 400, "BlobTooLarge")
    assert message.startswith("This file is too large.")


def test_a_blob_ref_whose_type_or_size_differs_is_refused(xrpc):
    blob = upload(xrpc, jpeg_bytes())
    error(create(xrpc, post(embed=images({**blob, "mimeType": "image/png"})), rkey(0)), 400, "InvalidMimeType")
    error(create(xrpc, post(embed=images({**blob, "size": blob["size"] + 1})), rkey(1)), 400, "InvalidSize")


def test_an_unreferenced_blob_is_gone_after_its_time(sky, xrpc):
    blob = upload(xrpc, jpeg_bytes())
    sky.advance(3601)
    xrpc.token = sky.issue_session(DID)["accessJwt"]
    error(create(xrpc, post(embed=images(blob)), rkey()), 400, "BlobNotFound")


def test_an_upload_over_the_pds_limit_is_payload_too_large(sky, xrpc):
    sky.configure(blob_upload_limit=10)
    answer = xrpc("POST", "com.atproto.repo.uploadBlob", data=jpeg_bytes(), headers={"Content-Type": "image/jpeg"})
    error(answer, 413, "PayloadTooLarge")


# --- threads -------------------------------------------------------------------------------

def ref(answer: requests.Response) -> dict:
    body = answer.json()
    return {"uri": body["uri"], "cid": body["cid"]}


def test_a_thread_links_each_part_to_the_root_and_its_parent(sky, xrpc):
    root = ref(create(xrpc, post("1/3"), rkey(0)))
    second = ref(create(xrpc, post("2/3", reply={"root": root, "parent": root}), rkey(1)))
    assert create(xrpc, post("3/3", reply={"root": root, "parent": second}), rkey(2)).status_code == 200
    assert [r.text for r in sky.thread(root["uri"])] == ["1/3", "2/3", "3/3"]


def test_a_reply_whose_root_is_not_the_threads_root_is_refused(xrpc):
    root = ref(create(xrpc, post("1/3"), rkey(0)))
    second = ref(create(xrpc, post("2/3", reply={"root": root, "parent": root}), rkey(1)))
    answer = create(xrpc, post("3/3", reply={"root": second, "parent": second}), rkey(2))
    assert "root" in error(answer, 400, "InvalidRequest")


def test_a_reply_naming_a_wrong_cid_is_refused(xrpc):
    root = ref(create(xrpc, post("1/2"), rkey(0)))
    wrong = {**root, "cid": "bafyreiwrong"}
    error(create(xrpc, post("2/2", reply={"root": wrong, "parent": wrong}), rkey(1)), 400, "InvalidRequest")


# --- video --------------------------------------------------------------------------------

def service_token(xrpc: Xrpc, aud: str = "did:web:pds.bsky.invalid", lxm: str = "com.atproto.repo.uploadBlob",
                  seconds: int = 1800) -> str:
    exp = int(START.timestamp()) + seconds
    answer = xrpc("GET", "com.atproto.server.getServiceAuth", params={"aud": aud, "lxm": lxm, "exp": exp})
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]


def upload_video(xrpc: Xrpc, data: bytes, token: str | None = None) -> requests.Response:
    return xrpc("POST", "app.bsky.video.uploadVideo", params={"did": DID, "name": "clip.mp4"}, data=data,
                token=token or service_token(xrpc), headers={"Content-Type": "video/mp4"})


def job_status(sky, job_id: str) -> dict:
    return Xrpc(sky)("GET", "app.bsky.video.getJobStatus", params={"jobId": job_id}).json()["jobStatus"]


def test_a_service_token_bound_to_a_method_lives_an_hour_at_most(xrpc):
    answer = xrpc("GET", "com.atproto.server.getServiceAuth",
                  params={"aud": "did:web:pds.bsky.invalid", "lxm": "com.atproto.repo.uploadBlob",
                          "exp": int(START.timestamp()) + 3601})
    error(answer, 400, "BadExpiration")


def test_a_video_is_processed_on_the_clock_then_its_blob_goes_in_a_post(sky, xrpc):
    status = upload_video(xrpc, mp4_bytes(5)).json()["jobStatus"]
    assert status["state"] == "JOB_STATE_CREATED" and "blob" not in status
    sky.advance(5)
    assert job_status(sky, status["jobId"])["state"] == "JOB_STATE_ENCODING"
    sky.advance(5)
    done = job_status(sky, status["jobId"])
    assert done["state"] == "JOB_STATE_COMPLETED" and done["blob"]["mimeType"] == "video/mp4"
    embed = {"$type": "app.bsky.embed.video", "video": done["blob"], "alt": ""}
    assert create(xrpc, post("a clip", embed=embed), rkey()).status_code == 200


def test_the_upload_answer_may_be_flat(sky, xrpc):
    sky.configure(flat_upload_answer=True)
    assert upload_video(xrpc, mp4_bytes(5)).json()["state"] == "JOB_STATE_CREATED"


def test_a_processed_video_sent_again_is_already_exists_with_its_blob(sky, xrpc):
    first = upload_video(xrpc, mp4_bytes(5)).json()["jobStatus"]
    sky.advance(10)
    again = upload_video(xrpc, mp4_bytes(5))
    assert again.status_code == 409 and again.json()["error"] == "already_exists"
    assert again.json()["blob"] == job_status(sky, first["jobId"])["blob"]


def test_a_video_too_long_or_not_mp4_fails_its_job(sky, xrpc):
    long_one = upload_video(xrpc, mp4_bytes(200)).json()["jobStatus"]["jobId"]
    not_mp4 = upload_video(xrpc, jpeg_bytes()).json()["jobStatus"]["jobId"]
    sky.advance(10)
    for job_id in (long_one, not_mp4):
        status = job_status(sky, job_id)
        assert (status["state"], status["error"]) == ("JOB_STATE_FAILED", "validation_failure")


def test_a_forced_video_failure_fails_the_next_job(sky, xrpc):
    sky.fail_next_video("encoding_failure")
    job_id = upload_video(xrpc, mp4_bytes(5)).json()["jobStatus"]["jobId"]
    sky.advance(10)
    assert job_status(sky, job_id)["error"] == "encoding_failure"


def test_uploading_video_needs_a_token_for_the_accounts_pds(xrpc):
    wrong = service_token(xrpc, aud="did:web:elsewhere.invalid")
    error(upload_video(xrpc, mp4_bytes(5), token=wrong), 401, "AuthenticationRequired")


def test_past_the_days_videos_uploads_are_rate_limited_and_the_limits_say_so(sky, xrpc):
    sky.exhaust("videos")
    error(upload_video(xrpc, mp4_bytes(5)), 429, "RateLimitExceeded")
    token = service_token(xrpc, aud="did:web:video.bsky.app", lxm="app.bsky.video.getUploadLimits")
    limits = xrpc("GET", "app.bsky.video.getUploadLimits", token=token).json()
    assert limits["canUpload"] is False and limits["remainingDailyVideos"] == 0


# --- the control API over HTTP ----------------------------------------------------------------

def test_the_controls_answer_over_http(sky):
    answer = requests.post(f"{sky.base_url}/_emulator/exhaust", json={"what": "createSession"}, timeout=10)
    assert answer.status_code == 200
    error(sign_in(sky), 429, "RateLimitExceeded")
    assert requests.get(f"{sky.base_url}/_emulator/accounts", timeout=10).json()[0]["did"] == DID

