"""The checks before the platform (fanout/before_platform.py) are one sequence: for the same
content, a preflight's first foreseen problem is the problem the engine fails the target
with, and the preflight lists the rest in the order they would be met. X's adapter is
replaced here by one that publishes what it is given, so nothing leaves the machine; its
media is on a host whose address is not public, refused before any request is sent."""
from __future__ import annotations

import dataclasses

import pytest

from fanout.models import db
from fanout.models.account import connect_account
from fanout.platforms import REGISTRY
from fanout.platforms.base import App, Outcome, failed, published
from fanout.target_errors import CAPTION, DOWNLOAD, RATE

from .conftest import bearer, run_queue

BAD_HOST = "internal.example.com"  # 10.0.0.7 to the suite's resolver
BAD = {"url": f"https://{BAD_HOST}/a.jpg", "type": "image"}
SPENT = "X allows 100 posts in 15 minutes (this test's adapter)"


class Publishes:
    """X's adapter for these tests: publishes any job, unless its limit is `spent`, which
    its `foresee` says as its publish would."""

    __test__ = False
    UPLOADS_MEDIA = False

    def __init__(self):
        self.spent, self.jobs = False, []

    def publish(self, step, job):
        self.jobs.append(job)
        return failed(RATE, SPENT) if self.spent else published("https://x.com/me/status/1")

    def foresee(self, step, job):
        return [Outcome(error_code=RATE, error_message=SPENT)] if self.spent else []


@pytest.fixture
def adapter() -> Publishes:
    return Publishes()


@pytest.fixture
def platforms(adapter) -> dict:
    return {**REGISTRY, "x": dataclasses.replace(REGISTRY["x"], adapter=adapter)}


@pytest.fixture
def settings(settings):
    return dataclasses.replace(settings, platform_apps={"x": App("x-client-id", "x-client-secret")})


@pytest.fixture
def live(client, rt, workspace, live_key) -> dict:
    with db.connection_context():
        connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id="1", username="me",
                        access_token="t")
    return bearer(live_key)


@pytest.mark.parametrize("body, spent, foreseen", [
    ({"caption": "x" * 281, "media": [BAD]}, True, [CAPTION, DOWNLOAD, RATE]),
    ({"caption": "fine", "media": [BAD]}, True, [DOWNLOAD, RATE]),
    ({"caption": "fine", "overrides": {"x": {"thread": [{"caption": "y" * 281}]}}, "media": [BAD]}, False,
     [CAPTION, DOWNLOAD]),
    ({"caption": "fine", "overrides": {"x": {"thread": [{"caption": "more", "media": [BAD]}]}}}, False, [DOWNLOAD]),
    ({"caption": "fine"}, True, [RATE]),
    ({"caption": "fine"}, False, []),
], ids=["caption, media, limit", "media, limit", "a thread part's caption, then media", "a thread part's media",
        "the limit only", "nothing"])
def test_the_engine_fails_a_target_with_the_first_problem_its_preflight_foresees(
        client, rt, clock, resolver, adapter, live, body, spent, foreseen):
    adapter.spent = spent
    answer = client.post("/v1/upload/preflight", headers=live, json={**body, "platforms": ["x"]})
    assert answer.status_code == 200, answer.text
    [target] = answer.json()["targets"]
    assert [p["code"] for p in target["problems"]] == foreseen
    resolver.calls.clear()
    post = client.post("/v1/upload", headers=live, json={**body, "platforms": ["x"]})
    assert post.status_code == 201, post.text
    run_queue(rt, clock)
    [published_as] = client.get(f"/v1/posts/{post.json()['id']}", headers=live).json()["targets"]
    first = target["problems"][0] if target["problems"] else {"code": None, "message": None}
    assert (published_as["error_code"], published_as["error_message"]) == (first["code"], first["message"])
    # Lazily: the media of a target whose content fails first is never fetched.
    assert (BAD_HOST in resolver.calls) == (foreseen[:1] == [DOWNLOAD])
    # The platform is asked only when nothing before it failed; its own limit is its own to say.
    assert len(adapter.jobs) == (foreseen in ([], [RATE]))
