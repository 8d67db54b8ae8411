"""The Facebook emulator against tests/emulators/README.md#facebook, over real HTTP: Facebook
Login (declined permissions, the Pages selected, single-use codes, the 60-day exchange),
Page tokens and the token check, feed posts and attached photos, Page videos and Reels on
the emulator's clock, comments, reading back, the Page's limits and the error shapes."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from ..clock import EmulatorClock
from ..conftest import START, Graph, error_of, serving
from ..media import jpeg_bytes, mp4_bytes
from . import FacebookEmulator, movie_bytes
from .movie import read_movie

PAGE = FacebookEmulator.DEFAULT_PAGE.id
USER = FacebookEmulator.DEFAULT_USER.id
REDIRECT = "https://app.example.com/cb"
SCOPES = "pages_show_list,pages_read_engagement,pages_manage_posts,pages_manage_engagement"


@pytest.fixture
def fb():
    yield from serving(FacebookEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


@pytest.fixture
def page(fb) -> Graph:
    """Calls with the default Page's token."""
    return Graph(fb.base_url, fb.page_token(PAGE))


@pytest.fixture
def files(media_server):
    media_server.put("/reel.mp4", movie_bytes(1080, 1920, 12), "video/mp4")
    media_server.put("/big.jpg", jpeg_bytes(8, 8) + bytes(5 * 1024 * 1024), "image/jpeg")
    return media_server


def login(fb, *, scope: str = SCOPES, redirect: str = REDIRECT) -> dict:
    answer = requests.get(f"{fb.base_url}/v25.0/dialog/oauth", allow_redirects=False, timeout=10, params={
        "client_id": "app-id", "redirect_uri": redirect, "state": "s", "response_type": "code", "scope": scope})
    assert answer.status_code == 302, answer.text
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["Location"]).query).items()}


def code_exchange(fb, code: str, **params) -> requests.Response:
    return requests.post(f"{fb.base_url}/v25.0/oauth/access_token", timeout=10, data={
        "client_id": "app-id", "client_secret": "app-secret", "redirect_uri": REDIRECT, "code": code, **params})


def long_lived(fb) -> str:
    short = code_exchange(fb, login(fb)["code"]).json()["access_token"]
    answer = requests.post(f"{fb.base_url}/v25.0/oauth/access_token", timeout=10, data={
        "grant_type": "fb_exchange_token", "client_id": "app-id", "client_secret": "app-secret",
        "fb_exchange_token": short})
    assert answer.status_code == 200 and answer.json()["expires_in"] == 60 * 86400, answer.text
    return answer.json()["access_token"]


def created(graph: Graph, path: str, key: str = "id", **params) -> str:
    answer = graph("POST", path, **params)
    assert answer.status_code == 200, answer.text
    return answer.json()[key]


# --- login and tokens ------------------------------------------------------------------------

def test_the_code_is_a_short_lived_token_once_and_the_exchange_a_60_day_one(fb):
    code = login(fb)["code"]
    first = code_exchange(fb, code)
    assert first.json()["expires_in"] == 5400 and first.json()["token_type"] == "bearer"
    assert error_of(code_exchange(fb, code))["error_subcode"] == 36009
    assert error_of(code_exchange(fb, login(fb)["code"], redirect_uri="https://other.example/cb"))[
        "error_subcode"] == 36008
    assert error_of(code_exchange(fb, login(fb)["code"], client_secret="nope"))["code"] == 1
    long_lived(fb)


def test_an_unknown_app_or_redirect_is_an_error_page(fb):
    fb.redirect_uris = {REDIRECT}
    answer = requests.get(f"{fb.base_url}/dialog/oauth", allow_redirects=False, timeout=10, params={
        "client_id": "app-id", "redirect_uri": "https://evil.example/cb", "scope": SCOPES, "response_type": "code"})
    assert answer.status_code == 400 and answer.headers["Content-Type"].startswith("text/html")


