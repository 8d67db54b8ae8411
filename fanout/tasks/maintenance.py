"""Periodic housekeeping."""
from __future__ import annotations

import logging

from huey import Huey, crontab

from .. import runtime
from ..models import db
from ..models import idempotency
from ..models import dashboard
from ..models.connect_session import purge_expired

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


def register(huey: Huey) -> None:
    huey.periodic_task(crontab(minute="*/15"), name="purge_connect_sessions")(purge_connect_sessions)
    huey.periodic_task(crontab(minute="7"), name="purge_idempotency_keys")(purge_idempotency_keys)
    huey.periodic_task(crontab(minute="*/15"), name="purge_dashboard_sign_ins")(purge_dashboard_sign_ins)
