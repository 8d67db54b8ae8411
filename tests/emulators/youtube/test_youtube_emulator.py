"""The YouTube emulator keeps to the protocol Google documents for a channel's app: OAuth 2.0
for web server apps with offline access, `channels.list`, `videos.insert` by the resumable
protocol, `commentThreads`, the daily quota (tests/emulators/README.md#youtube)."""
from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from urllib.parse import urlsplit

import pytest
import requests

from ..clock import EmulatorClock
from ..conftest import START, redirect_query, serving
from ..media import jpeg_bytes, mp4_bytes
from . import YouTubeEmulator
from .oauth import FORCE_SSL, READONLY, UPLOAD

SUB, CHANNEL = "108000000000000000001", "UCemuYouTubeChannel00001"
REDIRECT = "https://fanout.invalid/connect/youtube/callback"
UNIT = 262_144
VIDEO = mp4_bytes(20) + bytes(700_000)  # three units and some


@pytest.fixture
def yt():
    yield from serving(YouTubeEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


@pytest.fixture
def token(yt) -> str:
    return yt.issue_token(SUB)[0]


def authorize(yt, **params) -> requests.Response:
    query = {"client_id": "app-id", "redirect_uri": REDIRECT, "response_type": "code", "state": "st-1",
             "scope": " ".join((UPLOAD, READONLY, FORCE_SSL)), "access_type": "offline", **params}
    return requests.get(f"{yt.base_url}/o/oauth2/v2/auth", params=query, allow_redirects=False, timeout=10)


def exchange(yt, code: str, **form) -> requests.Response:
    return requests.post(f"{yt.base_url}/token", timeout=10, data={
        "client_id": "app-id", "client_secret": "app-secret", "grant_type": "authorization_code", "code": code,
        "redirect_uri": REDIRECT, **form})


def api(yt, method: str, path: str, token: str, **kwargs) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}", **kwargs.pop("headers", {})}
    return requests.request(method, yt.base_url + path, headers=headers, timeout=10, **kwargs)


def start(yt, token: str, size: int = len(VIDEO), **resource) -> requests.Response:
    body = {"snippet": {"title": "A film", "description": "about it"}, "status": {"privacyStatus": "public"}}
    for part, fields in resource.items():
        body[part] = {**body.get(part, {}), **fields}
    return api(yt, "POST", "/upload/youtube/v3/videos", token, params={"uploadType": "resumable",
                                                                         "part": "snippet,status"}, json=body,
               headers={"X-Upload-Content-Length": str(size), "X-Upload-Content-Type": "video/mp4"})


def session_path(response) -> str:
    location = urlsplit(response.headers["Location"])
    assert (location.scheme, location.hostname, location.path) == ("https", "www.googleapis.com",
                                                                   "/upload/youtube/v3/videos")
    return f"{location.path}?{location.query}"


def put(yt, path: str, token: str, data: bytes, first: int | None = 0, total: int = len(VIDEO)) -> requests.Response:
    headers = {} if first is None else {"Content-Range": f"bytes {first}-{first + len(data) - 1}/{total}"}
    return api(yt, "PUT", path, token, data=data, headers=headers)


def ask(yt, path: str, token: str, total: int = len(VIDEO)) -> requests.Response:
    return api(yt, "PUT", path, token, headers={"Content-Range": f"bytes */{total}", "Content-Length": "0"})


def reason(response) -> str:
    return response.json()["error"]["errors"][0]["reason"]


# --- OAuth 2.0 for web server apps -------------------------------------------------------------

def test_offline_access_gives_a_refresh_token_on_the_first_consent_only_unless_prompt_asks_again(yt):
    first = exchange(yt, redirect_query(authorize(yt))["code"]).json()
    again = exchange(yt, redirect_query(authorize(yt))["code"]).json()
    asked = exchange(yt, redirect_query(authorize(yt, prompt="consent"))["code"]).json()
    online = exchange(yt, redirect_query(authorize(yt, access_type="online", prompt="consent"))["code"]).json()
    assert "refresh_token" in first and "refresh_token" not in again and "refresh_token" in asked
    assert "refresh_token" not in online
    assert (first["expires_in"], first["token_type"]) == (3599, "Bearer") and first["access_token"].startswith("ya29.")


def test_the_consent_comes_back_with_the_state_and_the_granted_scopes(yt):
    back = redirect_query(authorize(yt))
    assert back["state"] == "st-1" and back["scope"].split() == [UPLOAD, READONLY, FORCE_SSL]
    yt.deny_consent()
    assert redirect_query(authorize(yt)) == {"error": "access_denied", "state": "st-1"}


