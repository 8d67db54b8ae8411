"""The Huey queue: SQLite in the data folder by default, Redis for scale-out.

Tasks are plain functions registered on whichever Huey instance the settings call for, so
tests register them on a MemoryHuey and drive it with `execute(task, timestamp=...)`.
"""
from __future__ import annotations

from huey import Huey, MemoryHuey, RedisHuey, SqliteHuey

from ..settings import Settings, sqlite_path
from . import maintenance

NAME = "fanout"


def make_queue(settings: Settings) -> Huey:
    url = settings.queue_url
    if url.startswith(("redis://", "rediss://")):
        huey = RedisHuey(NAME, url=url, results=False)
    else:
        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        huey = SqliteHuey(NAME, filename=str(path), results=False)
    return register(huey)


def memory_queue() -> Huey:
    return register(MemoryHuey(NAME, results=False))


def register(huey: Huey) -> Huey:
    maintenance.register(huey)
    return huey
