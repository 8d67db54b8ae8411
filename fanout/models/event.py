"""Recording events (one per resolved target, or about an account or a registration) and
their deliveries to webhook registrations.

Every event is recorded in the workspace's log (fanout/models/event_log.py reads it) with
the exact bytes every delivery of it sends. The log's order is the order in which its
events were committed, so a reader catching up with `after` never misses one
(docs/decisions.md#the-events-log): a transaction that records an event first takes its
workspace's log lock (`lock_log`), and each event's `created_at` is later than every
earlier one of its workspace.
"""
from __future__ import annotations

import datetime as _dt
import json
from typing import Callable

from .db import after_commit, db, is_sqlite
from .tables.delivery import Delivery
from .tables.event import Event
from .tables.webhook import Webhook


def lock_log(workspace_id: str) -> None:
    """Hold the workspace's events log until the transaction ends: its events are recorded
    one transaction at a time, in the order they commit.

    Take it first in every transaction that records an event (before any row lock), so two
    such transactions never wait on each other crosswise. On PostgreSQL a transaction-level
    advisory lock on the workspace; SQLite's one writer (BEGIN IMMEDIATE) already is one.
    """
    if not is_sqlite():
        db.execute_sql("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"fanout-events:{workspace_id}",))


def lock_log_of_post(post_id: str) -> None:
    """`lock_log` for the workspace of a post, in the same statement that finds it."""
    if not is_sqlite():
        db.execute_sql("SELECT pg_advisory_xact_lock(hashtextextended('fanout-events:' || workspace_id, 0)) "
                       "FROM post WHERE id = %s", (post_id,))


def _log_time(workspace_id: str, now: _dt.datetime) -> _dt.datetime:
    """`now`, or just after the workspace's latest event if that is not earlier (a clock
    stepped back, another machine's clock, the same millisecond): the log's order is the
    order of commits."""
    latest = (Event.select(Event.created_at).where(Event.workspace == workspace_id)
              .order_by(Event.created_at.desc(), Event.id.desc()).limit(1).scalar())
    if latest is not None and latest >= now:
        return latest + _dt.timedelta(milliseconds=1)
    return now


def record_event(rt, workspace_id: str, kind: str, payload: Callable[[str, _dt.datetime], dict], now: _dt.datetime,
                 *, post: str | None = None, target: str | None = None, account_id: str | None = None) -> list[str]:
    """Write the event and one pending delivery per enabled registration subscribed to
    `kind`; call inside the transaction that made it happen. `payload(event_id, at)` is its
    body, `at` the time it is recorded at: its `timestamp`, so a log read in order reads
    timestamps in order. Returns the delivery ids, to send after commit."""
    lock_log(workspace_id)  # taken again is a no-op; callers take it first (see lock_log)
    created_at = _log_time(workspace_id, rt.now())
    event_id = rt.new_id("evt")
    body = json.dumps(payload(event_id, created_at), separators=(",", ":"))
    Event.create(id=event_id, workspace=workspace_id, post=post, target=target, account_id=account_id,
                 type=kind, body=body, created_at=created_at)
    registrations = Webhook.select().where((Webhook.workspace == workspace_id) & Webhook.enabled)
    if db.for_update:
        # A registration being disabled right now either commits first (and gets nothing)
        # or waits for this delivery, which its disabling then stops.
        registrations = registrations.for_update("FOR SHARE")
    ids = []
    for webhook in registrations:
        if kind in webhook.event_list:
            ids.append(Delivery.create(id=rt.new_id("dlv"), event=event_id, webhook=webhook,
                                       next_attempt_at=now, created_at=now).id)
    return ids


def send_after_commit(rt, delivery_ids: list[str]) -> None:
    """Hand the deliveries to the queue once the transaction writing them commits (at once
    outside one), so a worker never looks for a row that is not there yet."""
    if delivery_ids:
        after_commit(lambda: [rt.tasks.deliver(delivery_id) for delivery_id in delivery_ids])
