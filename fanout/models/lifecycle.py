"""The target state machine: pending -> processing -> published | failed.

A `pending` target is claimed no earlier than its `due_at` (its post's `scheduled_at`, or
its creation): the claim's conditional UPDATE says so, so no wake-up task, early or late,
duplicate or stale, can start a post before its time. A `processing` target is either held by one worker (a lease) or parked between two steps
of its publish (no lease, `next_check_at` set, the adapter's state saved): a scheduled
task or the sweeper claims it again when it is due. Every move is one conditional UPDATE inside a write transaction, so two workers (or a
duplicate task) can never both move the same target; the post's status is re-derived and,
when a target resolves, its event and one delivery per subscribed registration are written
in that same transaction (the database is the source of truth; the queue only wakes
workers up).
"""
from __future__ import annotations

import datetime as _dt
import json

from ..platforms.base import Outcome
from ..target_errors import AUTH
from .db import db, locked, write_transaction
from .event import lock_log_of_post, record_event
from .post import derive_status
from .tables.post import Post
from .tables.target import Target

FINAL = ("published", "failed")
__all__ = ["Outcome", "claim", "resolve", "save_state", "park", "reclaim_expired", "waiting", "due_checks", "to_wake",
           "falling_due"]


def _rederive(post_id: str) -> None:
    """Store the post's status as its targets now say; call inside the write transaction.

    The post row is locked first: on PostgreSQL (READ COMMITTED) two siblings resolving at
    once would otherwise each read the other's target as it was and store a stale status.
    Holding the lock, the target read starts after the other's commit. SQLite's IMMEDIATE
    transaction already serialises writers (tests/test_post_status.py).
    """
    locked(Post.select(Post.id).where(Post.id == post_id)).execute()
    statuses = [t.status for t in Target.select(Target.status).where(Target.post == post_id)]
    Post.update(status=derive_status(statuses)).where(Post.id == post_id).execute()


def _claimable(now: _dt.datetime):
    """pending and due, or processing with nobody holding it and its next step due."""
    due = (Target.status == "pending") & (Target.due_at.is_null() | (Target.due_at <= now))
    parked = (Target.status == "processing") & Target.lease_expires_at.is_null() & (Target.next_check_at <= now)
    return due | parked


def claim(target_id: str, now: _dt.datetime, lease: _dt.timedelta) -> Target | None:
    """The target for one worker (status processing, a lease), or None if it is not claimable now.

    The claim is the line an edit or a cancel of the post cannot cross
    (fanout/models/edits.py): both lock the post's targets and change them only while every
    one is `pending`, so on PostgreSQL this UPDATE waits for them and then re-reads the row
    (moved to a later `due_at`, or deleted, it is not claimed), and on SQLite the two
    transactions run one after the other. Whoever claims reads the post's content only
    after this commits, so it publishes what the last edit before the claim made.
    """
    with write_transaction():
        moved = (
            Target.update(status="processing", attempts=Target.attempts + 1, lease_expires_at=now + lease,
                          next_check_at=None, updated_at=now)
            .where((Target.id == target_id) & _claimable(now))
            .execute()
        )
        if not moved:
            return None
        target = Target.get_by_id(target_id)
        _rederive(target.post_id)
    return target


def _held(target: Target, now: _dt.datetime):
    """The target is still this worker's: the attempt it claimed, its lease not run out."""
    return ((Target.id == target.id) & (Target.status == "processing") & (Target.attempts == target.attempts)
            & (Target.lease_expires_at > now))


def save_state(target: Target, state: dict, now: _dt.datetime, lease: _dt.timedelta) -> bool:
    """Store the adapter's state (and renew the lease) before a call that creates something;
    False if the target is no longer this worker's, and the call must not be made."""
    with write_transaction():
        return bool(Target.update(state=json.dumps(state), lease_expires_at=now + lease, updated_at=now)
                    .where(_held(target, now)).execute())


