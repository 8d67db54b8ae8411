"""A published target's warnings, what the platform did differently from what was asked
(openapi.yaml `Target.warnings`): the adapter's Outcome says them, the target keeps them,
its view and its `post.completed` event show them (contracts/events/post_event.schema.json)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from fanout import views
from fanout.models import Event, Post, db
from fanout.platforms.base import Done, Outcome
from fanout.tasks import publishing

from .test_engine_counts import adapter, platforms, row, target_id  # noqa: F401 (fixtures)

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "contracts/events/post_event.schema.json").read_text())
LOCKED = "YouTube locked the video to private: its app is not audited"


def published_with(adapter, rt, target_id, outcome: Outcome):  # noqa: F811 (the fixture, passed in)
    adapter.script = [lambda step, job: Done(outcome)]
    publishing.publish_target(rt, target_id)
    with db.connection_context():
        target = row(target_id)
        view = views.target_view(target, Post.get_by_id(target.post_id))
        [event] = [json.loads(e.body) for e in Event.select() if json.loads(e.body)["event"].startswith("post.")]
    return target, view, event


def test_a_published_targets_warnings_are_in_its_view_and_its_event(adapter, rt, target_id):
    target, view, event = published_with(adapter, rt, target_id,
                                         Outcome(external_url="https://scripted.example/p/1", warnings=(LOCKED,)))
    assert target.status == "published" and view["warnings"] == [LOCKED]
    assert event["event"] == "post.completed" and event["target"]["warnings"] == [LOCKED]


def test_a_target_without_warnings_shows_none_and_its_event_leaves_them_out(adapter, rt, target_id):
    _, view, event = published_with(adapter, rt, target_id, Outcome(external_url="https://scripted.example/p/1"))
    assert view["warnings"] == [] and "warnings" not in event["target"]


def test_a_failed_target_has_no_warnings(adapter, rt, target_id):
    _, view, event = published_with(adapter, rt, target_id,
                                    Outcome(error_code="unknown_platform_error", error_message="no", warnings=("x",)))
    assert view["warnings"] == [] and "warnings" not in event["target"]


def test_the_event_schema_takes_warnings_only_on_a_published_target():
    body = {"id": "evt_" + "0" * 26, "event": "post.completed", "post_id": "post_" + "0" * 26,
            "timestamp": "2026-12-01T09:00:00.000Z",
            "target": {"id": "tgt_" + "0" * 26, "account_id": "acc_1", "platform": "x", "status": "published",
                       "external_url": "https://x.com/a/status/1", "warnings": [LOCKED]}}
    jsonschema.validate(body, SCHEMA)
    body["target"].update(status="failed", error_code="unknown_platform_error", error_message="no")
    del body["target"]["external_url"]
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(body))
