"""Periodic housekeeping."""
from __future__ import annotations

import datetime as _dt
import logging

from huey import Huey, crontab

from .. import runtime
from ..models import db, event_log
from ..models import idempotency
from ..models import dashboard
from ..models.connect_session import purge_expired
from ..models.webhook import forget_expired_secrets

log = logging.getLogger(__name__)


def purge_connect_sessions() -> int:
    """Delete connect sessions past their 30 minutes (used or not)."""
    with db.connection_context():
        count = purge_expired(runtime.current().now())
    if count:
        log.info("purged %d expired connect sessions", count)
    return count


def purge_idempotency_keys() -> int:
    """Delete Idempotency-Key records past their 24 hours (they match nothing any more)."""
    with db.connection_context():
        count = idempotency.purge_expired(runtime.current().now())
    if count:
        log.info("purged %d expired idempotency records", count)
    return count


def purge_dashboard_sign_ins() -> int:
    """Delete dashboard sign-in links past their 15 minutes and sessions past their 12 hours."""
    with db.connection_context():
        count = dashboard.purge_expired(runtime.current().now())
    if count:
        log.info("purged %d expired dashboard sign-in links and sessions", count)
    return count


def prune_events() -> int:
    """Delete events older than FANOUT_EVENT_RETENTION_DAYS, with their deliveries."""
    rt = runtime.current()
    with db.connection_context():
        count = event_log.prune(rt.now() - _dt.timedelta(days=rt.settings.event_retention_days))
    if count:
        log.info("pruned %d events older than %d days", count, rt.settings.event_retention_days)
    return count


def forget_rotated_secrets() -> int:
    """Drop the webhook secrets a rotation replaced, once their overlap is over."""
    with db.connection_context():
        count = forget_expired_secrets(runtime.current().now())
    if count:
        log.info("forgot %d rotated webhook secrets past their overlap", count)
    return count


def register(huey: Huey) -> None:
    huey.periodic_task(crontab(minute="*/15"), name="purge_connect_sessions")(purge_connect_sessions)
    huey.periodic_task(crontab(minute="7"), name="purge_idempotency_keys")(purge_idempotency_keys)
    huey.periodic_task(crontab(minute="*/15"), name="purge_dashboard_sign_ins")(purge_dashboard_sign_ins)
    huey.periodic_task(crontab(minute="23"), name="prune_events")(prune_events)
    huey.periodic_task(crontab(minute="*/5"), name="forget_rotated_secrets")(forget_rotated_secrets)