def _parts(published_parts) -> dict:
    """The change of a target's `published_parts` a step's answer makes: none when it said
    none (a target without a thread, or a step that did not get as far as saying)."""
    return {} if published_parts is None else {"published_parts": json.dumps(list(published_parts))}


def park(target: Target, state: dict, until: _dt.datetime, now: _dt.datetime, published_parts=None, *,
         retries: int = 0, crash_kind: str | None = None) -> bool:
    """Leave the target processing, unheld, with its state (and a thread's parts out so
    far), until its next step is due; with the engine's count of retries in a row and the
    type of the last unexpected error (none after progress)."""
    with write_transaction():
        return bool(Target.update(state=json.dumps(state), lease_expires_at=None, next_check_at=until, updated_at=now,
                                  retries=retries, crash_kind=crash_kind, **_parts(published_parts))
                    .where(_held(target, now)).execute())


def resolve(rt, target: Target, outcome: Outcome, *, from_status: str = "processing") -> list[str]:
    """processing (or pending, for failures found before publishing) -> published | failed.

    Returns the ids of the deliveries written, to be sent once the transaction committed;
    an empty list also when another worker already resolved the target.
    """
    now = rt.now()
    status = "published" if outcome.published else "failed"
    changes = dict(
        status=status,
        external_url=outcome.external_url,
        published_at=now if outcome.published else None,
        error_code=outcome.error_code,
        error_message=outcome.error_message,
        first_comment_error=outcome.first_comment_error if outcome.published else None,
        warnings=json.dumps(list(outcome.warnings)) if outcome.published and outcome.warnings else None,
        lease_expires_at=None,
        next_check_at=None,
        updated_at=now,
        # Unsaid (a failure before the adapter ran, a crash), the parts last parked stand.
        **_parts(outcome.published_parts),
    )
    condition = (Target.id == target.id) & (Target.status == from_status)
    if from_status == "processing":
        condition &= Target.attempts == target.attempts
    with write_transaction():
        lock_log_of_post(target.post_id)  # first: this transaction records the target's event
        if not Target.update(**changes).where(condition).execute():
            return []
        resolved = Target.get_by_id(target.id)
        _rederive(resolved.post_id)
        deliveries = _emit(rt, resolved, now)
    # Counted once committed: the conditional UPDATE above lets only one worker get here.
    rt.metrics.target_finished(resolved.platform, status, now - (resolved.due_at or resolved.post.created_at))
    return deliveries


def _emit(rt, target: Target, now: _dt.datetime) -> list[str]:
    post = target.post
    kind = "post.completed" if target.status == "published" else "post.failed"
    return record_event(rt, post.workspace_id, kind,
                        lambda event_id, at: rt.event_bodies.target_event(event_id, kind, target, at),
                        now, post=post.id, target=target.id, account_id=target.account_id)



def fail_pending_targets(rt, account_id: str, message: str) -> list[str]:
    """Fail the account's targets that have not started; returns the deliveries written."""
    deliveries = []
    # Posts in id order, as every transaction that locks several posts takes them (_rederive).
    pending = Target.select().where((Target.account_id == account_id) & (Target.status == "pending"))
    for target in pending.order_by(Target.post, Target.id):
        outcome = Outcome(error_code=AUTH, error_message=message)
        deliveries += resolve(rt, target, outcome, from_status="pending")
    return deliveries


def reclaim_expired(now: _dt.datetime) -> list[str]:
    """processing targets whose lease ran out (their worker died) -> unheld and due now.

    They stay `processing`: something may already exist on the platform. The next worker
    hands the adapter the state saved before the interrupted call, and the adapter reads
    back what exists before sending anything again (docs/architecture.md#never-twice).
    """
    with write_transaction():
        stale = [t.id for t in Target.select(Target.id).where(
            (Target.status == "processing") & (Target.lease_expires_at < now))]
        if stale:
            Target.update(lease_expires_at=None, next_check_at=now, updated_at=now).where(
                Target.id.in_(stale) & (Target.status == "processing") & (Target.lease_expires_at < now)
            ).execute()
    return stale


