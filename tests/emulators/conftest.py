"""Fixtures for the emulators' own tests, and for any test that needs an emulator."""
from __future__ import annotations

import datetime as dt

import pytest
import requests

from .clock import EmulatorClock
from .instagram import InstagramEmulator
from .media_server import sample_media_server
from .threads import ThreadsEmulator

START = dt.datetime(2026, 11, 22, 10, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def threads():
    """A Threads emulator with one user (17841400000000001, emu_threads), its clock at START."""
    with ThreadsEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as emulator:
        yield emulator
    assert not emulator.errors, emulator.errors[0]


@pytest.fixture
def instagram():
    """An Instagram emulator with one user (17841400000000002, emu_instagram), its clock at START."""
    with InstagramEmulator("app-id", "app-secret", clock=EmulatorClock(START)) as emulator:
        yield emulator
    assert not emulator.errors, emulator.errors[0]


@pytest.fixture
def media_server():
    """A loopback media server with /photo.jpg, /photo.png and /clip.mp4."""
    with sample_media_server() as server:
        yield server
    assert not server.errors, server.errors[0]


@pytest.fixture
def token(threads) -> str:
    """A long-lived token of the default user with both publishing scopes."""
    return threads.issue_token()


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