def test_declined_permissions_and_a_denial(fb):
    fb.decline(USER, ["pages_manage_posts"])
    token = long_lived(fb)
    permissions = Graph(fb.base_url, token)("GET", "/v25.0/me/permissions").json()["data"]
    assert {"permission": "pages_manage_posts", "status": "declined"} in permissions
    fb.deny_consent()
    assert login(fb)["error"] == "access_denied"


def test_me_accounts_lists_the_selected_pages_with_page_tokens_that_do_not_expire(fb):
    second = fb.add_page(USER, "Emu Cafe", username="emucafe")
    fb.add_page(USER, "Emu Shop")
    fb.select_pages(USER, [PAGE, second.id])
    data = Graph(fb.base_url, long_lived(fb))("GET", "/v25.0/me/accounts").json()["data"]
    assert [(p["id"], p["name"]) for p in data] == [(PAGE, "Emu Bakery"), (second.id, "Emu Cafe")]
    assert all(p["tasks"] and p["access_token"].startswith("EAAB") for p in data)
    check = requests.get(f"{fb.base_url}/debug_token", timeout=10,
                         params={"input_token": data[0]["access_token"], "access_token": "app-id|app-secret"})
    said = check.json()["data"]
    assert (said["type"], said["is_valid"], said["expires_at"], said["profile_id"]) == ("PAGE", True, 0, PAGE)


def test_me_accounts_pages_with_a_next_link(fb):
    for n in range(3):
        fb.add_page(USER, f"Emu Page {n}")
    graph = Graph(fb.base_url, long_lived(fb))
    first = graph("GET", "/v25.0/me/accounts", limit=2).json()
    assert len(first["data"]) == 2 and first["paging"]["next"].startswith("https://graph.facebook.com/")
    rest = graph("GET", "/v25.0/me/accounts", limit=2, after=first["paging"]["cursors"]["after"]).json()
    assert len(rest["data"]) == 2 and "next" not in rest["paging"]


def test_a_page_token_read_with_a_short_lived_token_lasts_an_hour(fb):
    short = fb.issue_token(USER, long_lived=False)
    page_token = Graph(fb.base_url, short)("GET", "/v25.0/me/accounts").json()["data"][0]["access_token"]
    fb.advance(3601)
    assert error_of(Graph(fb.base_url, page_token)("GET", "/v25.0/me"))["error_subcode"] == 463


@pytest.mark.parametrize("subcode", [458, 459, 460, 464, 467])
def test_a_revoked_users_tokens_answer_190_with_its_subcode(fb, page, subcode):
    fb.revoke(USER, subcode)
    error = error_of(page("POST", f"/v25.0/{PAGE}/feed", message="hi"))
    assert (error["code"], error["error_subcode"]) == (190, subcode)


def test_tokens_missing_unknown_and_of_a_user_without_a_role(fb, page):
    assert error_of(Graph(fb.base_url)("GET", "/v25.0/me"))["code"] == 2500
    assert error_of(Graph(fb.base_url, "EAABnope")("GET", "/v25.0/me"))["code"] == 190
    fb.remove_role(USER, PAGE)
    assert error_of(page("GET", "/v25.0/me"))["error_subcode"] == 492


def test_expired_user_tokens_leave_the_page_tokens_read_with_a_long_lived_one(fb):
    user_token = long_lived(fb)
    page_token = Graph(fb.base_url, user_token)("GET", "/v25.0/me/accounts").json()["data"][0]["access_token"]
    fb.expire_user_tokens(USER)
    assert error_of(Graph(fb.base_url, user_token)("GET", "/v25.0/me"))["error_subcode"] == 463
    assert Graph(fb.base_url, page_token)("GET", "/v25.0/me").json()["id"] == PAGE


