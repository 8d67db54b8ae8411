"""Webhook delivery: the `deliver` task hands a delivery to the lane (fanout/tasks/lane.py),
which makes one attempt and schedules the next from the database."""
from __future__ import annotations

import functools
import logging
import time

from .. import runtime
from ..models import db
from ..models.deliveries import claim_attempt, owner_of, record_attempt
from ..outbound.client import OutboundError
from ..security.signing import service_signature, standard_webhook_headers
from ..times import UTC, to_epoch_ms
from .lane import Inline, Lane, Owner

log = logging.getLogger(__name__)

# What an attempt did to its delivery (record_attempt decides), as metrics name it.
OUTCOMES = {"succeeded": "succeeded", "pending": "retrying", "failed": "failed"}


def threaded_lane(rt) -> Lane:
    """The lane of a worker process: `FANOUT_DELIVERY_SLOTS` threads sending attempts."""
    return Lane(functools.partial(attempt, rt), _owner, slots=rt.settings.delivery_slots)


def inline_lane(rt) -> Inline:
    """Attempts in the thread that runs the task: for queues driven step by step (tests)."""
    return Inline(functools.partial(attempt, rt))


def _owner(delivery_id: str) -> Owner | None:
    with db.connection_context():
        found = owner_of(delivery_id)
    return Owner(*found) if found else None


def deliver(delivery_id: str) -> None:
    """The queue task: returns at once, so a slow endpoint never holds a queue worker."""
    runtime.current().lane.submit(delivery_id)


def attempt(rt, delivery_id: str) -> None:
    """One attempt at a delivery, if it is due and nobody else is sending it."""
    started_at = rt.now()
    with db.connection_context():
        delivery = claim_attempt(delivery_id, started_at)
        if delivery is None:
            return  # not due, already sent, or being sent by another worker
        webhook, event = delivery.webhook, delivery.event
        secret = rt.keyring.decrypt(webhook.secret)
    body = event.body.encode()
    headers = {
        "Content-Type": "application/json",
        "X-Service-Signature": service_signature(secret, body),
        **standard_webhook_headers(secret, event.id, to_epoch_ms(started_at) // 1000, body),
    }
    status_code, error = None, None
    began = time.monotonic()
    try:
        status_code = rt.outbound.post(webhook.url, body, headers).status
    except OutboundError as e:
        error = e.kind
    seconds = time.monotonic() - began
    with db.connection_context():
        delivery = record_attempt(delivery, started_at=started_at, status_code=status_code, error=error,
                                  duration_ms=int(seconds * 1000), schedule=rt.settings.webhook_retry_schedule)
    outcome = OUTCOMES[delivery.status] if delivery is not None else "dropped"
    rt.metrics.webhook_attempt(outcome, f"{status_code // 100}xx" if status_code else error, seconds)
    if delivery is None:
        return
    log.info("delivery %s attempt %d: %s", delivery.id, delivery.attempts, status_code or error)
    if delivery.status == "pending":
        # The sweeper would find it too; scheduling just wakes a worker on time.
        rt.tasks.deliver.schedule(args=(delivery.id,), eta=delivery.next_attempt_at.replace(tzinfo=UTC))
