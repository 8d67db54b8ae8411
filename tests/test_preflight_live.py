"""POST /v1/upload/preflight live, on the emulators of the four platforms
(docs/decisions.md#posts-in-time): the app on a real loopback server, a browser for the
connect flows, a media server; the queue run by the test at its clock. One test per code a
preflight foresees, each held to what the same upload then comes to: the foreseen code is
the code the target fails with, and an ok preflight is followed by a published target."""
from __future__ import annotations

import datetime as dt
import hashlib

import pytest
import requests

from fanout.models import Account, Post, Target, db

from .conftest import run_queue
from .emulators.media import png_bytes
from .emulators.media.server import sample_media_server
from .platforms.live import (  # noqa: F401 (fixtures)
    INSTAGRAM_APP, THREADS_APP, TIKTOK_APP, X_APP, connected_account, insecure_urls, instagram_server,
    tiktok_server, x_server,
)
from .threads_world import (  # noqa: F401 (fixtures)
    USER_ID as THREADS_USER, browser, emulator, headers, live, port, run_for, served_with, threads_server,
)

X_USER = "1600000000000000001"
IG_USER = "17841400000000002"
TT_USER = "-000emuTikTokOpenId0001"


@pytest.fixture
def verified() -> tuple[str, ...]:
    """FANOUT_TIKTOK_VERIFIED_DOMAINS: the media server's host, as TikTok has it."""
    return ("127.0.0.1",)


@pytest.fixture
def settings(settings, port, threads_server, x_server, instagram_server, tiktok_server, verified):
    served = served_with(settings, port, {
        "threads": (threads_server, THREADS_APP),
        "x": (x_server, X_APP),
        "instagram": (instagram_server, INSTAGRAM_APP),
        "tiktok": (tiktok_server, TIKTOK_APP),
    })
    return served.with_platform("tiktok", verified_domains=verified)


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/png-named.jpg", png_bytes(800, 600), "image/jpeg")  # a PNG, whatever its name says
        yield server


@pytest.fixture
def platforms_up(live, emulator, x_server, instagram_server, tiktok_server):
    """Every emulator reset, consenting as its user, with this server's redirect URI."""
    for server, user, platform in ((x_server, X_USER, "x"), (instagram_server, IG_USER, "instagram"),
                                   (tiktok_server, TT_USER, "tiktok")):
        server.reset()
        server.consent_as(user)
        server.redirect_uris = {f"{live}/connect/{platform}/callback"}
    instagram_server.set_quota(50)
    tiktok_server.set_verified(domains=["127.0.0.1"])
    yield {"threads": emulator, "x": x_server, "instagram": instagram_server, "tiktok": tiktok_server}
    for server in (x_server, instagram_server, tiktok_server):
        assert not server.errors, server.errors[0]


@pytest.fixture
def connect(browser, live, headers, platforms_up):
    def connect(platform: str) -> str:
        return connected_account(browser, live, headers, platform)

    return connect


