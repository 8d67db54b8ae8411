"""The example adapter of docs/adding-a-platform.md, "A REST adapter on the kit", run as the
engine runs adapters: it offers the checked surface, connects, and publishes once even when
its worker dies after the marker, against a server on loopback written from the example's
own description of its API (its host `example.invalid` rewritten there)."""
from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
import types
from pathlib import Path

import pytest

from fanout.platforms.base import App, Done, Job, Retry
from fanout.platforms.surface import problems
from fanout.target_errors import CAPTION, RATE

from ..adapter_steps import Killed, clocks, http, outbound, step  # noqa: F401 (fixtures)
from ..emulators.base import EmulatorServer, Response
from ..emulators.clock import EmulatorClock

DOC = Path(__file__).parents[2] / "docs/adding-a-platform.md"
START = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)


def example_adapter() -> types.ModuleType:
    """The doc's block after its marker comment, as a module."""
    text = DOC.read_text()
    block = re.search(r"<!-- the example adapter:[^>]*-->\s*```python\n(.*?)```", text, re.S)
    assert block, "docs/adding-a-platform.md lost its example adapter"
    module = types.ModuleType("example_adapter")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(block.group(1), str(DOC), "exec"), module.__dict__)
    return module


ADAPTER = example_adapter()


class ExampleServer(EmulatorServer):
    """Bearer tokens, `{"error": {"code", "message"}}`, posts found by their nonce."""

    name = "example"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.route("POST", "/v1/oauth/token", self.token)
        self.route("GET", "/v1/me", self.me)
        self.route("POST", "/v1/posts", self.create)
        self.route("GET", "/v1/posts", self.list)
        self._reset_state()

    def _reset_state(self) -> None:
        self.posts: list[dict] = []
        self.ids = itertools.count(1)

    @property
    def hosts_setting(self) -> str:
        return f"example.invalid={self.base_url}"

    def token(self, request) -> Response:
        if request.form.get("client_secret") != "app-secret":
            return Response.json(401, {"error": {"code": "invalid_client", "message": "unknown client"}})
        return Response.json(200, {"access_token": "tok-1", "refresh_token": "ref-1", "expires_in": 3600})

    def me(self, request) -> Response:
        if request.bearer() != "tok-1":
            return Response.json(401, {"error": {"code": "unauthorized", "message": "bad token"}})
        return Response.json(200, {"id": "u1", "name": "Ada"})

    def create(self, request) -> Response:
        if len(request.json["text"]) > 100:
            return Response.json(400, {"error": {"code": "text_too_long", "message": "text is over 100"}})
        post = {"id": f"p{next(self.ids)}", "text": request.json["text"], "nonce": request.json["nonce"]}
        self.posts.append(post)
        return Response.json(201, {"data": post})

    def list(self, request) -> Response:
        return Response.json(200, {"data": [p for p in self.posts if p["nonce"] == request.query.get("nonce")]})


@pytest.fixture(scope="module")
def server():
    with ExampleServer(clock=EmulatorClock(START)) as running:
        yield running


@pytest.fixture
def emulator(server):
    server.reset()
    yield server


def job(caption: str = "hello", state: dict | None = None) -> Job:
    return Job(target_id="tgt_1", platform="example", user_id="u1", username="Ada", access_token="tok-1",
               caption=caption, media=(), state=state or {})


def test_the_example_offers_the_checked_surface():
    assert problems(ADAPTER) == []


def test_the_example_connects_an_account(emulator, http):
    grant = ADAPTER.exchange(http, App("app-id", "app-secret"), "code", "http://127.0.0.1/cb", now=START)
    assert (grant.user_id, grant.username, grant.refresh_token) == ("u1", "Ada", "ref-1")


def test_the_example_publishes_a_post(emulator, step):
    result = ADAPTER.publish(step(), job())
    assert result == Done(result.outcome) and result.outcome.external_url == "https://example.invalid/p/p1"


def test_a_worker_killed_after_the_marker_leaves_one_post(emulator, step):
    run = step(kill_after_save=0)
    with pytest.raises(Killed):
        ADAPTER.publish(run, job())
    ADAPTER.publish(step(), job(state=run.saved[-1]))  # the post never left: sent now
    first = len(emulator.posts)
    result = ADAPTER.publish(step(), job(state=run.saved[-1]))  # an earlier step's post is found
    assert (first, len(emulator.posts)) == (1, 1)
    assert result.outcome.external_url == "https://example.invalid/p/p1"


def test_a_refusal_the_table_names_fails_the_target_with_its_code(emulator, step):
    result = ADAPTER.publish(step(), job("x" * 101))
    assert (result.outcome.error_code, result.outcome.error_message) == (CAPTION, "Example: text is over 100")


def test_a_limit_says_when_it_resets(emulator, step):
    emulator.fail("POST", "/v1/posts", 429, {"error": {"code": "rate", "message": "slow down"}},
                  headers={"x-ratelimit-reset": "1796115600"})
    result = ADAPTER.publish(step(), job())
    assert result.outcome.error_code == RATE
    assert result.outcome.error_message == "Example: slow down (the limit resets at 2026-12-01T09:00:00Z)"


def test_a_server_error_is_tried_again(emulator, step):
    emulator.fail("POST", "/v1/posts", 503, {"error": {"code": "busy", "message": "try later"}})
    assert isinstance(ADAPTER.publish(step(), job()), Retry)
