"""The Huey queue chosen by FANOUT_QUEUE_URL."""
from dataclasses import replace

import pytest
from huey import RedisHuey, SqliteHuey

from fanout.tasks import make_queue

from .conftest import EXTERNAL_QUEUE_URL


def test_default_queue_is_sqlite_in_the_data_folder(settings, tmp_path):
    queue = make_queue(replace(settings, queue_url=f"sqlite:///{tmp_path / 'queue.db'}"))
    assert isinstance(queue, SqliteHuey)
    assert (tmp_path / "queue.db").exists()


def test_the_sqlite_queue_commits_without_waiting_for_an_fsync(settings, tmp_path):
    queue = make_queue(replace(settings, queue_url=f"sqlite:///{tmp_path / 'queue.db'}"))
    [(synchronous,)] = queue.storage.sql("pragma synchronous", results=True)
    [(journal,)] = queue.storage.sql("pragma journal_mode", results=True)
    assert (synchronous, journal) == (1, "wal")  # NORMAL: durable across crashes of the process


@pytest.mark.skipif(not EXTERNAL_QUEUE_URL, reason="FANOUT_QUEUE_URL is not set (the embedded pass)")
def test_redis_url_gives_a_redis_queue_that_round_trips_a_task(settings):
    queue = make_queue(settings)
    assert isinstance(queue, RedisHuey)
    queue.flush()

    @queue.task()
    def add(a, b):
        return a + b

    add(1, 2)
    task = queue.dequeue()
    assert queue.execute(task) == 3
    queue.flush()