def test_the_token_check_says_a_token_no_longer_works_and_needs_the_apps_token(fb, page):
    fb.revoke(USER, 460)
    check = requests.get(f"{fb.base_url}/debug_token", timeout=10, params={"input_token": page.token},
                         headers={"Authorization": "Bearer app-id|app-secret"})
    assert check.json()["data"]["is_valid"] is False and check.json()["data"]["error"]["subcode"] == 460
    wrong = requests.get(f"{fb.base_url}/debug_token", timeout=10, params={"input_token": page.token,
                                                                            "access_token": "app-id|nope"})
    assert error_of(wrong)["code"] == 190


# --- publishing ------------------------------------------------------------------------------

def test_a_user_token_cannot_publish_and_a_page_token_needs_its_permissions(fb, page):
    user = Graph(fb.base_url, fb.issue_token(USER))
    assert error_of(user("POST", f"/v25.0/{PAGE}/feed", message="hi"), 403)["code"] == 200
    narrow = Graph(fb.base_url, fb.page_token(PAGE, scopes=["pages_show_list", "pages_read_engagement"]))
    assert "pages_manage_posts" in error_of(narrow("POST", f"/v25.0/{PAGE}/feed", message="hi"), 403)["message"]


def test_a_feed_post_with_a_link_is_listed_with_its_permalink(fb, page):
    post_id = created(page, f"/v25.0/{PAGE}/feed", message="hi", link="https://example.com/a")
    [listed] = page("GET", f"/{PAGE}/feed", fields="id,message,permalink_url,attachments").json()["data"]
    assert listed["id"] == post_id and listed["permalink_url"].startswith("https://www.facebook.com/emubakery/posts/")
    assert listed["attachments"]["data"][0]["url"] == "https://example.com/a"
    assert error_of(page("POST", f"/v25.0/{PAGE}/feed"))["code"] == 100
    assert error_of(page("POST", f"/v25.0/{PAGE}/feed", message="a" * 63207))["code"] == 100


def test_unpublished_photos_are_attached_to_one_post_once(fb, page, media_server):
    photos = [created(page, f"/v25.0/{PAGE}/photos", url=media_server.url("photo.jpg"), published="false")
              for _ in range(2)]
    attached = {f"attached_media[{i}]": json.dumps({"media_fbid": p}) for i, p in enumerate(photos)}
    post_id = created(page, f"/v25.0/{PAGE}/feed", message="two", **attached)
    [post] = fb.posts[PAGE]
    assert post.id == post_id and post.photos == tuple(photos)
    again = page("POST", f"/v25.0/{PAGE}/feed", attached_media=json.dumps([{"media_fbid": photos[0]}]))
    assert error_of(again)["error_subcode"] == 1366051


def test_photos_facebook_cannot_use_are_324_and_over_4_mb_1366046(fb, page, media_server, files):
    assert error_of(page("POST", f"/{PAGE}/photos", url=media_server.url("nothing.jpg")))["code"] == 324
    assert error_of(page("POST", f"/{PAGE}/photos", url=media_server.url("clip.mp4")))["code"] == 324
    assert error_of(page("POST", f"/{PAGE}/photos", url="https://cdn.example.com/a.jpg"))["code"] == 324
    assert error_of(page("POST", f"/{PAGE}/photos", url=files.url("big.jpg")))["error_subcode"] == 1366046


def test_a_page_video_by_file_url_is_processed_then_ready(fb, page, media_server):
    video_id = created(page, f"/v25.0/{PAGE}/videos", file_url=media_server.url("clip.mp4"), description="d")
    status = page("GET", f"/v25.0/{video_id}", fields="status,permalink_url").json()
    assert status["status"]["video_status"] == "processing" and status["permalink_url"].endswith(f"/videos/{video_id}/")
    fb.advance(5)
    status = page("GET", f"/v25.0/{video_id}", fields="status").json()["status"]
    assert status["video_status"] == "ready" and status["publishing_phase"]["status"] == "complete"


