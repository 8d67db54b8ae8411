"""Sending events: claiming an attempt, recording it, scheduling the next, listing them."""
from __future__ import annotations

import datetime as _dt

from peewee import Tuple

from .db import children_of, write_transaction
from .event import Delivery, DeliveryAttempt, Event
from .tables.webhook import Webhook

# Longer than the 10-second attempt deadline: no second worker sends while one is sending.
ATTEMPT_HOLD = _dt.timedelta(seconds=60)


def claim_attempt(delivery_id: str, now: _dt.datetime) -> Delivery | None:
    """The delivery if it is due and this worker may send it now, else None."""
    with write_transaction():
        claimed = (
            Delivery.update(claimed_until=now + ATTEMPT_HOLD)
            .where(
                (Delivery.id == delivery_id) & (Delivery.status == "pending") & (Delivery.next_attempt_at <= now)
                & (Delivery.claimed_until.is_null() | (Delivery.claimed_until <= now))
            )
            .execute()
        )
    if not claimed:
        return None
    return Delivery.select(Delivery, Event, Webhook).join(Event).switch(Delivery).join(Webhook).where(
        Delivery.id == delivery_id).get()


def record_attempt(
    delivery: Delivery, *, started_at: _dt.datetime, status_code: int | None, error: str | None,
    duration_ms: int, schedule: tuple[int, ...],
) -> Delivery | None:
    """Log the attempt and move the delivery on: succeeded, failed, or due again later."""
    number = delivery.attempts + 1
    succeeded = status_code is not None and 200 <= status_code < 300
    if succeeded:
        changes = dict(status="succeeded", next_attempt_at=None)
    elif number > len(schedule):
        changes = dict(status="failed", next_attempt_at=None)
    else:
        # The delay counts from the start of the previous attempt (docs/decisions.md#deliveries-and-retries).
        changes = dict(next_attempt_at=started_at + _dt.timedelta(seconds=schedule[number - 1]))
    with write_transaction():
        if not Delivery.update(attempts=number, claimed_until=None, **changes).where(Delivery.id == delivery.id).execute():
            return None  # the registration was deleted while the attempt ran
        DeliveryAttempt.create(delivery=delivery.id, number=number, attempted_at=started_at,
                               status_code=status_code, error=error, duration_ms=duration_ms)
    return Delivery.get_by_id(delivery.id)


def owner_of(delivery_id: str) -> tuple[str, str] | None:
    """(workspace id, registration id) of a pending delivery, else None."""
    row = (Delivery.select(Delivery.id, Webhook.id, Webhook.workspace).join(Webhook)
           .where((Delivery.id == delivery_id) & (Delivery.status == "pending")).first())
    return (row.webhook.workspace_id, row.webhook.id) if row else None


def _is_due(now: _dt.datetime):
    """Pending, its next attempt due, and nobody sending it."""
    return ((Delivery.status == "pending") & (Delivery.next_attempt_at <= now)
            & (Delivery.claimed_until.is_null() | (Delivery.claimed_until <= now)))


def due(now: _dt.datetime, limit: int = 500) -> list[str]:
    """Pending deliveries whose next attempt is due and that nobody is sending."""
    return [d.id for d in Delivery.select(Delivery.id).where(_is_due(now)).order_by(Delivery.next_attempt_at).limit(limit)]


def count_due(now: _dt.datetime) -> int:
    """How many deliveries `due` would find, without its limit."""
    return Delivery.select().where(_is_due(now)).count()


def page(webhook_id: str, *, limit: int, after=None) -> tuple[list[Delivery], bool]:
    """Newest first by (created_at, id), keyset-paged like the post list."""
    query = Delivery.select(Delivery, Event).join(Event).where(Delivery.webhook == webhook_id)
    if after is not None:
        query = query.where(Tuple(Delivery.created_at, Delivery.id) < Tuple(*after))
    rows = list(query.order_by(Delivery.created_at.desc(), Delivery.id.desc()).limit(limit + 1))
    return rows[:limit], len(rows) > limit


def attempts_of(delivery_ids: list[str]) -> dict[str, list[DeliveryAttempt]]:
    """Attempts of several deliveries in one query, each delivery's in order."""
    return children_of(DeliveryAttempt, DeliveryAttempt.delivery, delivery_ids, DeliveryAttempt.number)