def preflight(live, headers, **body) -> dict:
    answer = requests.post(f"{live}/v1/upload/preflight", headers=headers, json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def problems(answer: dict) -> list[list[str]]:
    return [[p["code"] for p in t["problems"]] for t in answer["targets"]]


def upload(live, headers, **body) -> str:
    answer = requests.post(f"{live}/v1/upload", headers=headers, json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def outcome(live, headers, post_id) -> list[tuple[str, str | None]]:
    post = requests.get(f"{live}/v1/posts/{post_id}", headers=headers, timeout=10).json()
    return [(t["status"], t["error_code"]) for t in post["targets"]]


def photo(media, name="photo.jpg") -> dict:
    return {"url": media.url(name), "type": "image"}


def published_before(account_id: str, count: int, clock) -> None:
    """`count` targets of the account published just now (the service's own counts)."""
    with db.connection_context():
        account = Account.get_by_id(account_id)
        post = Post.create(id="post_00000000000000000000000001", workspace=account.workspace_id, sandbox=False,
                           caption="earlier", media="[]", status="completed", created_at=clock.now)
        for n in range(count):
            Target.create(id=f"tgt_{n:026d}", post=post, account_id=account_id, platform=account.platform,
                          position=n, status="published", published_at=clock.now, updated_at=clock.now,
                          due_at=clock.now)


def usage(live, headers) -> dict:
    answer = requests.get(f"{live}/v1/usage", headers=headers, timeout=10).json()
    return {cap: answer[cap]["used"] for cap in ("posts", "accounts", "api_keys", "webhooks")}


# --- ok, then published ---------------------------------------------------------------------

def test_an_ok_preflight_to_three_platforms_is_followed_by_an_upload_that_publishes(
        live, headers, connect, media, rt, clock, platforms_up):
    ids = [connect("x"), connect("instagram"), connect("threads")]
    body = dict(caption="hello from fanout", account_ids=ids, media=[photo(media, "square.jpg")])
    before = usage(live, headers)
    answer = preflight(live, headers, **body)
    assert answer["ok"] is True and problems(answer) == [[], [], []]
    assert usage(live, headers) == before
    # Nothing created anywhere.
    assert [post for server in platforms_up.values() for made in server.posts.values() for post in made] == []
    post_id = upload(live, headers, **body)
    run_for(rt, clock, platforms_up["threads"], 30, every=5)
    assert outcome(live, headers, post_id) == [("published", None)] * 3


# --- each foreseen code, and the same upload failing with it ----------------------------------

def test_an_override_caption_and_a_thread_part_over_xs_cap_are_foreseen_and_fail_the_upload_alike(
        live, headers, connect, rt, clock, platforms_up):
    ids = [connect("x"), connect("threads")]
    body = dict(caption="fine everywhere", account_ids=ids,
                overrides={"x": {"caption": "x" * 281, "thread": [{"caption": "fine"}, {"caption": "y" * 281}]}})
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["caption_too_long", "caption_too_long"], []]
    assert "thread[1].caption" in answer["targets"][0]["problems"][1]["message"]
    post_id = upload(live, headers, **body)
    run_for(rt, clock, platforms_up["threads"], 30, every=5)
    assert outcome(live, headers, post_id) == [("failed", "caption_too_long"), ("published", None)]
    assert platforms_up["x"].posts.get(X_USER, []) == []


def test_an_option_instagram_cannot_take_on_this_content_is_foreseen_and_fails_the_upload_alike(
        live, headers, connect, media, rt, clock, platforms_up):
    body = dict(caption="look", account_ids=[connect("instagram")], media=[photo(media, "square.jpg")],
                overrides={"instagram": {"options": {"share_to_feed": True}}})
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["platform_option_rejected"]]
    post_id = upload(live, headers, **body)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", "platform_option_rejected")]
    assert platforms_up["instagram"].posts.get(IG_USER, []) == []


def test_a_caption_over_xs_cap_is_foreseen_and_fails_the_upload_alike(live, headers, connect, rt, clock):
    body = dict(caption="x" * 281, account_ids=[connect("x")])
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["caption_too_long"]] and "280" in answer["targets"][0]["problems"][0]["message"]
    post_id = upload(live, headers, **body)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", "caption_too_long")]


@pytest.mark.parametrize("name, code, words", [
    ("missing.jpg", "media_download_failed", "HTTP 404"),
    ("png-named.jpg", "unsupported_media_for_platform", "PNG"),
], ids=["not fetched", "refused by its bytes"])
def test_media_instagram_would_refuse_once_fetched_is_foreseen_and_fails_the_upload_alike(
        live, headers, connect, media, rt, clock, platforms_up, name, code, words):
    body = dict(caption="look", account_ids=[connect("instagram")], media=[photo(media, name)])
    answer = preflight(live, headers, **body)
    assert problems(answer) == [[code]] and words in answer["targets"][0]["problems"][0]["message"]
    assert platforms_up["instagram"].posts.get(IG_USER, []) == []
    post_id = upload(live, headers, **body)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", code)]


def test_a_token_that_needs_a_refresh_the_platform_refuses_is_foreseen_and_fails_the_upload_alike(
        live, headers, connect, rt, clock, platforms_up):
    account_id = connect("x")
    post_id = upload(live, headers, caption="before", account_ids=[account_id],
                     scheduled_at=(clock.now + dt.timedelta(hours=3)).isoformat() + "Z")
    clock.advance(hours=2)  # X's access tokens last 2 hours
    platforms_up["x"].revoke_tokens(X_USER)  # and the refresh is refused
    answer = preflight(live, headers, caption="now", account_ids=[account_id])
    assert problems(answer) == [["platform_auth_expired"]]
    assert "reconnect" in answer["targets"][0]["problems"][0]["message"]
    with db.connection_context():
        assert Account.get_by_id(account_id).status == "expired"  # as a worker's refresh would have left it
    clock.advance(hours=1)
    from fanout.tasks import publishing
    publishing.sweep(rt)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", "platform_auth_expired")]


