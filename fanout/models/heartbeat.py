"""Worker heartbeats: each queue worker process keeps one row fresh (fanout/tasks/heartbeat.py),
and /readyz reads the newest to tell whether anything is publishing."""
from __future__ import annotations

import datetime as _dt

from peewee import fn

from .tables.worker_heartbeat import WorkerHeartbeat


def beat(worker_id: str, host: str, pid: int, started_at: _dt.datetime, now: _dt.datetime) -> None:
    """Record that the worker is alive at `now` (its row is made on the first beat)."""
    updated = WorkerHeartbeat.update(last_seen_at=now).where(WorkerHeartbeat.id == worker_id).execute()
    if not updated:
        WorkerHeartbeat.insert(id=worker_id, host=host[:255], pid=pid, started_at=started_at,
                               last_seen_at=now).on_conflict_ignore().execute()


def forget(worker_id: str) -> None:
    """The worker stopped cleanly: its heartbeat no longer stands for a running worker."""
    WorkerHeartbeat.delete().where(WorkerHeartbeat.id == worker_id).execute()


def prune(before: _dt.datetime) -> int:
    """Delete heartbeats last seen before `before`: workers long gone (killed, never stopped)."""
    return WorkerHeartbeat.delete().where(WorkerHeartbeat.last_seen_at < before).execute()


def newest() -> WorkerHeartbeat | None:
    return WorkerHeartbeat.select().order_by(WorkerHeartbeat.last_seen_at.desc(), WorkerHeartbeat.id).first()


def live_count(since: _dt.datetime) -> int:
    """Workers whose last heartbeat is at `since` or later."""
    return WorkerHeartbeat.select(fn.COUNT(WorkerHeartbeat.id)).where(WorkerHeartbeat.last_seen_at >= since).scalar()