@pytest.mark.parametrize("change, page", [({"client_id": "other"}, "invalid_client"),
                                          ({"scope": "https://www.googleapis.com/auth/made.up"}, "invalid_scope")])
def test_a_consent_that_cannot_go_back_is_an_error_page(yt, change, page):
    answer = authorize(yt, **change)
    assert answer.status_code in (400, 401) and page in answer.text


def test_a_redirect_uri_not_registered_is_an_error_page(yt):
    yt.redirect_uris = {"https://elsewhere.invalid/cb"}
    assert "redirect_uri_mismatch" in authorize(yt).text


def test_a_code_is_single_use_and_lives_ten_minutes(yt):
    code = redirect_query(authorize(yt))["code"]
    assert exchange(yt, code).status_code == 200
    assert exchange(yt, code).json()["error"] == "invalid_grant"
    late = redirect_query(authorize(yt))["code"]
    yt.advance(600)
    assert exchange(yt, late).json()["error"] == "invalid_grant"


def test_a_refresh_gives_an_access_token_and_a_revoked_one_is_invalid_grant(yt):
    access, refresh = yt.issue_token(SUB)
    form = {"client_id": "app-id", "client_secret": "app-secret", "grant_type": "refresh_token",
            "refresh_token": refresh}
    renewed = requests.post(f"{yt.base_url}/token", data=form, timeout=10).json()
    assert renewed["access_token"] != access and "refresh_token" not in renewed
    yt.revoke_tokens(SUB)
    refused = requests.post(f"{yt.base_url}/token", data=form, timeout=10)
    assert (refused.status_code, refused.json()) == (400, {"error": "invalid_grant",
                                                           "error_description": "Token has been expired or revoked."})


def test_a_wrong_client_secret_is_invalid_client_401(yt):
    refused = requests.post(f"{yt.base_url}/token", timeout=10, data={
        "client_id": "app-id", "client_secret": "nope", "grant_type": "refresh_token", "refresh_token": "1//0x"})
    assert (refused.status_code, refused.json()["error"]) == (401, "invalid_client")


def test_a_testing_apps_refresh_tokens_end_after_seven_days(yt):
    yt.configure(testing=True)
    _, refresh = yt.issue_token(SUB)
    yt.advance(7 * 86400)
    refused = requests.post(f"{yt.base_url}/token", timeout=10, data={
        "client_id": "app-id", "client_secret": "app-secret", "grant_type": "refresh_token", "refresh_token": refresh})
    assert refused.json()["error"] == "invalid_grant"


def test_revoking_a_refresh_token_ends_its_users_access_tokens_and_tokeninfo_says_so(yt):
    access, refresh = yt.issue_token(SUB)
    info = requests.get(f"{yt.base_url}/tokeninfo", params={"access_token": access}, timeout=10).json()
    assert info["aud"] == "app-id" and UPLOAD in info["scope"].split()
    assert requests.post(f"{yt.base_url}/revoke", params={"token": refresh}, timeout=10).status_code == 200
    assert requests.get(f"{yt.base_url}/tokeninfo", params={"access_token": access}, timeout=10).status_code == 400


def test_a_dead_or_missing_token_is_401_and_a_missing_scope_403(yt):
    assert reason(api(yt, "GET", "/youtube/v3/channels", "", params={"part": "snippet", "mine": "true"})) in (
        "required", "authError")
    access, _ = yt.issue_token(SUB)
    yt.advance(3600)
    dead = api(yt, "GET", "/youtube/v3/channels", access, params={"part": "snippet", "mine": "true"})
    assert (dead.status_code, reason(dead)) == (401, "authError") and 'error="invalid_token"' in dead.headers[
        "WWW-Authenticate"]
    readonly, _ = yt.issue_token(SUB, scopes=[READONLY])
    refused = start(yt, readonly)
    assert (refused.status_code, reason(refused)) == (403, "insufficientPermissions")


# --- channels.list --------------------------------------------------------------------------------

def test_mine_is_the_channel_the_token_signs_in_as_with_its_handle(yt, token):
    answer = api(yt, "GET", "/youtube/v3/channels", token, params={"part": "snippet,contentDetails", "mine": "true"})
    [channel] = answer.json()["items"]
    assert (channel["id"], channel["snippet"]["customUrl"]) == (CHANNEL, "@emu_youtube")
    assert channel["contentDetails"]["relatedPlaylists"]["uploads"] == "UU" + CHANNEL[2:]