def test_a_video_that_cannot_be_fetched_or_is_no_video_ends_in_error(fb, page, media_server):
    missing = created(page, f"/{PAGE}/videos", file_url=media_server.url("nothing.mp4"))
    photo = created(page, f"/{PAGE}/videos", file_url=media_server.url("photo.jpg"))
    fb.advance(5)
    for video_id in (missing, photo):
        status = page("GET", f"/{video_id}", fields="status").json()["status"]
        assert status["video_status"] == "error" and status["processing_phase"]["errors"][0]["message"]


def test_the_chunked_phases_of_a_page_video(fb, page):
    data = mp4_bytes(5.0) + bytes(100)
    start = page("POST", f"/{PAGE}/videos", upload_phase="start", file_size=str(len(data))).json()
    answer = requests.post(f"{fb.base_url}/{PAGE}/videos", timeout=10, files={"video_file_chunk": ("c", data)},
                           data={"upload_phase": "transfer", "upload_session_id": start["upload_session_id"],
                                 "start_offset": "0", "access_token": page.token})
    assert answer.json()["start_offset"] == str(len(data))
    assert page("POST", f"/{PAGE}/videos", upload_phase="finish", upload_session_id=start["upload_session_id"],
                description="chunked").json() == {"success": True}


def reel_started(page) -> tuple[str, str]:
    answer = page("POST", f"/v25.0/{PAGE}/video_reels", upload_phase="start").json()
    assert answer["upload_url"].startswith("https://rupload.facebook.com/video-upload/v25.0/")
    return answer["video_id"], answer["upload_url"]


def send_bytes(fb, page, upload_url: str, data: bytes, offset: int = 0, size: int | None = None):
    return requests.post(upload_url.replace("https://rupload.facebook.com", fb.base_url), data=data, timeout=10,
                         headers={"Authorization": f"OAuth {page.token}", "offset": str(offset),
                                  "file_size": str(size or len(data))})


def test_a_reel_is_started_uploaded_finished_processed_and_published(fb, page):
    video_id, url = reel_started(page)
    data = movie_bytes(1080, 1920, 12)
    assert send_bytes(fb, page, url, data).json() == {"success": True}
    assert page("GET", f"/{video_id}", fields="status").json()["status"]["video_status"] == "upload_complete"
    assert page("POST", f"/{PAGE}/video_reels", upload_phase="finish", video_id=video_id, video_state="PUBLISHED",
                description="r").json() == {"success": True}
    fb.advance(3)
    reel = page("GET", f"/{video_id}", fields="status,permalink_url").json()
    assert reel["status"]["publishing_phase"]["publish_status"] == "published"
    assert reel["permalink_url"] == f"/reel/{video_id}/"


def test_a_reel_upload_goes_on_from_the_bytes_received(fb, page):
    video_id, url = reel_started(page)
    data = movie_bytes(1080, 1920, 12, padding=5000)
    fb.cut_next_upload(1000)
    with pytest.raises(requests.ConnectionError):
        send_bytes(fb, page, url, data)
    uploading = page("GET", f"/{video_id}", fields="status").json()["status"]["uploading_phase"]
    assert uploading == {"status": "in_progress", "bytes_transferred": 1000}
    wrong = send_bytes(fb, page, url, data, offset=0)
    assert wrong.status_code == 400 and wrong.json()["debug_info"]["retriable"] is False
    assert send_bytes(fb, page, url, data[1000:], offset=1000, size=len(data)).json() == {"success": True}
    [made] = fb.videos[PAGE]
    assert made["received"] == len(data)


@pytest.mark.parametrize("width, height, seconds, problem", [
    (1080, 1350, 12, "9:16"), (450, 800, 12, "540x960"), (1080, 1920, 2, "3 to 90"), (1080, 1920, 91, "3 to 90")])
