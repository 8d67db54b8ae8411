"""The Huey queue: SQLite in the data folder by default, Redis for scale-out.

Tasks are plain functions registered on whichever Huey instance the settings call for, so
tests register them on a MemoryHuey and drive it with `execute(task, timestamp=...)`.
"""
from __future__ import annotations

from dataclasses import dataclass

from huey import Huey, MemoryHuey, RedisHuey, SqliteHuey, crontab
from huey.api import TaskWrapper
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
