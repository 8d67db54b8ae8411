"""What the dashboard shows of events and their deliveries, read from the tables the
publisher and the delivery lane write (fanout/models/event.py).

Each event is shown as its body, the JSON every delivery of it sends (and the events log
of the API answers), with the deliveries made of it. Reads only: no rule lives here.
"""
from __future__ import annotations

import json

from peewee import Tuple

from ..models import Delivery, Event, Webhook


def _with_deliveries(events: list[Event]) -> list[dict]:
    deliveries: dict[str, list[dict]] = {e.id: [] for e in events}
    if events:
        rows = (Delivery.select(Delivery, Webhook).join(Webhook)
                .where(Delivery.event.in_([e.id for e in events])).order_by(Delivery.created_at, Delivery.id))
        for d in rows:
            deliveries[d.event_id].append({"id": d.id, "webhook_id": d.webhook.id, "url": d.webhook.url,
                                           "status": d.status, "attempts": d.attempts})
    return [{**json.loads(e.body), "deliveries": deliveries[e.id]} for e in events]


def post_events(workspace_id: str, post_id: str) -> list[dict]:
    """The events of one post, oldest first."""
    events = list(Event.select().where((Event.workspace == workspace_id) & (Event.post == post_id))
                  .order_by(Event.created_at, Event.id))
    return _with_deliveries(events)


def events_page(workspace_id: str, *, limit: int, after=None, types: list[str] | None = None):
    """One page of the workspace's events, newest first by (created_at, id), and the rows
    it was made of (for the next cursor); whether more follow."""
    query = Event.select().where(Event.workspace == workspace_id)
    if types:
        query = query.where(Event.type.in_(types))
    if after is not None:
        query = query.where(Tuple(Event.created_at, Event.id) < Tuple(*after))
    rows = list(query.order_by(Event.created_at.desc(), Event.id.desc()).limit(limit + 1))
    page = rows[:limit]
    return _with_deliveries(page), page, len(rows) > limit
