"""The engine's own count on a target, the transient failures in a row and the type of the
last unexpected error, is kept in the target's columns (`retries`, `crash_kind`), never in
the adapter's state: an adapter's `job.state` is exactly what it saved or answered last
(fanout/tasks/publishing.py). A state an older version saved with the count in it
(`_retries`, `_crash`) gives it up to the columns in migration 0013. The behaviour the
count drives is pinned elsewhere: the bounds and the one traceback by
tests/test_unexpected_errors.py, the giving up by the platforms' live tests."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from fanout.models import Target, db
from fanout.models.account import connect_account
from fanout.models.schema import migrate, runner
from fanout.models.upload import Draft, create_post
from fanout.platforms import REGISTRY, Platform
from fanout.platforms.base import CREDENTIALS, Retry, Wait, published
from fanout.tasks import publishing

from .made_up import text_rules

ENGINE_KEYS = ("_retries", "_crash")


class Scripted:
    """An adapter that plays one answer a step, from `script`, and keeps every `job.state`
    it is given."""

    __test__ = False
    name, title = "scripted", "Scripted"
    CONNECT_STYLE = CREDENTIALS

    def __init__(self):
        self.script, self.seen = [], []

    def publish(self, step, job):
        self.seen.append(dict(job.state))
        return self.script.pop(0)(step, job)


RULES = text_rules("scripted")


@pytest.fixture
def adapter() -> Scripted:
    return Scripted()


@pytest.fixture
def platforms(adapter) -> dict:
    return {**REGISTRY, "scripted": Platform("scripted", "Scripted", RULES, adapter=adapter)}


@pytest.fixture
def target_id(rt, workspace) -> str:
    """A live target on the scripted platform, pending."""
    with db.connection_context():
        account = connect_account(rt, workspace.id, platform="scripted", sandbox=False, platform_user_id="1",
                                  username="someone", access_token="token")
        draft = Draft(caption="counted", media=[], sandbox=False, simulate_error=None, account_ids=[account.id],
                      platforms=None, accounts={})
        _, [target] = create_post(rt, workspace.id, draft)
    return target.id


def row(target_id: str) -> Target:
    with db.connection_context():
        return Target.get_by_id(target_id)


def test_an_adapter_is_given_only_its_own_state_through_retries_a_crash_and_progress(
        rt, clock, adapter, target_id):
    def retry(state, reason):
        return lambda step, job: Retry(after=step.now(), state=state, reason=reason)

    def crash(step, job):
        raise ValueError("a bug")

    def wait(state):
        return lambda step, job: Wait(until=step.now() + dt.timedelta(seconds=60), state=state)

    uploaded, contained = {"upload": "u1"}, {"upload": "u1", "container": "c1"}
    adapter.script = [retry(uploaded, "503"), crash, wait(contained), retry(contained, "timeout"),
                      lambda step, job: published("https://scripted.example/p/1")]
    counts = []
    for _ in range(5):
        publishing.publish_target(rt, target_id)
        stored = row(target_id)
        counts.append((stored.retries, stored.crash_kind))
        assert not set(stored.saved_state) & set(ENGINE_KEYS), stored.state
        clock.advance(hours=1)
    assert adapter.seen == [{}, uploaded, uploaded, contained, contained]
    assert counts == [(1, None), (2, "ValueError"), (0, None), (1, None), (1, None)]
    assert row(target_id).status == "published"


def test_a_state_saved_with_the_count_in_it_gives_it_up_to_the_columns(rt, clock, adapter, target_id):
    """As a target parked by a version before migration 0013 comes out of it."""
    older = {"upload": "u1", "_retries": 3, "_crash": "ValueError"}
    with db.connection_context():
        reverted = runner().down("0013_target_retries")  # and any migration after it
        try:
            # What the older version stored, in the schema it had (no count columns).
            db.execute_sql(f"UPDATE target SET state = {db.param}, status = 'processing' WHERE id = {db.param}",
                           (json.dumps(older), target_id))
        finally:
            assert migrate() == reverted[::-1]
    stored = row(target_id)
    assert (stored.saved_state, stored.retries, stored.crash_kind) == ({"upload": "u1"}, 3, "ValueError")
    with db.connection_context():
        Target.update(next_check_at=clock.now).where(Target.id == target_id).execute()
    adapter.script = [lambda step, job: Retry(after=step.now(), state=job.state, reason="503")]
    publishing.publish_target(rt, target_id)
    assert adapter.seen == [{"upload": "u1"}]
    assert (row(target_id).retries, row(target_id).crash_kind) == (4, "ValueError")