def test_an_account_without_a_channel_has_no_items_and_cannot_upload(yt):
    nobody = yt.add_user("Nobody", channel=False)
    token = yt.issue_token(nobody.sub)[0]
    answer = api(yt, "GET", "/youtube/v3/channels", token, params={"part": "snippet", "mine": "true"}).json()
    assert answer["items"] == [] and answer["pageInfo"]["totalResults"] == 0
    assert reason(start(yt, token)) == "youtubeSignupRequired"


@pytest.mark.parametrize("params, why", [({"mine": "true"}, "required"), ({"part": "snippet"},
                                                                          "missingRequiredParameter")])
def test_channels_need_a_part_and_a_filter(yt, token, params, why):
    answer = api(yt, "GET", "/youtube/v3/channels", token, params=params)
    assert (answer.status_code, reason(answer)) == (400, why)


# --- videos.insert, resumable ---------------------------------------------------------------------

def test_a_session_takes_the_bytes_in_chunks_of_256_kib_and_the_last_makes_the_video(yt, token):
    path = session_path(start(yt, token))
    assert (ask(yt, path, token).status_code, ask(yt, path, token).headers.get("Range")) == (308, None)
    chunk = put(yt, path, token, VIDEO[:2 * UNIT])
    assert (chunk.status_code, chunk.headers["Range"]) == (308, f"bytes=0-{2 * UNIT - 1}")
    done = put(yt, path, token, VIDEO[2 * UNIT:], first=2 * UNIT)
    assert done.status_code == 201 and done.json()["status"]["uploadStatus"] == "uploaded"
    again = ask(yt, path, token)
    assert again.status_code == 200 and again.json()["id"] == done.json()["id"]
    [video] = yt.videos[CHANNEL]
    assert (video.upload_type, video.sha256, video.title) == ("resumable", hashlib.sha256(VIDEO).hexdigest(), "A film")
    assert len(video.id) == 11 and video.permalink == f"https://www.youtube.com/watch?v={video.id}"


def test_a_whole_file_may_go_in_one_put(yt, token):
    path = session_path(start(yt, token))
    assert put(yt, path, token, VIDEO, first=None).status_code == 201


@pytest.mark.parametrize("first, data, total", [
    (0, VIDEO[:UNIT + 1], len(VIDEO)),  # not a multiple of 256 KiB and not the last
    (UNIT, VIDEO[UNIT:2 * UNIT], len(VIDEO)),  # not where the session is
    (0, VIDEO[:UNIT], len(VIDEO) + 1),  # another total
])
def test_a_chunk_out_of_the_rules_is_400_and_changes_nothing(yt, token, first, data, total):
    path = session_path(start(yt, token))
    assert put(yt, path, token, data, first=first, total=total).status_code == 400
    assert ask(yt, path, token).headers.get("Range") is None


def test_an_unknown_session_is_404(yt, token):
    path = "/upload/youtube/v3/videos?uploadType=resumable&upload_id=nope&part=snippet"
    assert ask(yt, path, token).status_code == 404


def test_a_put_cut_off_keeps_only_the_whole_units_that_arrived(yt, token):
    path = session_path(start(yt, token))
    yt.cut(UNIT + 1000)
    with pytest.raises(requests.ConnectionError):
        put(yt, path, token, VIDEO)
    assert ask(yt, path, token).headers["Range"] == f"bytes=0-{UNIT - 1}"
    [session] = yt.sessions[CHANNEL]
    assert (session.puts[0].kept, session.puts[0].interrupted) == (UNIT, True)
    assert put(yt, path, token, VIDEO[UNIT:], first=UNIT).status_code == 201


def test_a_stalled_put_whose_client_gives_up_keeps_the_units_that_arrived(yt, token):
    big = mp4_bytes(20) + bytes(40 * 1024 * 1024)  # more than a loopback connection buffers
    path = session_path(start(yt, token, size=len(big)))
    yt.stall(UNIT + 10, 2.5)  # past the client's patience while it sends (its connect timeout)
    with pytest.raises(requests.RequestException):
        requests.put(yt.base_url + path, data=big, timeout=(1, 0.5), headers={
            "Authorization": f"Bearer {token}", "Content-Range": f"bytes 0-{len(big) - 1}/{len(big)}"})
    [session] = yt.sessions[CHANNEL]
    for _ in range(50):  # the stalled read goes on, and meets the closed connection
        if session.puts:
            break
        time.sleep(0.1)
    [cut] = session.puts
    assert cut.interrupted and session.held == cut.kept and UNIT <= cut.kept < len(big) and cut.kept % UNIT == 0
    assert yt.stalls == []