def due_checks(now: _dt.datetime, limit: int = 500) -> list[str]:
    """Parked targets whose next step is due: their scheduled wake-up may have been lost."""
    return [t.id for t in Target.select(Target.id).where(
        (Target.status == "processing") & Target.lease_expires_at.is_null() & (Target.next_check_at <= now)
    ).order_by(Target.next_check_at).limit(limit)]


def published_since(account_id: str, since: _dt.datetime) -> int:
    """The account's targets published since `since` (platforms' daily caps)."""
    return Target.select().where((Target.account_id == account_id) & (Target.status == "published")
                                 & (Target.published_at >= since)).count()


def published_last_24h(account_id: str, now: _dt.datetime) -> int:
    """`Job.published_last_24h` (fanout/platforms/base.py): the account's targets published
    in the 24 hours to `now`, as the engine and a preflight count them."""
    return published_since(account_id, now - _dt.timedelta(hours=24))


def published_in_workspace(workspace_id: str, platform: str, since: _dt.datetime) -> int:
    """The workspace's targets on `platform` published since `since` (workspace-wide caps)."""
    return (Target.select().join(Post, on=(Target.post == Post.id))
            .where((Post.workspace == workspace_id) & (Target.platform == platform) & (Target.status == "published")
                   & (Target.published_at >= since)).count())


def waiting(older_than: _dt.datetime, limit: int = 500) -> list[str]:
    """pending targets due and not touched since `older_than`: their wake-up call may have
    been lost. Targets not due yet are not looked at (the index on status and due_at), so a
    million scheduled posts cost this query nothing."""
    return [t.id for t in Target.select(Target.id).where(
        (Target.status == "pending") & (Target.due_at <= older_than) & (Target.updated_at <= older_than)
    ).order_by(Target.due_at).limit(limit)]


def to_wake(until: _dt.datetime, limit: int = 10_000) -> list[tuple[str, _dt.datetime]]:
    """pending targets due by `until` that no wake-up task was enqueued for yet (or for
    another due time, before an edit moved it): (id, due_at), each marked as woken.

    On PostgreSQL the rows are taken with SKIP LOCKED, so a sweeper never waits on an edit
    holding them (and two sweepers never enqueue the same wake-up); an edit that changes a
    target's due time enqueues its own wake-up, or leaves it to the next sweep.
    """
    with write_transaction():
        query = (Target.select(Target.id, Target.due_at)
                 .where((Target.status == "pending") & (Target.due_at <= until)
                        & (Target.wake_at.is_null() | (Target.wake_at != Target.due_at)))
                 .order_by(Target.due_at).limit(limit))
        if db.for_update:
            query = query.for_update(skip_locked=True)
        found = [(t.id, t.due_at) for t in query]
        for start in range(0, len(found), 500):
            ids = [target_id for target_id, _ in found[start:start + 500]]
            Target.update(wake_at=Target.due_at).where(Target.id.in_(ids)).execute()
    return found


def falling_due(target_id: str, until: _dt.datetime) -> _dt.datetime | None:
    """The due time of a pending target due by `until` whose wake-up is not enqueued for
    that time, marked as woken; None otherwise. A wake-up that came early (another
    machine's clock, an edit that moved the time) enqueues the right one. Read first, so a
    duplicate task (the common case) writes nothing."""
    target = Target.select(Target.status, Target.due_at, Target.wake_at).where(Target.id == target_id).first()
    if (target is None or target.status != "pending" or target.due_at is None or target.due_at > until
            or target.wake_at == target.due_at):
        return None
    with write_transaction():
        marked = Target.update(wake_at=Target.due_at).where(
            (Target.id == target_id) & (Target.status == "pending") & (Target.due_at == target.due_at)
            & (Target.wake_at.is_null() | (Target.wake_at != Target.due_at))).execute()
    return target.due_at if marked else None
