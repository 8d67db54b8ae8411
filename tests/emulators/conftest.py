"""Fixtures for the emulators' own tests, and for any test that needs an emulator."""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from .clock import EmulatorClock
from .instagram import InstagramEmulator
from .media.server import sample_media_server
from .threads import ThreadsEmulator
from .tiktok import TikTokEmulator
from .x import XEmulator

START = dt.datetime(2026, 11, 22, 10, 0, tzinfo=dt.timezone.utc)


def serving(emulator):
    """Runs `emulator` for a test, which fails if the emulator met a bug of its own."""
    with emulator:
        yield emulator
    assert not emulator.errors, emulator.errors[0]


@pytest.fixture
def threads():
    """A Threads emulator with one user (17841400000000001, emu_threads), its clock at START."""
    yield from serving(ThreadsEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


@pytest.fixture
def instagram():
    """An Instagram emulator with one user (17841400000000002, emu_instagram), its clock at START."""
    yield from serving(InstagramEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


@pytest.fixture
def x():
    """An X emulator with one user (1600000000000000001, emu_x), its clock at START."""
    yield from serving(XEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


@pytest.fixture
def tiktok():
    """A TikTok emulator with one creator (-000emuTikTokOpenId0001, emu_tiktok), its clock at START."""
    yield from serving(TikTokEmulator("app-id", "app-secret", clock=EmulatorClock(START)))


@pytest.fixture
def media_server():
    """A loopback media server with /photo.jpg, /photo.png and /clip.mp4."""
    yield from serving(sample_media_server())


@pytest.fixture
def token(threads) -> str:
    """A long-lived token of the default user with both publishing scopes."""
    return threads.issue_token()


class Api:
    """Calls as a client makes them: the user's token as a Bearer header."""

    def __init__(self, base_url: str, token: str | None):
        self.base_url, self.token = base_url, token

    def __call__(self, method: str, path: str, *, token: str | None = None, **kwargs) -> requests.Response:
        token = token or self.token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return requests.request(method, self.base_url + path, headers=headers, timeout=30, **kwargs)


class Graph:
    """Calls to an emulator as a client would make them: params in the query for GET, in
    an urlencoded body for POST; the answer's JSON."""

    def __init__(self, base_url: str, token: str | None = None):
        self.base_url, self.token = base_url, token

    def __call__(self, method: str, path: str, *, token: str | None = None, **params) -> requests.Response:
        token = token or self.token
        if token is not None:
            params.setdefault("access_token", token)
        if method == "GET":
            return requests.get(self.base_url + path, params=params, timeout=10, allow_redirects=False)
        return requests.request(method, self.base_url + path, data=params, timeout=10, allow_redirects=False)


@pytest.fixture
def graph(threads, token) -> Graph:
    return Graph(threads.base_url, token)


# --- calls both Meta emulators' tests make ------------------------------------------------------


def callback(emulator) -> str:
    return f"https://fanout.example/connect/{emulator.name}/callback"


def authorize(emulator, **params) -> dict:
    """The query of the redirect an authorization answers (every scope asked for by
    default), checking it carries Meta's `#_` fragment."""
    query = {"client_id": "app-id", "redirect_uri": callback(emulator), "scope": ",".join(emulator.SCOPES),
             "response_type": "code", "state": "st-1", **params}
    answer = requests.get(emulator.base_url + "/oauth/authorize", params=query, allow_redirects=False, timeout=10)
    return redirect_query(answer, fragment="_")


def redirect_query(answer: requests.Response, *, fragment: str = "", to: str | None = None) -> dict:
    """The query of the redirect (302) `answer` is, checking its fragment, and that it goes
    back to `to` when given."""
    assert answer.status_code == 302, answer.text
    location = urlsplit(answer.headers["Location"])
    assert location.fragment == fragment
    assert to is None or location._replace(query="", fragment="").geturl() == to
    return {k: v[0] for k, v in parse_qs(location.query).items()}


def exchange(emulator, code: str, **params) -> requests.Response:
    form = {"client_id": "app-id", "client_secret": "app-secret", "code": code,
            "grant_type": "authorization_code", "redirect_uri": callback(emulator), **params}
    return requests.post(emulator.base_url + "/oauth/access_token", data=form, timeout=10)


def error_of(answer: requests.Response, status: int = 400) -> dict:
    """A Graph error envelope's `error`, checking the status and the members every one has."""
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert {"message", "type", "code", "fbtrace_id"} <= set(error)
    return error


def created(graph: Graph, path: str, **params) -> str:
    """The id a creation call at `path` answers; the call must succeed."""
    answer = graph("POST", path, **params)
    assert answer.status_code == 200, answer.text
    return answer.json()["id"]


# --- running an emulator by hand ------------------------------------------------------------


@contextlib.contextmanager
def run_by_hand(*arguments: str, lines: int = 3):
    """`python -m tests.emulators *arguments` run from the repository root, as a person
    would: yields its base URL and the settings it printed (`{name: value}`, `lines` of
    them); then Ctrl-C (SIGINT) must stop it cleanly."""
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen([sys.executable, "-m", "tests.emulators", *arguments], cwd=root,
                               stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        base_url = process.stdout.readline().split(" on ")[1].split()[0]
        settings = dict(process.stdout.readline().strip().partition("=")[::2] for _ in range(lines))
        yield base_url, settings
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.stdout.close()