@pytest.mark.parametrize("resource, why", [
    ({"snippet": {"title": "t" * 101}}, "invalidTitle"),
    ({"snippet": {"title": "a <b>"}}, "invalidTitle"),
    ({"snippet": {"title": ""}}, "invalidTitle"),
    ({"snippet": {"description": "é" * 2501}}, "invalidDescription"),  # 5,002 bytes
    ({"snippet": {"description": "a > b"}}, "invalidDescription"),
    ({"snippet": {"tags": ["x" * 250, "y y" * 83]}}, "invalidTags"),  # 250 + 1 + 249 + 2 quotes
    ({"snippet": {"categoryId": "99"}}, "invalidCategoryId"),
    ({"status": {"privacyStatus": "friends"}}, "invalidVideoMetadata"),
    ({"status": {"publishAt": "2026-12-01T00:00:00Z"}}, "invalidPublishAt"),
])
def test_metadata_youtube_refuses_is_400_with_its_reason(yt, token, resource, why):
    refused = start(yt, token, **resource)
    assert (refused.status_code, reason(refused)) == (400, why) and yt.sessions[CHANNEL] == []


def test_an_unaudited_projects_videos_are_locked_private(yt, token):
    yt.configure(audited=False)
    path = session_path(start(yt, token, status={"privacyStatus": "unlisted"}))
    assert put(yt, path, token, VIDEO).json()["status"]["privacyStatus"] == "private"
    [video] = yt.videos[CHANNEL]
    assert (video.requested_privacy, video.privacy_status) == ("unlisted", "private")


def test_a_video_is_processed_on_the_clock_and_bytes_that_are_no_video_fail(yt, token):
    good = put(yt, session_path(start(yt, token)), token, VIDEO).json()["id"]
    bad = put(yt, session_path(start(yt, token, size=len(jpeg_bytes()))), token, jpeg_bytes(),
              total=len(jpeg_bytes())).json()["id"]
    params = {"part": "status,processingDetails", "id": f"{good},{bad}"}
    statuses = [v["status"]["uploadStatus"] for v in api(yt, "GET", "/youtube/v3/videos", token, params=params).json()["items"]]
    assert statuses == ["uploaded", "uploaded"]
    yt.advance(5)
    items = api(yt, "GET", "/youtube/v3/videos", token, params=params).json()["items"]
    assert [(v["status"]["uploadStatus"], v["status"].get("failureReason")) for v in items] == [
        ("processed", None), ("failed", "invalidFile")]


def test_a_vertical_mp4_of_up_to_3_minutes_is_a_short(yt, token):
    for size, seconds in (((1080, 1920), 60), ((1920, 1080), 60), ((1080, 1920), 200)):
        data = mp4_bytes(seconds, size=size)
        put(yt, session_path(start(yt, token, size=len(data))), token, data, total=len(data))
    assert [v.is_short for v in yt.videos[CHANNEL]] == [True, False, False]
    assert yt.videos[CHANNEL][0].permalink.startswith("https://www.youtube.com/shorts/")


def test_a_multipart_upload_makes_the_video_at_once(yt, token):
    boundary = "b0undary"
    body = (f"--{boundary}\r\nContent-Type: application/json\r\n\r\n"
            '{"snippet": {"title": "In one go"}}\r\n'
            f"--{boundary}\r\nContent-Type: video/mp4\r\n\r\n").encode() + VIDEO + f"\r\n--{boundary}--\r\n".encode()
    answer = api(yt, "POST", "/upload/youtube/v3/videos", token, data=body,
                 params={"uploadType": "multipart", "part": "snippet,status"},
                 headers={"Content-Type": f"multipart/related; boundary={boundary}"})
    assert answer.status_code == 200 and answer.json()["snippet"]["title"] == "In one go"
    assert [v.upload_type for v in yt.videos[CHANNEL]] == ["multipart"]


def test_the_channels_uploads_list_newest_first(yt, token):
    ids = [put(yt, session_path(start(yt, token)), token, VIDEO).json()["id"] for _ in range(2)]
    yt.advance(1)
    listed = api(yt, "GET", "/youtube/v3/playlistItems", token,
                 params={"part": "contentDetails", "playlistId": "UU" + CHANNEL[2:]}).json()["items"]
    assert {item["contentDetails"]["videoId"] for item in listed} == set(ids)


