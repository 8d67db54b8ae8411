"""A world with TestSky, a platform of the tests only (never shipped, not in the spec's
enum) that connects with the credentials style: its adapter here, its emulator in
tests/emulators/testsky/, and the app given the registry and TestSky through the
`platforms` fixture (the runtime's `platforms`, fanout/runtime.py)."""
from __future__ import annotations

import dataclasses

import pytest

from fanout import connect_flow
from fanout.models import db
from fanout.platforms import REGISTRY, Platform
from fanout.platforms.base import CREDENTIALS, AuthFailed, Field, Grant, SignInRefused, bearer, failed, published
from fanout.media import MediaLimits
from fanout.platforms.http import PlatformUnreachable, parse_hosts
from fanout.platforms.rules import Needs, PlatformRules

from .emulators.testsky import HOSTS, TestSkyEmulator
from .threads_world import serve_app

IDENTIFIER, APP_PASSWORD = "alice.testsky.example", "abcd-efgh-ijkl-mnop"
DID = "did:plc:testsky0000000000000001"


class TestSkyAdapter:
    """TestSky's adapter: it signs in as Bluesky's createSession does (docs/platforms.md)."""

    __test__ = False
    name, title = "testsky", "TestSky"
    hosts = HOSTS
    CONNECT_STYLE = CREDENTIALS
    fields = (Field("identifier", "handle or email"),
              Field("password", "app password", secret=True, hint="Make one in TestSky's settings, under App passwords."))

    def sign_in(self, http, identifier: str, password: str, *, now, settings) -> Grant:
        answer = http.post(f"https://{HOSTS[0]}/xrpc/com.atproto.server.createSession",
                           json_body={"identifier": identifier, "password": password})
        body = answer.json()
        if answer.status == 200:
            return Grant(body["accessJwt"], body["refreshJwt"], user_id=body["did"], username=body["handle"])
        reason = f"{body.get('error')}: {body.get('message')}"
        if answer.status in (400, 401):
            raise SignInRefused(reason)
        if answer.status >= 500:
            raise PlatformUnreachable(f"{HOSTS[0]} answered {answer.status}", sent=True)
        raise AuthFailed(reason)

    def refresh(self, http, app, access_token: str, refresh_token: str | None, *, now) -> Grant:
        answer = http.post(f"https://{HOSTS[0]}/xrpc/com.atproto.server.refreshSession",
                           headers=bearer(refresh_token or ""))
        body = answer.json()
        if answer.status == 200:
            return Grant(body["accessJwt"], body["refreshJwt"], user_id=body["did"], username=body["handle"])
        if answer.status >= 500:
            raise PlatformUnreachable(f"{HOSTS[0]} answered {answer.status}", sent=True)
        raise AuthFailed(f"{body.get('error')}: {body.get('message')}")

    def publish(self, step, job):
        """A text post, as a record whose key is saved before the call that creates it: a
        replay reads the record back before creating anything."""
        base, rkey = f"https://{HOSTS[0]}/xrpc", job.state.get("rkey")
        where = {"repo": job.user_id, "collection": "app.bsky.feed.post"}
        if rkey is not None:
            if step.http.get(f"{base}/com.atproto.repo.getRecord", params={**where, "rkey": rkey}).status == 200:
                return published(self.permalink(job, rkey))
        else:
            rkey = f"fo{job.target_id.lower()[-11:]}"
            step.save({"rkey": rkey})
        answer = step.http.post(f"{base}/com.atproto.repo.createRecord", headers=bearer(job.access_token), json_body={
            **where, "rkey": rkey,
            "record": {"$type": "app.bsky.feed.post", "text": job.caption, "createdAt": step.now().isoformat() + "Z"}})
        if answer.status == 200:
            return published(self.permalink(job, rkey))
        body = answer.json()
        code = "platform_auth_expired" if answer.status == 401 else "unknown_platform_error"
        return failed(code, f"{body.get('error')}: {body.get('message')}")

    @staticmethod
    def permalink(job, rkey: str) -> str:
        return f"https://{HOSTS[0]}/profile/{job.username}/post/{rkey}"


# Bluesky's text caps (300 graphemes, counted here as characters), and no media.
RULES = PlatformRules(
    platform="testsky", caption_limit=300, caption_length=len, caption_unit="", needs=Needs.TEXT_OR_MEDIA, image_extensions=frozenset(),
    video_extensions=frozenset(), max_items=0, max_images=0, max_videos=0, mixed=False,
    media_limits=MediaLimits(platform="testsky", image_formats=frozenset(), video_formats=frozenset(),
                             image_max_bytes=0, video_max_bytes=0),
)
TESTSKY = Platform("testsky", "TestSky", RULES, adapter=TestSkyAdapter(), hosts=HOSTS)


@pytest.fixture(scope="module")
def sky_server():
    with TestSkyEmulator() as server:
        yield server


@pytest.fixture
def sky(sky_server):
    sky_server.reset()
    yield sky_server
    assert not sky_server.errors, sky_server.errors[0]


@pytest.fixture
def platforms() -> dict:
    return {**REGISTRY, TESTSKY.name: TESTSKY}


@pytest.fixture
def port(stand) -> int:
    return stand.port


@pytest.fixture
def settings(settings, sky, port):
    """The suite's settings served on `port`, TestSky's host sent to its emulator."""
    here = f"http://127.0.0.1:{port}"
    return dataclasses.replace(settings, base_url=here, connect_url=here,
                               platform_hosts=parse_hosts(",".join(f"{h}={sky.base_url}" for h in HOSTS)))


@pytest.fixture
def live(app, stand) -> str:
    """The app on a real loopback server."""
    yield from serve_app(app, stand)


def sky_link(rt, workspace_id: str, redirect_url: str | None = None) -> str:
    """A live TestSky connect link, as `POST /v1/accounts/{platform}/connect` makes it (the
    spec's enum does not name TestSky, so the tests ask the flow directly)."""
    with db.connection_context():
        return connect_flow.start(rt, workspace_id, "testsky", sandbox=False, redirect_url=redirect_url)
