"""Fixtures of the dashboard's tests: `link` (a fresh sign-in link of `workspace`) and
`dashboard` (the `client` signed in to `workspace`), and the vocabulary to use them."""
from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import pytest

from fanout.models import db
from fanout.models.dashboard import new_link

from ..conftest import EXTERNAL_QUEUE_URL

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def make_link(rt, workspace_id: str) -> str:
    """A sign-in link's path and query, as `fanout dashboard-link` prints it after the host."""
    with db.connection_context():
        token, _ = new_link(rt, workspace_id)
    return f"/dashboard/sign-in?token={token}"


def token_of(link: str) -> str:
    return urlsplit(link).query.removeprefix("token=")


def sign_in(client, rt, workspace_id: str):
    """`client` signed in to the workspace through a fresh link; the sign-in's answer."""
    answer = client.post("/dashboard/sign-in", data={"token": token_of(make_link(rt, workspace_id))},
                         follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard", answer.text
    return answer


def csrf_of(client) -> str:
    """The session's CSRF token, as every form of its pages carries it."""
    page = client.get("/dashboard")
    assert page.status_code == 200, page.text
    return CSRF.search(page.text).group(1)


def send(client, path: str, data: dict | None = None, **kwargs):
    """A form of the dashboard, posted as its page sends it (with the session's CSRF token)."""
    return client.post(path, data={"csrf": csrf_of(client), **(data or {})}, follow_redirects=False, **kwargs)


def alert(page) -> str:
    """The text of a page's refusal (role=alert), tags removed and spaces collapsed."""
    found = re.search(r'role="alert">(.*?)</div>', page.text, re.S)
    assert found, f"no alert on the page: {page.text[:2000]}"
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


@pytest.fixture(autouse=True)
def _no_sign_in_attempts_yet():
    """Every test starts with no sign-in attempts counted. On SQLite the limiter's file is
    the test's own; Redis outlives the test, and every test signs in from the same address
    at the same instant of its clock, so the counts of tests before would add up."""
    if EXTERNAL_QUEUE_URL and EXTERNAL_QUEUE_URL.startswith("redis"):
        import redis

        with redis.Redis.from_url(EXTERNAL_QUEUE_URL) as store:
            for key in store.scan_iter("fanout:ratelimit:sign-in:*"):
                store.delete(key)


@pytest.fixture
def link(rt, workspace) -> str:
    return make_link(rt, workspace.id)


@pytest.fixture
def dashboard(client, rt, workspace):
    """The test client, signed in to `workspace`'s dashboard."""
    sign_in(client, rt, workspace.id)
    return client


@pytest.fixture
def other_workspace(rt):
    """A second workspace, whose ids a session of `workspace` must never reach."""
    from fanout.models.workspace import create_workspace

    with db.connection_context():
        return create_workspace(rt, "Other", "FREE")
