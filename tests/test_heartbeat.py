"""The heartbeat each queue worker process writes (fanout/tasks/heartbeat.py)."""
import logging

from fanout.models import WorkerHeartbeat, bind, db, open_database
from fanout.tasks.heartbeat import Heartbeat

from .conftest import free_port, wait_for


def rows() -> list[WorkerHeartbeat]:
    with db.connection_context():
        return list(WorkerHeartbeat.select().order_by(WorkerHeartbeat.started_at))


def test_a_beat_records_the_worker_at_the_runtime_clock(rt, clock):
    heartbeat = Heartbeat(rt)
    heartbeat.beat()
    started = clock.now
    clock.advance(seconds=10)
    heartbeat.beat()
    [row] = rows()
    assert (row.id, row.host, row.pid) == (heartbeat.worker_id, heartbeat.host, heartbeat.pid)
    assert row.id.startswith("wkr_")
    assert (row.started_at, row.last_seen_at) == (started, clock.now)


def test_each_worker_process_has_a_row_of_its_own(rt):
    first, second = Heartbeat(rt), Heartbeat(rt)
    first.beat()
    second.beat()
    assert {row.id for row in rows()} == {first.worker_id, second.worker_id}


def test_heartbeats_of_workers_gone_for_an_hour_are_pruned(rt, clock):
    gone = Heartbeat(rt)
    gone.beat()
    clock.advance(minutes=59)
    recent = Heartbeat(rt)
    recent.beat()
    assert len(rows()) == 2
    clock.advance(minutes=2)
    recent.beat()
    assert [row.id for row in rows()] == [recent.worker_id]


def test_the_thread_beats_at_once_and_a_clean_stop_deletes_the_row(rt):
    heartbeat = Heartbeat(rt, interval=60).start()
    try:
        wait_for(lambda: [row.id for row in rows()] == [heartbeat.worker_id], what="the first beat")
    finally:
        heartbeat.stop()
    assert rows() == []


def test_a_beat_that_fails_is_logged_and_tried_again(rt, settings, caplog):
    bind(open_database(f"postgresql://fanout@127.0.0.1:{free_port()}/fanout"))  # refused
    heartbeat = Heartbeat(rt, interval=0.05)
    with caplog.at_level(logging.ERROR, "fanout.tasks.heartbeat"):
        heartbeat.start()
        try:
            wait_for(lambda: len([r for r in caplog.records if "heartbeat failed" in r.getMessage()]) >= 2,
                     what="two failed beats")
            bind(open_database(settings.database_url))  # the database is back
            wait_for(lambda: [row.id for row in rows()] == [heartbeat.worker_id], what="a beat once it is back")
        finally:
            heartbeat.stop()

