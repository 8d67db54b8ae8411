"""Live TikTok end to end, through HTTP only: the app on a real loopback server with apps
for all four platforms, their emulators, a browser for the connect flows, a media server;
the queue is run by the test, at the test's clock, as a worker would. Connect, a video by
FILE_UPLOAD and one by PULL_FROM_URL, posts of 1 to 35 photos, `pull` from an unverified
host, a worker killed at every call of an upload, one post to all four
platforms, and the mapping table of docs/platforms.md#the-tiktok-adapter row by row
through the engine.
"""
from __future__ import annotations


import pytest
import requests

from fanout.tasks import tokens

from ...conftest import run_queue
from ...emulators.media import jpeg_bytes
from ...emulators.media.server import sample_media_server
from ..threads.test_live import publish_with_a_death
from .test_adapter import FAIL_REASONS, INIT_ROWS, VIDEO_INIT
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect, emulator, headers, live, only_target, port, run_for, served_with, threads_server,
)
from ..live import (  # noqa: F401 (fixtures)
    INSTAGRAM_APP, THREADS_APP, TIKTOK_APP, X_APP, connected_account, insecure_urls, instagram_server, stored,
    tiktok_server, uploader, x_server,
)

OPEN_ID, USERNAME = "-000emuTikTokOpenId0001", "emu_tiktok"
AUTH_ROWS = {row for row, *_, code in INIT_ROWS if code == "platform_auth_expired"}


@pytest.fixture
def tt(tiktok_server, live):
    tiktok_server.reset()
    tiktok_server.consent_as(OPEN_ID)
    tiktok_server.set_verified(domains=["127.0.0.1"])
    tiktok_server.redirect_uris = {f"{live}/connect/tiktok/callback"}
    yield tiktok_server
    assert not tiktok_server.errors, tiktok_server.errors[0]


@pytest.fixture
def verified() -> tuple[str, ...]:
    return ()


@pytest.fixture
def upload_method() -> str:
    return "auto"


@pytest.fixture
def settings(settings, port, threads_server, tiktok_server, x_server, instagram_server, verified, upload_method):
    served = served_with(settings, port, {
        "tiktok": (tiktok_server, TIKTOK_APP),
        "threads": (threads_server, THREADS_APP),
        "x": (x_server, X_APP),
        "instagram": (instagram_server, INSTAGRAM_APP),
    })
    return served.with_platform("tiktok", verified_domains=verified, upload_method=upload_method)


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        yield server


@pytest.fixture
def account(browser, live, headers, tt) -> str:
    return connected_account(browser, live, headers, "tiktok")


upload = uploader("tiktok")


def clip(media) -> dict:
    return {"url": media.url("clip.mp4"), "type": "video"}


def posts(tt) -> list:
    return tt.posts.get(OPEN_ID, [])


def permalink(post) -> str:
    return f"https://www.tiktok.com/@{USERNAME}/video/{post.post_id}"


# --- connect -------------------------------------------------------------------------------

def test_connecting_adds_an_active_account_with_the_tiktok_username(browser, live, headers, tt):
    query = connect(browser, live, headers, "tiktok")
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "tiktok", USERNAME, "active")


def test_refused_consent_comes_back_as_access_denied(browser, live, headers, tt):
    tt.deny_consent()
    assert connect(browser, live, headers, "tiktok")["error"] == "access_denied"


def test_a_refresh_rotates_the_refresh_token_and_a_refused_one_expires_the_account(
        live, headers, account, tt, rt, clock):
    def until_its_refresh_time():
        seconds = (stored(account).refresh_at - clock.now).total_seconds() + 1
        clock.advance(seconds=seconds)
        tt.advance(seconds)

    before = stored(account)
    until_its_refresh_time()
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.refresh_token) != rt.keyring.decrypt(before.refresh_token)
    tt.revoke_tokens(OPEN_ID)
    until_its_refresh_time()
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}


# --- publishing ----------------------------------------------------------------------------

def test_a_video_by_file_upload_publishes_with_its_permalink(live, headers, account, tt, media, rt, clock):
    post = upload(live, headers, "uploaded", [clip(media)])
    run_for(rt, clock, tt, 60, every=10)
    [made] = posts(tt)
    assert made.source == "FILE_UPLOAD" and only_target(live, headers, post["id"])["external_url"] == permalink(made)


@pytest.mark.parametrize("verified", [("127.0.0.1",)])
def test_a_video_on_a_verified_host_publishes_by_pull_from_url(live, headers, account, tt, media, rt, clock, verified):
    post = upload(live, headers, "pulled", [clip(media)])
    run_for(rt, clock, tt, 60, every=10)
    [made] = posts(tt)
    assert made.source == "PULL_FROM_URL" and only_target(live, headers, post["id"])["external_url"] == permalink(made)


