"""The Huey queue: SQLite in the data folder by default, Redis for scale-out.

Tasks are plain functions registered on whichever Huey instance the settings call for, so
tests register them on a MemoryHuey and drive it with `execute(task, timestamp=...)`.
"""
from __future__ import annotations

from dataclasses import dataclass

import time

from huey import Huey, MemoryHuey, RedisHuey, SqliteHuey, crontab
from huey.api import TaskWrapper
from huey.consumer import Consumer, Scheduler
from huey.storage import SqliteStorage

from ..datadir import private_file
from ..settings import Settings, sqlite_path
from . import maintenance, publishing, tokens, webhooks

NAME = "fanout"


@dataclass(frozen=True)
class Tasks:
    """The enqueueable tasks of one queue: call one to enqueue it."""

    publish: TaskWrapper
    deliver: TaskWrapper


def make_queue(settings: Settings) -> Huey:
    url = settings.queue_url
    if url.startswith(("redis://", "rediss://")):
        return RedisHuey(NAME, url=url, results=False)
    path = private_file(sqlite_path(url))
    return SqliteHuey(NAME, storage_class=QueueStorage, filename=str(path), results=False)


class QueueStorage(SqliteStorage):
    """SQLite's queue with `synchronous = NORMAL`, as the data's own file has it: in WAL a
    commit then waits for no fsync (SQLite's default, FULL, made every enqueue one). A
    crash of the machine may lose the last rows; the database still says what is due, and
    the sweeper enqueues it again (fanout/tasks/publishing.py)."""

    def _create_connection(self):
        conn = super()._create_connection()
        conn.execute("pragma synchronous = normal")
        return conn

    def read_schedule(self, ts):
        # Huey's takes the file's exclusive lock at every look, due or not; the scheduler
        # looks every TICK seconds, so it reads first, as `dequeue` does.
        if not self.sql("select 1 from schedule where queue = ? and timestamp <= ? limit 1",
                        (self.name, ts.timestamp()), results=True):
            return []
        return super().read_schedule(ts)


# How often a worker's scheduler moves tasks whose time has come (wake-ups of scheduled
# posts, a container's next check) to the queue. Huey's own scheduler looks once a second
# at most, which alone would make a scheduled post up to a second late; a tenth of that
# keeps it within the lateness bench/README.md measures.
TICK = 0.1


class PromptScheduler(Scheduler):
    """Huey's scheduler, looking at the schedule every TICK seconds; periodic tasks are
    still enqueued once a minute (Huey counts those on a clock of their own)."""

    def __init__(self, huey, stop_flag, interval, periodic):
        super().__init__(huey, stop_flag, interval, periodic)
        self.interval = TICK
        self._next_loop = time.monotonic()


class WorkerConsumer(Consumer):
    scheduler_class = PromptScheduler


def consumer(huey: Huey, **options) -> Consumer:
    """The consumer a `fanout worker` runs: Huey's, with the PromptScheduler."""
    return WorkerConsumer(huey, **options)


def memory_queue() -> Huey:
    return MemoryHuey(NAME, results=False)


def register(huey: Huey, rt) -> Tasks:
    """The tasks on `huey`, bound to the runtime `rt` (a fanout.runtime.Runtime) they run on."""
    maintenance.register(huey)

    def publish_target(target_id: str) -> None:
        publishing.publish_target(rt, target_id)

    def sweep() -> dict:
        return publishing.sweep(rt)

    def refresh_tokens() -> dict:
        return tokens.refresh_due_tokens(rt)

    huey.periodic_task(crontab(minute="*"), name="sweep")(sweep)
    huey.periodic_task(crontab(minute="*/5"), name="refresh_tokens")(refresh_tokens)
    return Tasks(
        publish=huey.task(name="publish_target")(publish_target),
        deliver=huey.task(name="deliver")(webhooks.deliver),
    )