def test_a_token_that_needs_a_refresh_the_platform_grants_is_refreshed_and_ok(live, headers, connect, rt, clock):
    account_id = connect("x")
    with db.connection_context():
        before = Account.get_by_id(account_id).access_token
    clock.advance(hours=2)
    assert preflight(live, headers, caption="now", account_ids=[account_id])["ok"] is True
    with db.connection_context():
        refreshed = Account.get_by_id(account_id)
    assert refreshed.access_token != before and refreshed.status == "active"


@pytest.mark.parametrize("platform", ["instagram", "threads"])
def test_a_publishing_limit_the_platform_says_is_spent_is_foreseen_and_fails_the_upload_alike(
        live, headers, connect, media, rt, clock, platforms_up, platform):
    platforms_up[platform].set_quota(0)
    body = dict(caption="one too many", account_ids=[connect(platform)], media=[photo(media)])
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["platform_rate_limited"]]
    assert "posts in 24 hours" in answer["targets"][0]["problems"][0]["message"]
    post_id = upload(live, headers, **body)
    run_for(rt, clock, platforms_up[platform], 10, every=5)
    assert outcome(live, headers, post_id) == [("failed", "platform_rate_limited")]


def test_xs_window_counted_by_the_service_is_foreseen_and_fails_the_upload_alike(
        live, headers, connect, rt, clock, platforms_up):
    account_id = connect("x")
    published_before(account_id, 100, clock)  # X allows 100 in 15 minutes
    body = dict(caption="one too many", account_ids=[account_id])
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["platform_rate_limited"]] and "15 minutes" in answer["targets"][0]["problems"][0][
        "message"]
    assert platforms_up["x"].calls_to("POST", "/2/tweets") == []
    post_id = upload(live, headers, **body)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", "platform_rate_limited")]


def test_tiktoks_daily_posts_counted_by_the_service_are_foreseen_and_fail_the_upload_alike(
        live, headers, connect, media, rt, clock, platforms_up):
    account_id = connect("tiktok")
    published_before(account_id, 15, clock)
    body = dict(caption="one too many", account_ids=[account_id], media=[photo(media)])
    assert problems(preflight(live, headers, **body)) == [["platform_rate_limited"]]
    post_id = upload(live, headers, **body)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", "platform_rate_limited")]


def test_tiktoks_per_minute_window_is_foreseen_and_a_preflight_spends_none_of_it(
        live, headers, connect, media, rt, clock, platforms_up):
    account_id = connect("tiktok")
    with db.connection_context():
        token = rt.keyring.decrypt(Account.get_by_id(account_id).access_token)
    init = f"platform:tiktok:init:{hashlib.sha256(token.encode()).hexdigest()[:32]}"
    for _ in range(5):  # of the 6 posts TikTok lets an account start a minute
        assert rt.throttle.check(init, 6).allowed
    body = dict(caption="photo", account_ids=[account_id], media=[photo(media)])
    for _ in range(3):
        assert preflight(live, headers, **body)["ok"] is True
    assert rt.throttle.check(init, 6).allowed  # the sixth is still there
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["platform_rate_limited"]] and "a minute" in answer["targets"][0]["problems"][0][
        "message"]
    post_id = upload(live, headers, **body)
    run_queue(rt, clock)
    assert outcome(live, headers, post_id) == [("failed", "platform_rate_limited")]


@pytest.mark.parametrize("verified", [()])
def test_a_tiktok_photo_on_a_host_not_verified_is_foreseen_and_fails_the_upload_alike(
        live, headers, connect, media, rt, clock, platforms_up, verified):
    platforms_up["tiktok"].set_verified(domains=[])  # TikTok has not verified it either
    body = dict(caption="photo", account_ids=[connect("tiktok")], media=[photo(media)])
    answer = preflight(live, headers, **body)
    assert problems(answer) == [["url_ownership_unverified"]]
    assert "FANOUT_TIKTOK_VERIFIED_DOMAINS" in answer["targets"][0]["problems"][0]["message"]
    post_id = upload(live, headers, **body)
    run_for(rt, clock, platforms_up["tiktok"], 20, every=10)
    assert outcome(live, headers, post_id) == [("failed", "url_ownership_unverified")]


def test_a_tiktok_photo_on_a_verified_host_is_ok_and_publishes(live, headers, connect, media, rt, clock,
                                                               platforms_up):
    body = dict(caption="photo", account_ids=[connect("tiktok")], media=[photo(media)])
    assert preflight(live, headers, **body)["ok"] is True
    post_id = upload(live, headers, **body)
    run_for(rt, clock, platforms_up["tiktok"], 60, every=10)
    assert outcome(live, headers, post_id) == [("published", None)]
