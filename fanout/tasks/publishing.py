"""Publishing tasks: one step of one target per task, plus the sweeper that makes lost
wake-up calls harmless and wakes scheduled posts as their time comes near.

Huey acknowledges nothing (a killed worker loses its task), so the database decides what
is left to do: a target is claimed with a lease, its adapter runs one step
(fanout/platforms/base.py) once the checks before its platform find no problem (the first
fails it: fanout/before_platform.py, the sequence a preflight lists whole), and the step's
answer settles the target or parks it, state saved, until a scheduled task (or the
sweeper) claims it again. No worker thread waits for a platform; a target whose worker
died is taken back when its lease runs out and its adapter reconciles from the saved
state before sending anything again.

A scheduled post's targets are claimed no earlier than its time (fanout/models/lifecycle.py).
Their wake-up tasks are enqueued for that time (`wake`), by the upload or the edit when it
is less than `WAKE_AHEAD` away, else by the sweeper once it is: the queue holds what falls
due in the next minutes, however many posts are scheduled further off.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import logging

from peewee import PeeweeException

from ..models import Account, db
from ..models.deliveries import due
from ..models.lifecycle import (
    claim, due_checks, falling_due, park, published_in_workspace, published_last_24h, published_since,
    reclaim_expired, resolve,
    save_state, to_wake, waiting,
)
from ..models.upload import WAKE_AHEAD
from ..platforms import sandbox
from ..platforms.base import Done, Job, LeaseLost, Outcome, Result, Retry, Wait, failed, limit_key
from ..platforms.contract import UnusableAnswer, outcome
from .. import before_platform
from ..content import job_of
from ..target_errors import AUTH, UNKNOWN
from ..times import UTC
from .tokens import Refresh, refresh_account

log = logging.getLogger(__name__)

# A pending target this long after its last change has probably lost its task.
STALE_PENDING = _dt.timedelta(seconds=30)
# Steps run back to back in one task while each says its next one is due at once.
INLINE_STEPS = 10
# Transient failures (5xx, timeouts before anything was created) a target survives.
MAX_RETRIES = 5
RETRY_BASE = 30  # seconds; doubled each retry, capped below
RETRY_CAP = 1800


class Run:
    """The engine's side of one claimed target, as an adapter sees it (base.Step)."""

    def __init__(self, rt, target, workspace_id: str | None = None):
        self.rt = rt
        self.target = target
        self.workspace_id = workspace_id
        self.platform = rt.platforms[target.platform]
        self.http = rt.platform_http
        self.outbound = rt.media_outbound  # what adapters fetch media with
        self.settings = rt.settings
        self.sleep = rt.sleep
        self.lease = _dt.timedelta(seconds=rt.settings.publish_lease)
        self.saved = None  # the last state the running step saved, what a replay starts from


    def now(self) -> _dt.datetime:
        return self.rt.now()

    def save(self, state) -> None:
        with db.connection_context():
            if not save_state(self.target, dict(state), self.rt.now(), self.lease):
                raise LeaseLost(self.target.id)
        self.saved = dict(state)

    def per_minute(self, key: str, limit: int) -> bool:
        # The limiter of requests per minute (Redis or the data folder's SQLite), under keys
        # of their own; like the API's limits it fails open when its store cannot answer.
        decision = self.rt.throttle.check(limit_key(key), limit)
        return decision is None or decision.allowed

    def published(self, since: _dt.datetime, *, workspace: bool = False) -> int:
        with db.connection_context():
            if workspace:
                return published_in_workspace(self.workspace_id, self.target.platform, since)
            return published_since(self.target.account_id, since)

def wake(rt, target_ids, due_at: _dt.datetime | None = None) -> None:
    """Enqueue the targets' wake-up tasks: at once, or for `due_at` (naive UTC)."""
    for target_id in target_ids:
        if due_at is None or due_at <= rt.now():
            rt.tasks.publish(target_id)
        else:
            rt.tasks.publish.schedule(args=(target_id,), eta=due_at.replace(tzinfo=UTC))


