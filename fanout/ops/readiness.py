"""What GET /readyz reports: can this server do its work, part by part.

Each check runs on a daemon thread of its own and gets CHECK_TIMEOUT seconds; one that does
not answer in time fails. A hanging PostgreSQL or Redis therefore never hangs /readyz, and
never blocks the event loop. While a check is still hanging, the next /readyz does not
start another one beside it: it fails that part at once, so probes cannot pile up threads.

The limiter store is reported as `degraded` at worst: the API serves without the limit
while it is down (fanout/http/throttle.py), so readiness does not depend on it.
"""
from __future__ import annotations

import asyncio
import datetime as _dt
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from ..http.errors import error_object
from ..models import db
from ..models import heartbeat
from ..models.schema import pending
from ..problems import NotReady
from ..times import isoformat

CHECK_TIMEOUT = 2.0

OK, DEGRADED, FAILING = "ok", "degraded", "failing"
PARTS = ("database", "queue", "limiter", "workers")


@dataclass
class Check:
    status: str
    message: str
    details: dict = field(default_factory=dict)
    duration_ms: float = 0.0

    def view(self) -> dict:
        return {"status": self.status, "message": self.message, "duration_ms": round(self.duration_ms, 1), **self.details}


class CheckFailed(Exception):
    """A check found its part not working; the message says how."""


def check_database(rt) -> Check:
    with db.connection_context():
        db.execute_sql("SELECT 1")
        missing = pending()  # the check `fanout api` makes before it starts
    if missing:
        raise CheckFailed(f"reachable, but migrations {', '.join(missing)} are not applied: run `fanout migrate`")
    return Check(OK, "reachable; every migration applied")


def check_queue(rt) -> Check:
    waiting = rt.queue.pending_count()
    return Check(OK, f"reachable; {waiting} task{'s' if waiting != 1 else ''} waiting")


def check_limiter(rt) -> Check:
    problem = rt.throttle.problem()
    if problem:
        raise CheckFailed(problem)
    return Check(OK, "reachable")


def check_workers(rt) -> Check:
    now = rt.now()
    stale = rt.settings.heartbeat_stale
    with db.connection_context():
        newest = heartbeat.newest()
        live = heartbeat.live_count(now - _dt.timedelta(seconds=stale))
    details = {"live": live, "stale_after_seconds": stale}
    if newest is None:
        return Check(FAILING, "no queue worker has written a heartbeat: start `fanout worker` (or `fanout serve`)", details)
    age = max((now - newest.last_seen_at).total_seconds(), 0.0)
    details["newest"] = {
        "id": newest.id, "host": newest.host, "pid": newest.pid, "started_at": isoformat(newest.started_at),
        "last_seen_at": isoformat(newest.last_seen_at), "age_seconds": round(age, 1),
    }
    who = f"worker {newest.id} on {newest.host} pid {newest.pid}"
    if age > stale:
        return Check(FAILING, f"the newest heartbeat, of {who}, is {age:.0f} s old; stale after {stale} s", details)
    return Check(OK, f"{live} worker{'s' if live != 1 else ''} beating; the newest heartbeat, of {who}, is {age:.0f} s old",
                 details)


CHECKS: dict[str, Callable] = {
    "database": check_database, "queue": check_queue, "limiter": check_limiter, "workers": check_workers,
}

_running: dict[str, threading.Lock] = {part: threading.Lock() for part in PARTS}


def _failed(part: str, rt, message: str) -> Check:
    """The report of a part whose check raised or did not answer."""
    if part == "limiter":
        return Check(DEGRADED, f"{message}; requests are served without the per-minute limit until it is back")
    details = {"live": 0, "stale_after_seconds": rt.settings.heartbeat_stale} if part == "workers" else {}
    return Check(FAILING, message, details)


def _run(part: str, rt) -> Check:
    """The check of `part` in this thread, every exception turned into its report."""
    started = time.monotonic()
    try:
        check = CHECKS[part](rt)
    except CheckFailed as e:
        check = _failed(part, rt, str(e))
    except Exception as e:
        check = _failed(part, rt, f"{type(e).__name__}: {_first_line(e)}")
    check.duration_ms = (time.monotonic() - started) * 1000
    return check


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [""])[0][:300]


async def _bounded(part: str, rt, timeout: float) -> Check:
    lock = _running[part]
    if not lock.acquire(blocking=False):
        return _failed(part, rt, "the previous check has not answered yet")
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def target():
        try:
            check = _run(part, rt)
        finally:
            lock.release()
        try:
            loop.call_soon_threadsafe(lambda: done.done() or done.set_result(check))
        except RuntimeError:
            pass  # the loop is gone (the server stopped while this check hung): nobody waits

    # A daemon thread, not the thread pool: one stuck in a connect must not hold up exit.
    started = time.monotonic()
    threading.Thread(target=target, name=f"readyz-{part}", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(done), timeout)
    except asyncio.TimeoutError:
        check = _failed(part, rt, f"no answer within {timeout:g} s")
        check.duration_ms = (time.monotonic() - started) * 1000
        return check


async def readiness(rt, timeout: float = CHECK_TIMEOUT) -> tuple[dict, bool]:
    """(the report, whether the server is ready); every part checked at once."""
    results = await asyncio.gather(*(_bounded(part, rt, timeout) for part in PARTS))
    checks = dict(zip(PARTS, results))
    failing = [part for part, check in checks.items() if check.status == FAILING]
    degraded = any(check.status == DEGRADED for check in checks.values())
    status = "not_ready" if failing else "degraded" if degraded else "ready"
    report = {"status": status, "failing": failing, "checks": {part: check.view() for part, check in checks.items()}}
    if failing:
        reasons = "; ".join(f"{part} ({checks[part].message})" for part in failing)
        report = {**error_object(NotReady(f"not ready: {reasons}")), **report}
    return report, not failing
