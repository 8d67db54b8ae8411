"""Publishing tasks: one per target, plus the sweeper that makes lost wake-up calls harmless.

Huey acknowledges nothing (a killed worker loses its task), so the database decides what
is left to do: a target is claimed with a lease before publishing, and the sweeper puts
back targets whose lease ran out and re-enqueues pending ones nobody picked up.
"""
from __future__ import annotations

import datetime as _dt
import logging

from .. import runtime
from ..models import db
from ..models.account import Account
from ..models.deliveries import due
from ..models.lifecycle import Outcome, claim, reclaim_expired, resolve, waiting
from ..platforms import sandbox

log = logging.getLogger(__name__)

# A target pending this long after its last change has probably lost its task.
STALE_PENDING = _dt.timedelta(seconds=30)


def publish(rt, post, target, account) -> Outcome:
    if post.sandbox:
        return sandbox.publish(rt, post, target, account)
    # Live adapters arrive with the platform issues; until then a live target fails plainly.
    return Outcome(error_code="unknown_platform_error",
                   error_message=f"publishing to {target.platform} is not available on this server yet")


def publish_target(target_id: str) -> None:
    rt = runtime.current()
    with db.connection_context():
        target = claim(target_id, rt.now(), _dt.timedelta(seconds=rt.settings.publish_lease))
        if target is None:
            return  # already taken by another worker, or already final
        post = target.post
        account = Account.get_or_none(Account.id == target.account_id)
    # No database connection is held while the platform is called: that can take a while.
    outcome = publish(rt, post, target, account)
    with db.connection_context():
        deliveries = resolve(rt, target, outcome)
    for delivery_id in deliveries:
        rt.tasks.deliver(delivery_id)


def sweep() -> dict:
    """Take back expired leases, re-enqueue forgotten targets and due deliveries."""
    rt = runtime.current()
    now = rt.now()
    with db.connection_context():
        reclaimed = reclaim_expired(now)
        pending = waiting(now - STALE_PENDING)
        deliveries = due(now)
    for target_id in dict.fromkeys(reclaimed + pending):
        rt.tasks.publish(target_id)
    for delivery_id in deliveries:
        rt.tasks.deliver(delivery_id)
    if reclaimed or pending or deliveries:
        log.info("sweep: %d leases taken back, %d targets and %d deliveries re-enqueued",
                 len(reclaimed), len(pending), len(deliveries))
    return {"reclaimed": reclaimed, "targets": pending, "deliveries": deliveries}