# --- comments -----------------------------------------------------------------------------------

def comment(yt, token: str, video_id: str, text: str = "first!") -> requests.Response:
    return api(yt, "POST", "/youtube/v3/commentThreads", token, params={"part": "snippet"}, json={
        "snippet": {"videoId": video_id, "topLevelComment": {"snippet": {"textOriginal": text}}}})


def test_a_comment_thread_is_made_and_listed_under_its_video(yt, token):
    video = put(yt, session_path(start(yt, token)), token, VIDEO).json()["id"]
    made = comment(yt, token, video).json()
    top = made["snippet"]["topLevelComment"]["snippet"]
    assert (top["textOriginal"], top["authorChannelId"]["value"]) == ("first!", CHANNEL)
    listed = api(yt, "GET", "/youtube/v3/commentThreads", token, params={"part": "snippet", "videoId": video})
    assert [t["id"] for t in listed.json()["items"]] == [made["id"]]


def test_a_video_made_for_kids_refuses_comments_and_a_missing_one_is_404(yt, token):
    kids = put(yt, session_path(start(yt, token, status={"selfDeclaredMadeForKids": True})), token, VIDEO).json()["id"]
    assert reason(comment(yt, token, kids)) == "commentsDisabled"
    assert reason(comment(yt, token, "missingVid1")) == "videoNotFound"
    readonly = yt.issue_token(SUB, scopes=[UPLOAD, READONLY])[0]
    assert reason(comment(yt, readonly, kids)) == "insufficientPermissions"


# --- quota ----------------------------------------------------------------------------------

def test_the_insert_bucket_holds_100_a_day_and_resets_at_midnight_pacific(yt, token):
    yt.configure(daily_inserts=2)
    assert start(yt, token).status_code == start(yt, token).status_code == 200
    refused = start(yt, token)
    assert (refused.status_code, reason(refused)) == (403, "quotaExceeded")
    assert refused.json()["error"]["errors"][0]["domain"] == "youtube.quota"
    yt.set_clock("2026-11-23T07:59:59Z")  # 23:59:59 in Los Angeles: the same day
    assert reason(start(yt, yt.issue_token(SUB)[0])) == "quotaExceeded"
    yt.set_clock("2026-11-23T08:00:00Z")
    assert start(yt, yt.issue_token(SUB)[0]).status_code == 200


def test_with_units_an_insert_costs_1600_of_10000(yt, token):
    yt.configure(quota_model="units")
    assert [start(yt, token).status_code for _ in range(7)] == [200] * 6 + [403]
    assert yt.quota["units"] >= 9600


def test_exhausted_quota_and_a_channels_day_of_uploads(yt, token):
    yt.exhaust("uploads")
    assert reason(start(yt, token)) == "uploadLimitExceeded"
    yt.reset_quota()
    yt.exhaust("quota")
    assert reason(api(yt, "GET", "/youtube/v3/channels", token, params={"part": "snippet", "mine": "true"})) == \
        "quotaExceeded"


# --- the control API, and running it by hand ------------------------------------------------

def test_the_controls_work_over_http(yt, token):
    assert requests.post(f"{yt.base_url}/_emulator/cut", json={"after_bytes": 10}, timeout=10).status_code == 200
    assert requests.get(f"{yt.base_url}/_emulator/stalls", timeout=10).json()[0]["kind"] == "cut"
    added = requests.post(f"{yt.base_url}/_emulator/add_user", json={"name": "Two", "handle": "@two"},
                          timeout=10).json()["result"]
    assert added["handle"] == "@two" and requests.get(f"{yt.base_url}/_emulator/videos", timeout=10).json() == {
        CHANNEL: [], added["channel_id"]: []}


def test_it_runs_by_hand_and_prints_its_settings():
    process = subprocess.Popen([sys.executable, "-m", "tests.emulators.youtube", "--port", "0"],
                               stdout=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline().strip() for _ in range(4)]
    finally:
        process.terminate()
        process.wait(10)
    assert lines[0].startswith("youtube emulator on http://127.0.0.1:")
    assert lines[1].startswith("FANOUT_PLATFORM_HOSTS=accounts.google.com=http://127.0.0.1:")
    assert lines[2:] == ["FANOUT_YOUTUBE_CLIENT_ID=youtube-app-id", "FANOUT_YOUTUBE_CLIENT_SECRET=youtube-app-secret"]