def publish_target(rt, target_id: str) -> None:
    """Claim the target, run its due steps, and settle or park it."""
    with db.connection_context():
        now = rt.now()
        target = claim(target_id, now, _dt.timedelta(seconds=rt.settings.publish_lease))
        if target is None:
            # Taken by another worker, final, gone, or not due yet: a wake-up that came
            # early (an edit moved the time) enqueues the one for its time, if it is near.
            due_at = falling_due(target_id, now + WAKE_AHEAD)
            if due_at is not None:
                wake(rt, [target_id], due_at)
            return
        # Read only now that the claim committed: an edit that came first is in it.
        post = target.post
        account = Account.get_or_none(Account.id == target.account_id)
        recent = published_last_24h(target.account_id, rt.now()) if account and not post.sandbox else 0
    # No database connection is held while a platform is called: that can take a while.
    run = Run(rt, target, post.workspace_id)
    state = target.saved_state
    crashed = None  # the type of the unexpected error the step ended in, if it did
    try:
        for _ in range(INLINE_STEPS):
            result = _step(rt, run, post, target, account, state, recent)
            if not isinstance(result, Wait) or result.until > rt.now():
                break
            state = dict(result.state)
    except LeaseLost:
        log.warning("target %s was taken back from this worker mid-publish; its new worker continues", target_id)
        return
    except PeeweeException:
        raise  # the stores failed, not the step: the lease runs out and the sweeper takes the target back
    except UnusableAnswer as e:
        result = _unusable(run, target, e)
    except Exception as e:
        result, crashed = _unexpected(run, target, state, e), type(e).__name__
    _settle(rt, target, result, crashed)


def _unusable(run: Run, target, error: UnusableAnswer) -> Done:
    """The platform answered what its contract does not promise (fanout/platforms/contract.py):
    the target fails now. Asking again meets the same answer, and where the call creates
    something (a TikTok init is a post started) creates it again."""
    log.warning("target %s: %s answered %s; failed without a retry", target.id, run.platform.title, error.what)
    return Done(outcome(run.platform.title, error))


def _unexpected(run: Run, target, state, error: Exception) -> Retry:
    """A step raised what it does not expect (a bug in this server): a retry, bounded like
    any other (`_settle`), from what the step last saved, so a marker it left is reconciled,
    never skipped. Without it the target would stay processing, claimed and crashing again
    after every lease. The traceback goes to the log the first time only (the type is kept
    on the target, `crash_kind`, until the next progress); the target's message names the
    error's type, never its text, which may hold anything. An answer that breaks the
    platform's contract is not this: the adapter kit says so (`_unusable`)."""
    kind = type(error).__name__
    if target.crash_kind != kind:
        log.error("target %s: unexpected %s in its %s step; retried at most %d times", target.id, kind,
                  run.platform.title, MAX_RETRIES, exc_info=error)
    latest = run.saved if run.saved is not None else state
    reason = (f"an unexpected error ({kind}) in this server's {run.platform.title} step; "
              f"its log has the details under target {target.id}")
    return Retry(after=run.now() + _dt.timedelta(seconds=RETRY_BASE), state=latest, reason=reason)


def _step(rt, run: Run, post, target, account, state, recent) -> Result:
    """One step, with the one token refresh and replay an auth error earns."""
    run.saved = None
    if account is None:
        return failed(AUTH, "the account was disconnected; reconnect it")
    if account.status != "active":
        return failed(AUTH, f"the account is {account.status}; reconnect it")
    # Only the first problem: its media is not fetched after a problem of its content. A
    # step after one that saved a state or was retried was checked already (`started`).
    content = post.content_for(target.platform)
    problem = next(before_platform.problems(rt, account, content, sandbox=post.sandbox, publishing=True,
                                            simulate_error=post.simulate_error,
                                            started=bool(state) or bool(target.retries)), None)
    if problem is not None:
        return Done(problem)
    if post.sandbox:
        return sandbox.publish(run, _job(rt, post, target, account, state, 0))
    platform = run.platform
    result = platform.adapter.publish(run, _job(rt, post, target, account, state, recent))
    if not (isinstance(result, Done) and result.outcome.error_code == AUTH):
        return result
    # What the failed step last saved: a marker it left must be reconciled, not skipped.
    latest = run.saved if run.saved is not None else state
    refreshed = refresh_account(rt, account.id)
    if refreshed is Refresh.BUSY or refreshed is Refresh.FAILED:
        return Retry(after=rt.now() + _dt.timedelta(seconds=RETRY_BASE), state=latest,
                     reason="the token could not be refreshed yet")
    if refreshed is Refresh.EXPIRED:
        return result
    with db.connection_context():
        account = Account.get_by_id(account.id)
    return platform.adapter.publish(run, _job(rt, post, target, account, latest, recent))


