"""A world with Threads live: the Threads emulator, the app on a real loopback server
configured with a Threads app and the emulator's hosts, a live key, and a browser that
follows redirects (fixtures shared by the Threads tests)."""
from __future__ import annotations

import dataclasses
import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from fanout.platforms.base import App
from fanout.platforms.http import parse_hosts

from .conftest import bearer
from .emulators.threads import ThreadsEmulator

USER_ID, USERNAME = "25025320001", "emu_threads"
LONG_LIVED = dt.timedelta(days=60)


@pytest.fixture(scope="module")
def threads_server():
    with ThreadsEmulator("app-id", "app-secret", users=[(USER_ID, USERNAME)]) as server:
        yield server


@pytest.fixture
def emulator(threads_server):
    threads_server.reset()
    threads_server.consent_as(USER_ID)
    yield threads_server
    assert not threads_server.errors, threads_server.errors[0]


@pytest.fixture
def port(stand) -> int:
    return stand.port


def served_with(settings, port: int, apps: dict[str, tuple[object, App]]):
    """`settings` served on `port` with each platform's app and its emulator's hosts:
    apps maps a platform to (its emulator, its App)."""
    here = f"http://127.0.0.1:{port}"
    return dataclasses.replace(
        settings, base_url=here, connect_url=here,
        platform_apps={platform: app for platform, (_, app) in apps.items()},
        platform_hosts=parse_hosts(",".join(server.hosts_setting for server, _ in apps.values())),
    )


@pytest.fixture
def settings(settings, port, emulator):
    """The suite's settings, served on `port`, with a Threads app and the emulator's hosts."""
    here = f"http://127.0.0.1:{port}"
    return dataclasses.replace(
        settings, base_url=here, connect_url=here,
        platform_apps={"threads": App("app-id", "app-secret")},
        platform_hosts=parse_hosts(emulator.hosts_setting),
    )


@pytest.fixture
def live(app, stand, emulator) -> str:
    """The app on a real loopback server (in this process, so the test's clock rules it)."""
    for url in serve_app(app, stand):
        # The platform accepts only the redirect URI registered for the app.
        emulator.redirect_uris = {f"{url}/connect/threads/callback"}
        yield url


def serve_app(app, stand):
    """Serve `app` on the session's loopback server for the length of a fixture: yields its URL."""
    yield from stand.serving(app)


@pytest.fixture
def headers(live_key) -> dict:
    return bearer(live_key)


@pytest.fixture
def hook(live, headers, httpserver, resolver) -> dict:
    """A webhook registration for every event, to the test's receiver (`httpserver`)."""
    resolver.names["localhost"] = ["127.0.0.1"]
    httpserver.expect_request("/hook").respond_with_data("ok")
    answer = requests.post(f"{live}/v1/webhooks", headers=headers, timeout=10, json={
        "url": httpserver.url_for("/hook"), "events": ["post.completed", "post.failed", "account.expired"]})
    assert answer.status_code == 201, answer.text
    return answer.json()


@pytest.fixture
def browser():
    with requests.Session() as session:
        yield session


def connect_link(live: str, headers: dict, platform: str = "threads", **body) -> str:
    answer = requests.post(f"{live}/v1/accounts/{platform}/connect", headers=headers, json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["url"]


def query_of(url: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def accounts(live: str, headers: dict) -> list[dict]:
    answer = requests.get(f"{live}/v1/accounts", headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


def callback_url(browser, link: str) -> str:
    """Open the link and consent, stopping where the platform sends the browser back."""
    to_platform = browser.get(link, allow_redirects=False, timeout=10)
    assert to_platform.status_code == 302, to_platform.text
    back = browser.get(to_platform.headers["location"], allow_redirects=False, timeout=10)
    assert back.status_code == 302, back.text
    return back.headers["location"]


def connect(browser, live: str, headers: dict, platform: str = "threads") -> dict:
    """Follow the connect flow of `platform` in the browser: the query it lands on."""
    landed = browser.get(connect_link(live, headers, platform), timeout=10)
    assert landed.status_code == 200, landed.text
    return query_of(landed.url)


def only_target(live: str, headers: dict, post_id: str) -> dict:
    """The one target of a post, as the API answers it."""
    [target] = requests.get(f"{live}/v1/posts/{post_id}", headers=headers, timeout=10).json()["targets"]
    return target


def run_for(rt, clock, emulator, seconds: int, every: int) -> None:
    """Run the queue as time passes, `every` seconds at a time, on our clock and the
    emulator's."""
    from .conftest import run_queue

    run_queue(rt, clock)
    for _ in range(seconds // every):
        clock.advance(seconds=every)
        emulator.advance(every)
        run_queue(rt, clock)