@pytest.mark.parametrize("count", [1, 2, 35])
def test_a_post_of_1_to_35_photos_publishes_with_the_first_as_cover_and_its_photo_permalink(
        live, headers, account, tt, media, rt, clock, count):
    for n in range(count):
        media.put(f"/photo-{n}.jpg", jpeg_bytes(640, 480 + n), "image/jpeg")
    photos = [{"url": media.url(f"photo-{n}.jpg"), "type": "image"} for n in range(count)]
    post = upload(live, headers, f"{count} photos", photos)
    run_for(rt, clock, tt, 60, every=10)
    [made] = posts(tt)
    published = only_target(live, headers, post["id"])
    assert published["external_url"] == f"https://www.tiktok.com/@{USERNAME}/photo/{made.post_id}", published
    assert (made.media, made.photo_urls, made.cover_index) == ("photo", tuple(p["url"] for p in photos), 0)


@pytest.mark.parametrize("upload_method", ["pull"])
def test_pull_from_a_host_tiktok_has_not_verified_fails_url_ownership_unverified(
        live, headers, account, tt, media, rt, clock, upload_method):
    tt.set_verified(domains=[])
    post = upload(live, headers, "pulled", [clip(media)])
    run_for(rt, clock, tt, 60, every=10)
    assert only_target(live, headers, post["id"])["error_code"] == "url_ownership_unverified" and posts(tt) == []


def test_one_post_to_all_four_platforms_publishes_everywhere(browser, live, headers, account, tt, emulator, media,
                                                             x_server, instagram_server, rt, clock):
    x_server.reset()
    instagram_server.reset()
    x_server.redirect_uris = {f"{live}/connect/x/callback"}
    instagram_server.redirect_uris = {f"{live}/connect/instagram/callback"}
    ids = [account] + [connect(browser, live, headers, p)["account_id"] for p in ("threads", "x", "instagram")]
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "everywhere at once", "account_ids": ids, "media": [clip(media)]})
    assert answer.status_code == 201, answer.text
    for _ in range(12):  # a minute at a time, on every clock
        run_queue(rt, clock)
        clock.advance(seconds=60)
        for server in (tt, emulator, x_server, instagram_server):
            server.advance(60)
    run_queue(rt, clock)
    post = requests.get(f"{live}/v1/posts/{answer.json()['id']}", headers=headers, timeout=10).json()
    assert post["status"] == "completed", post
    assert {t["platform"] for t in post["targets"] if t["external_url"]} == {"tiktok", "threads", "x", "instagram"}


# --- an answer that breaks TikTok's contract ---------------------------------------------------

@pytest.mark.parametrize("base, shown", [("http://127.0.0.1:9", "http://127.0.0.1:9"),
                                         ("https://127.0.0.2:9", "https://127.0.0.2:9")],
                         ids=["http-on-loopback", "https-on-another-host"])
def test_an_upload_url_off_tiktoks_hosts_fails_the_target_at_once_after_one_init_with_the_reason(
        live, headers, account, tt, media, rt, clock, base, shown):
    tt.set_upload_base(base)
    post = upload(live, headers, "uploaded", [clip(media)])
    run_queue(rt, clock)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", "unknown_platform_error"), failed
    assert "upload URL" in failed["error_message"] and shown in failed["error_message"], failed
    assert "upload_token" not in failed["error_message"]
    run_for(rt, clock, tt, 300, every=60)  # five minutes, in which nothing starts it again
    assert len(tt.calls_to("POST", VIDEO_INIT)) == 1 and len(posts(tt)) == 1


# --- never twice -----------------------------------------------------------------------------

@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_uploaded_video_leaves_one_post_with_its_permalink(
        live, headers, account, tt, media, rt, clock, after):
    tt.set_daily_cap(100)  # a post started again leaves its first publish behind, never completed

    def complete() -> list:
        return [p for p in posts(tt) if p.status == "PUBLISH_COMPLETE"]

    n = 1
    while True:
        before = len(complete())
        post = upload(live, headers, f"death at call {n} {after}", [clip(media)])
        died = publish_with_a_death(rt, clock, n, after)
        run_for(rt, clock, tt, 60, every=10)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(complete()) == before + 1, f"death at call {n}: {len(complete()) - before} posts"
        assert published["external_url"] == permalink(complete()[-1]), (n, published)
        if not died:
            break
        n += 1
    assert n > 3


# --- the mapping table, through the engine -------------------------------------------------

@pytest.mark.parametrize("row, status, body, code", INIT_ROWS, ids=[r[0] for r in INIT_ROWS])
def test_each_init_answer_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, tt, media, rt, clock, row, status, body, code):
    tt.fail("POST", VIDEO_INIT, status, body, times=None if row in AUTH_ROWS else 1)
    if row in AUTH_ROWS:
        tt.revoke_tokens(OPEN_ID)  # the one refresh the auth error earns is refused too
    post = upload(live, headers, "hello", [clip(media)])
    run_for(rt, clock, tt, 60, every=10)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")


@pytest.mark.parametrize("fail_reason, code", FAIL_REASONS, ids=[r[0] for r in FAIL_REASONS])
def test_each_fail_reason_through_the_engine_ends_in_its_code(live, headers, account, tt, media, rt, clock,
                                                               fail_reason, code):
    tt.force_next_publish("FAILED", fail_reason)
    post = upload(live, headers, "hello", [clip(media)])
    run_for(rt, clock, tt, 60, every=10)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