def test_a_reel_outside_the_reel_limits_ends_in_error(fb, page, width, height, seconds, problem):
    video_id, url = reel_started(page)
    send_bytes(fb, page, url, movie_bytes(width, height, seconds))
    page("POST", f"/{PAGE}/video_reels", upload_phase="finish", video_id=video_id, video_state="PUBLISHED")
    fb.advance(3)
    status = page("GET", f"/{video_id}", fields="status").json()["status"]
    assert status["video_status"] == "error" and problem in status["processing_phase"]["errors"][0]["message"]


def test_a_turned_portrait_reel_is_read_the_right_way_up():
    movie = read_movie(movie_bytes(1080, 1920, 15, turned=True))
    assert (movie.width, movie.height, movie.seconds) == (1080, 1920, 15.0)


def test_a_finish_before_the_bytes_is_refused_and_past_the_days_reels_it_is_32(fb, page):
    video_id, url = reel_started(page)
    refused = page("POST", f"/{PAGE}/video_reels", upload_phase="finish", video_id=video_id, video_state="PUBLISHED")
    assert error_of(refused)["code"] == 100
    fb.configure(reel_limit=0)
    send_bytes(fb, page, url, movie_bytes())
    limited = page("POST", f"/{PAGE}/video_reels", upload_phase="finish", video_id=video_id, video_state="PUBLISHED")
    assert error_of(limited)["code"] == 32


def test_a_comment_by_the_page_needs_pages_manage_engagement(fb, page):
    post_id = created(page, f"/{PAGE}/feed", message="hi")
    comment_id = created(page, f"/{post_id}/comments", message="first")
    listed = page("GET", f"/{post_id}/comments", fields="id,message,from").json()["data"]
    assert listed == [{"id": comment_id, "message": "first", "from": {"id": PAGE, "name": "Emu Bakery"}}]
    narrow = Graph(fb.base_url, fb.page_token(PAGE, scopes=["pages_show_list", "pages_read_engagement",
                                                            "pages_manage_posts"]))
    assert "pages_manage_engagement" in error_of(narrow("POST", f"/{post_id}/comments", message="x"), 403)["message"]


@pytest.mark.parametrize("code", [4, 17, 32, 613, 80001])
def test_an_exhausted_page_answers_its_limit_on_creating_calls_until_unthrottled(fb, page, code):
    fb.exhaust(PAGE, code)
    assert error_of(page("POST", f"/{PAGE}/feed", message="hi"))["code"] == code
    assert page("GET", f"/{PAGE}/feed").status_code == 200
    fb.unthrottle(PAGE)
    assert page("POST", f"/{PAGE}/feed", message="hi").status_code == 200


def test_a_blocked_page_answers_368(fb, page):
    fb.block(PAGE)
    error = error_of(page("POST", f"/{PAGE}/photos", url="http://127.0.0.1:9/p.jpg"))
    assert (error["code"], error["error_subcode"]) == (368, 1390008)


def test_the_feed_lists_newest_first_with_since_and_after(fb, page):
    first = created(page, f"/{PAGE}/feed", message="one")
    fb.advance(60)
    second = created(page, f"/{PAGE}/feed", message="two")
    assert [p["id"] for p in page("GET", f"/{PAGE}/feed").json()["data"]] == [second, first]
    since = int(START.timestamp()) + 30
    assert [p["id"] for p in page("GET", f"/{PAGE}/feed", since=str(since)).json()["data"]] == [second]
    assert [p["id"] for p in page("GET", f"/{PAGE}/feed", limit="1", after="1").json()["data"]] == [first]


def test_control_over_http(fb):
    answer = requests.post(f"{fb.base_url}/_emulator/add_page", json={"user_id": USER, "name": "Emu Cafe"}, timeout=10)
    assert answer.status_code == 200 and answer.json()["result"]["name"] == "Emu Cafe"
    assert [p["name"] for p in requests.get(f"{fb.base_url}/_emulator/pages", timeout=10).json()] == [
        "Emu Bakery", "Emu Cafe"]
    assert requests.get(f"{fb.base_url}/_emulator/tokens", timeout=10).json() == {USER: []}
