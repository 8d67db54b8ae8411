"""Webhook delivery: the `deliver` task hands a delivery to the lane (fanout/tasks/lane.py),
which makes one attempt and schedules the next from the database. The test ping is sent
the same way (`ping`), by the API process that was asked for it."""
from __future__ import annotations

import datetime as _dt
import functools
import json
import logging
import time
from dataclasses import dataclass

from .. import runtime, views
from ..models import db
from ..models import webhook as webhooks
from ..models.deliveries import claim_attempt, owner_of, record_attempt
from ..outbound.client import OutboundError
from ..security.signing import signature_headers
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


@dataclass(frozen=True)
class Sent:
    """What one POST to an endpoint came to: its status, or why there was none (`error`, the
    class; `error_message`, the client's words for it, which name the host at most)."""

    status_code: int | None
    error: str | None
    error_message: str | None
    seconds: float


def send(rt, url: str, secrets: list[str], event_id: str, body: bytes, at: _dt.datetime) -> Sent:
    """One signed POST of `body` through the guarded client, signed with `secrets` at `at`
    (its unix seconds are `webhook-timestamp`)."""
    headers = {"Content-Type": "application/json",
               **signature_headers(secrets, event_id, to_epoch_ms(at) // 1000, body)}
    status_code, error, message = None, None, None
    began = time.monotonic()
    try:
        status_code = rt.outbound.post(url, body, headers).status
    except OutboundError as e:
        error, message = e.kind, e.message
    return Sent(status_code, error, message, time.monotonic() - began)


def attempt(rt, delivery_id: str) -> None:
    """One attempt at a delivery, if one is due and nobody else is sending it."""
    started_at = rt.now()
    with db.connection_context():
        delivery = claim_attempt(delivery_id, started_at)
        if delivery is None:
            return  # not due, already sent, or being sent by another worker
        webhook, event = delivery.webhook, delivery.event
        secrets = webhooks.signing_secrets(rt, webhook, started_at)
    redelivery = delivery.redeliver_at is not None
    sent = send(rt, webhook.url, secrets, event.id, event.body.encode(), started_at)
    status_code, error, seconds = sent.status_code, sent.error, sent.seconds
    with db.connection_context():
        delivery = record_attempt(delivery, started_at=started_at, status_code=status_code, error=error,
                                  error_message=sent.error_message, duration_ms=int(seconds * 1000), schedule=rt.settings.webhook_retry_schedule,
                                  redelivery=redelivery)
        failed = status_code is None or not 200 <= status_code < 300
        if delivery is not None and failed:
            if webhooks.disable_if_failing(rt, webhook.id, started_at):
                log.warning("webhook %s of workspace %s is disabled: every delivery attempt failed for %d days",
                            webhook.id, webhook.workspace_id, webhooks.FAILING_LIMIT.days)
    outcome = OUTCOMES[delivery.status] if delivery is not None else "dropped"
    rt.metrics.webhook_attempt(outcome, f"{status_code // 100}xx" if status_code else error, seconds)
    if delivery is None:
        return
    log.info("delivery %s attempt %d%s: %s", delivery.id, delivery.attempts, " (redelivery)" if redelivery else "",
             status_code or error)
    if delivery.status == "pending" and delivery.next_attempt_at is not None:
        # The sweeper would find it too; scheduling just wakes a worker on time.
        rt.tasks.deliver.schedule(args=(delivery.id,), eta=delivery.next_attempt_at.replace(tzinfo=UTC))


@dataclass(frozen=True)
class Ping:
    """What the endpoint did with a test ping."""

    event_id: str
    attempted_at: _dt.datetime
    status_code: int | None
    error: str | None
    error_message: str | None
    duration_ms: int

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def ping(rt, workspace_id: str, webhook_id: str) -> Ping:
    """Send a `webhook.test` event to the registration alone, now, signed like a delivery,
    and say what came of it (POST /v1/webhooks/{id}/test). Enabled or not; nothing is
    recorded and nothing is retried. NotFound unless the registration is the workspace's."""
    at = rt.now()
    with db.connection_context():
        webhook = webhooks.get_webhook(workspace_id, webhook_id)
        secrets = webhooks.signing_secrets(rt, webhook, at)
    event_id = rt.new_id("evt")
    body = json.dumps(views.registration_event(event_id, "webhook.test", webhook, at), separators=(",", ":")).encode()
    sent = send(rt, webhook.url, secrets, event_id, body, at)
    log.info("test ping %s to webhook %s: %s", event_id, webhook.id, sent.status_code or sent.error)
    return Ping(event_id, at, sent.status_code, sent.error, sent.error_message, int(sent.seconds * 1000))
