"""Sending events: claiming an attempt, recording it, scheduling the next, redelivery, listing them."""
from __future__ import annotations

import datetime as _dt

from peewee import Tuple

from ..problems import NotFound
from .db import children_of, locked, write_transaction
from .tables.delivery import Delivery
from .tables.delivery_attempt import DeliveryAttempt
from .tables.event import Event
from .tables.webhook import Webhook

# Longer than the 10-second attempt deadline: no second worker sends while one is sending.
ATTEMPT_HOLD = _dt.timedelta(seconds=60)


def _unclaimed(now: _dt.datetime):
    return Delivery.claimed_until.is_null() | (Delivery.claimed_until <= now)


def _wanted(now: _dt.datetime):
    """An attempt is due: the schedule's (pending, its time come) or a redelivery asked for."""
    return (((Delivery.status == "pending") & (Delivery.next_attempt_at <= now))
            | (Delivery.redeliver_at <= now))


def claim_attempt(delivery_id: str, now: _dt.datetime) -> Delivery | None:
    """The delivery if an attempt is due and this worker may send it now, else None.

    A redelivery asked for makes this attempt that redelivery (`redeliver_at` set on the
    row returned): see `record_attempt`."""
    with write_transaction():
        claimed = (
            Delivery.update(claimed_until=now + ATTEMPT_HOLD)
            .where((Delivery.id == delivery_id) & _wanted(now) & _unclaimed(now))
            .execute()
        )
    if not claimed:
        return None
    return Delivery.select(Delivery, Event, Webhook).join(Event).switch(Delivery).join(Webhook).where(
        Delivery.id == delivery_id).get()


def record_attempt(
    delivery: Delivery, *, started_at: _dt.datetime, status_code: int | None, error: str | None,
    duration_ms: int, error_message: str | None = None, schedule: tuple[int, ...], redelivery: bool = False,
) -> Delivery | None:
    """Log the attempt and move the delivery on: succeeded, failed, or due again later.

    A redelivery that fails changes nothing but the log: a failed delivery stays failed, a
    pending one keeps its schedule, which counts only the automatic attempts. A delivery
    its registration's disabling ended (failed) stays so. The registration's record of
    failing (`failing_since`) moves too, locked first as every writer of both locks them."""
    succeeded = status_code is not None and 200 <= status_code < 300
    with write_transaction():
        _note_outcome(delivery.webhook_id, succeeded, started_at)
        current = locked(Delivery.select().where(Delivery.id == delivery.id)).first()
        if current is None:
            return None  # the registration was deleted while the attempt ran
        number = current.attempts + 1
        changes = dict(attempts=number, claimed_until=None)
        if succeeded:
            changes.update(status="succeeded", next_attempt_at=None)
        elif not redelivery and current.status == "pending":
            automatic = number - current.redeliveries
            if automatic > len(schedule):
                changes.update(status="failed", next_attempt_at=None)
            else:
                # The delay counts from the start of the previous attempt (docs/decisions.md#deliveries-and-retries).
                changes.update(next_attempt_at=started_at + _dt.timedelta(seconds=schedule[automatic - 1]))
        if redelivery:
            changes.update(redeliver_at=None, redeliveries=current.redeliveries + 1)
        Delivery.update(**changes).where(Delivery.id == delivery.id).execute()
        DeliveryAttempt.create(delivery=delivery.id, number=number, attempted_at=started_at,
                               status_code=status_code, error=error, error_message=error_message,
                               duration_ms=duration_ms, redelivery=redelivery)
    return Delivery.get_by_id(delivery.id)


def _note_outcome(webhook_id: str, succeeded: bool, at: _dt.datetime) -> None:
    """A success clears the registration's `failing_since`; a failure starts it if it is
    clear. Each write only when it changes something, so attempts of a healthy endpoint
    never write its row."""
    if succeeded:
        Webhook.update(failing_since=None).where(
            (Webhook.id == webhook_id) & Webhook.failing_since.is_null(False)).execute()
    else:
        Webhook.update(failing_since=at).where((Webhook.id == webhook_id) & Webhook.failing_since.is_null()).execute()


def request_redelivery(workspace_id: str, webhook_id: str, delivery_id: str, now: _dt.datetime) -> Delivery:
    """Ask for one more attempt at the delivery, now (docs/decisions.md#redelivery); asked
    again before it is made, it is the same attempt. NotFound unless the delivery is the
    registration's and the registration the workspace's."""
    with write_transaction():
        found = (Delivery.select(Delivery.id).join(Webhook)
                 .where((Delivery.id == delivery_id) & (Delivery.webhook == webhook_id)
                        & (Webhook.workspace == workspace_id)).first())
        if found is None:
            raise NotFound("no such delivery of this webhook")
        Delivery.update(redeliver_at=now).where((Delivery.id == delivery_id) & Delivery.redeliver_at.is_null()).execute()
    return Delivery.select(Delivery, Event).join(Event).where(Delivery.id == delivery_id).get()


def fail_pending(webhook_id: str) -> int:
    """End the registration's pending deliveries (it was disabled); redeliveries asked for stay."""
    return Delivery.update(status="failed", next_attempt_at=None).where(
        (Delivery.webhook == webhook_id) & (Delivery.status == "pending")).execute()


def owner_of(delivery_id: str) -> tuple[str, str] | None:
    """(workspace id, registration id) of a delivery that may still be attempted, else None."""
    row = (Delivery.select(Delivery.id, Webhook.id, Webhook.workspace).join(Webhook)
           .where((Delivery.id == delivery_id)
                  & ((Delivery.status == "pending") | Delivery.redeliver_at.is_null(False))).first())
    return (row.webhook.workspace_id, row.webhook.id) if row else None


def _is_due(now: _dt.datetime):
    """An attempt due, and nobody sending it."""
    return _wanted(now) & _unclaimed(now)


def due(now: _dt.datetime, limit: int = 500) -> list[str]:
    """Deliveries with an attempt due that nobody is sending."""
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