def _job(rt, post, target, account, state, recent) -> Job:
    return job_of(rt, account, post.content_for(target.platform), target_id=target.id, state=state,
                  simulate_error=post.simulate_error, published_last_24h=recent)


def _settle(rt, target, result: Result, crashed: str | None = None) -> None:
    """Resolve or park the target. A `Retry` is one more transient failure in a row, parked
    with a backoff or, past MAX_RETRIES, the end (`crashed`: the unexpected error's type it
    stands for); a `Wait` is progress, the count back at zero. The counts go to the
    target's columns, the adapter's state as the adapter gave it."""
    now = rt.now()
    retries, crash_kind = 0, None
    if isinstance(result, Retry):
        retries, crash_kind = target.retries + 1, crashed or target.crash_kind
        if retries > MAX_RETRIES:
            reason = f"gave up after {MAX_RETRIES} retries: {result.reason}"
            if result.settles is not None:  # published; only its first comment is given up
                log.warning("target %s: its first comment gave up after %d retries (%s)", target.id, MAX_RETRIES,
                            result.reason)
                result = Done(dataclasses.replace(result.settles, first_comment_error=reason,
                                                  published_parts=result.published_parts))
            else:
                log.warning("target %s: failed after %d retries (%s)", target.id, MAX_RETRIES, result.reason)
                result = Done(Outcome(error_code=UNKNOWN, published_parts=result.published_parts,
                                      error_message=f"{reason}; {result.context}" if result.context else reason))
        else:
            delay = min(RETRY_BASE * 2 ** (retries - 1), RETRY_CAP)
            jitter = int.from_bytes(rt.randbytes(1), "big") / 255 * 0.2 * delay
            until = max(result.after, now + _dt.timedelta(seconds=delay - jitter))
            if result.deadline is not None:
                until = max(min(until, result.deadline), now)
            log.info("target %s: retry %d at %s (%s)", target.id, retries, until.isoformat(), result.reason)
            result = Wait(until=until, state=result.state, published_parts=result.published_parts)
    if isinstance(result, Wait):
        with db.connection_context():
            parked = park(target, dict(result.state), result.until, now, result.published_parts,
                          retries=retries, crash_kind=crash_kind)
        if parked:
            rt.tasks.publish.schedule(args=(target.id,), eta=result.until.replace(tzinfo=UTC))
        return
    with db.connection_context():
        deliveries = resolve(rt, target, result.outcome)
    for delivery_id in deliveries:
        rt.tasks.deliver(delivery_id)


def sweep(rt, stale: _dt.timedelta = STALE_PENDING) -> dict:
    """Take back expired leases, re-enqueue forgotten targets and due deliveries, and
    enqueue the wake-ups of the targets falling due within `WAKE_AHEAD`.

    A target is taken for forgotten when it has been due, untouched, for `stale`; a worker
    starting passes 0, so whatever fell due while no worker ran goes at once."""
    now = rt.now()
    with db.connection_context():
        reclaimed = reclaim_expired(now)
        pending = waiting(now - stale) + due_checks(now - stale)
        deliveries = due(now)
        soon = to_wake(now + WAKE_AHEAD)
    for target_id in dict.fromkeys(reclaimed + pending):
        rt.tasks.publish(target_id)
    for target_id, due_at in soon:
        wake(rt, [target_id], due_at)
    for delivery_id in deliveries:
        rt.tasks.deliver(delivery_id)
    if reclaimed or pending or deliveries or soon:
        log.info("sweep: %d leases taken back, %d targets and %d deliveries re-enqueued, %d wake-ups enqueued",
                 len(reclaimed), len(pending), len(deliveries), len(soon))
    return {"reclaimed": reclaimed, "targets": pending, "deliveries": deliveries, "woken": [t for t, _ in soon]}


__all__ = ["Outcome", "publish_target", "sweep", "wake"]
