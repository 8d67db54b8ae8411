"""Fixtures for dashboard tests that need the app on a real loopback server: a module
imports `port`, `settings` and `live` from here, and its pages are then served in this
process (so the test's clock rules them) at the base URL the settings give."""
from __future__ import annotations

import dataclasses

import pytest

from ..threads_world import serve_app


@pytest.fixture
def port(stand) -> int:
    return stand.port


@pytest.fixture
def settings(settings, port):
    here = f"http://127.0.0.1:{port}"
    return dataclasses.replace(settings, base_url=here, connect_url=here)


@pytest.fixture
def live(app, stand) -> str:
    """The app on a real loopback server, in this process, so the test's clock rules it."""
    yield from serve_app(app, stand)
