"""The Huey queue: SQLite in the data folder by default, Redis for scale-out.

Tasks are plain functions registered on whichever Huey instance the settings call for, so
tests register them on a MemoryHuey and drive it with `execute(task, timestamp=...)`.
"""
from __future__ import annotations

from dataclasses import dataclass

from huey import Huey, MemoryHuey, RedisHuey, SqliteHuey, crontab
from huey.api import TaskWrapper

from ..datadir import private_file
from ..settings import Settings, sqlite_path
from . import maintenance, publishing, webhooks

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
    return SqliteHuey(NAME, filename=str(path), results=False)


def memory_queue() -> Huey:
    return MemoryHuey(NAME, results=False)


def register(huey: Huey) -> Tasks:
    maintenance.register(huey)
    huey.periodic_task(crontab(minute="*"), name="sweep")(publishing.sweep)
    return Tasks(
        publish=huey.task(name="publish_target")(publishing.publish_target),
        deliver=huey.task(name="deliver")(webhooks.deliver),
    )
