"""What the engine does when a step raises what it does not expect (a bug in this server,
played by a platform client that raises): a retry bounded like any transient failure, then
the target `failed` with `unknown_platform_error`, its post's status and webhook as for any
failure; the traceback logged once, with the target id (fanout/tasks/publishing.py). An
answer that breaks the platform's contract is not this: it fails at once
(tests/test_broken_answers.py). Live, through HTTP only, on the emulators of the first four
platforms.
"""
from __future__ import annotations

import json
import logging
from urllib.parse import urlsplit

import pytest
import requests

from fanout.platforms import REGISTRY
from fanout.tasks.publishing import MAX_RETRIES

from .conftest import run_queue
from .platforms.live import insecure_urls, instagram_server, tiktok_server, x_server  # noqa: F401 (fixtures)
from .platforms.tiktok.test_live import media, settings, tt, upload_method, verified  # noqa: F401 (fixtures)
from .threads_world import (  # noqa: F401 (fixtures)
    USER_ID, browser, connect, emulator, headers, hook, live, port, threads_server,
)


class Crashing:
    """The platform client of a worker whose steps on `platform` meet an exception they do
    not expect, at every call (with `after`: once, on a call to a URL ending with it, its
    answer come back); the other calls go through."""

    def __init__(self, inner, platform: str, after: str | None = None):
        self.inner, self.hosts, self.after, self.raised = inner, set(REGISTRY[platform].hosts), after, 0

    def url(self, url):
        return self.inner.url(url)

    def request(self, method, url, **kwargs):
        if urlsplit(url).hostname not in self.hosts:
            return self.inner.request(method, url, **kwargs)
        if self.after is not None:
            answer = self.inner.request(method, url, **kwargs)
            if self.raised or not url.endswith(self.after):
                return answer
        self.raised += 1
        raise ValueError("Invalid IPv6 URL")  # a bug's words, which may hold anything

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)


@pytest.fixture
def servers(live, tt, emulator, x_server, instagram_server) -> tuple:
    x_server.reset()
    instagram_server.reset()
    x_server.redirect_uris = {f"{live}/connect/x/callback"}
    instagram_server.redirect_uris = {f"{live}/connect/instagram/callback"}
    return tt, emulator, x_server, instagram_server


def connected(browser, live, headers, platform: str) -> str:
    query = connect(browser, live, headers, platform)
    assert query["status"] == "connected", query
    return query["account_id"]


def upload_to(live, headers, media, *account_ids: str) -> dict:
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "meets the unexpected", "account_ids": list(account_ids),
        "media": [{"url": media.url("photo.jpg"), "type": "image"}]})
    assert answer.status_code == 201, answer.text
    return answer.json()


def run_for_an_hour(rt, clock, servers) -> None:
    """The queue run as an hour passes, two minutes at a time, on every clock: past the
    engine's retries (30 s doubling, five of them)."""
    run_queue(rt, clock)
    for _ in range(30):
        clock.advance(seconds=120)
        for server in servers:
            server.advance(120)
        run_queue(rt, clock)


def read(live, headers, post_id) -> dict:
    return requests.get(f"{live}/v1/posts/{post_id}", headers=headers, timeout=10).json()


# The platforms whose emulators this world runs (each newer platform's own tests cover it).
EMULATED = ("threads", "x", "instagram", "tiktok")


@pytest.mark.parametrize("platform", EMULATED)
def test_an_exception_a_step_does_not_expect_is_retried_within_bounds_then_fails_the_target(
        browser, live, headers, hook, httpserver, servers, media, rt, clock, platform):
    other = "x" if platform == "threads" else "threads"
    crashing, healthy = connected(browser, live, headers, platform), connected(browser, live, headers, other)
    client = rt.platform_http = Crashing(rt.platform_http, platform)
    post = upload_to(live, headers, media, crashing, healthy)
    run_for_an_hour(rt, clock, servers)
    read_back = read(live, headers, post["id"])
    targets = {t["account_id"]: t for t in read_back["targets"]}
    failed = targets[crashing]
    assert (failed["status"], failed["error_code"]) == ("failed", "unknown_platform_error"), failed
    assert f"gave up after {MAX_RETRIES} retries" in failed["error_message"] and "ValueError" in failed["error_message"]
    assert "Traceback" not in failed["error_message"] and "Invalid IPv6" not in failed["error_message"]
    assert client.raised == MAX_RETRIES + 1  # the first step and its retries, then no more
    assert targets[healthy]["status"] == "published" and read_back["status"] == "partial"
    events = {e["target"]["id"]: e for e in (json.loads(r.get_data()) for r, _ in httpserver.log)}
    assert events[failed["id"]]["event"] == "post.failed"
    assert events[failed["id"]]["target"]["error_code"] == "unknown_platform_error"
    assert events[targets[healthy]["id"]]["event"] == "post.completed"


def test_the_traceback_of_an_unexpected_exception_is_logged_once_with_the_target_id(
        browser, live, headers, servers, media, rt, clock, caplog):
    account = connected(browser, live, headers, "x")
    rt.platform_http = Crashing(rt.platform_http, "x")
    with caplog.at_level(logging.INFO):
        post = upload_to(live, headers, media, account)
        run_for_an_hour(rt, clock, servers)
    [target] = read(live, headers, post["id"])["targets"]
    assert target["status"] == "failed"
    tracebacks = [r for r in caplog.records if r.exc_info]
    [logged] = tracebacks
    assert target["id"] in logged.getMessage() and logged.levelno == logging.ERROR
    assert isinstance(logged.exc_info[1], ValueError)
    [gave_up] = [r for r in caplog.records if "failed after" in r.getMessage()]
    assert target["id"] in gave_up.getMessage() and gave_up.levelno == logging.WARNING
    assert "Unhandled exception in task" not in caplog.text


def test_a_step_that_crashes_after_publishing_is_retried_from_its_marker_and_posts_once(
        browser, live, headers, servers, media, rt, clock, emulator):
    account = connected(browser, live, headers, "threads")
    rt.platform_http = Crashing(rt.platform_http, "threads", after="/threads_publish")
    post = upload_to(live, headers, media, account)
    run_for_an_hour(rt, clock, servers)
    [target] = read(live, headers, post["id"])["targets"]
    [made] = emulator.posts[USER_ID]
    assert target["status"] == "published" and target["external_url"] == made.permalink
