"""GET /healthz and GET /readyz (openapi.yaml, tag `monitoring`): no key, no rate limit,
and readiness that names what fails."""
import socket
import threading

import pytest

from fanout.ops import readiness
from fanout.models import bind, db, open_database
from fanout.models.schema import migrate
from fanout.ratelimit import Limiter, RedisStore
from fanout.tasks.heartbeat import Heartbeat
from fanout.http.throttle import Throttle

from ..conftest import assert_error, free_port, spend, wait_for


@pytest.fixture
def worker(rt):
    """A queue worker's heartbeat, beating on the test clock when told to."""
    heartbeat = Heartbeat(rt)
    heartbeat.beat()
    return heartbeat


def test_healthz_answers_ok_without_a_key(client):
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}


def test_ready_when_every_part_answers_and_a_worker_beat_recently(client, worker, clock):
    clock.advance(seconds=29)
    answer = client.get("/readyz")
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["status"] == "ready" and report["failing"] == []
    assert {part: check["status"] for part, check in report["checks"].items()} == dict.fromkeys(readiness.PARTS, "ok")
    workers = report["checks"]["workers"]
    assert workers["live"] == 1 and workers["stale_after_seconds"] == 30
    assert workers["newest"]["id"] == worker.worker_id and workers["newest"]["age_seconds"] == 29.0
    assert workers["newest"]["pid"] == worker.pid and workers["newest"]["host"] == worker.host


def test_a_stale_heartbeat_is_503_naming_the_worker(client, worker, clock):
    clock.advance(seconds=31)
    answer = client.get("/readyz")
    message = assert_error(answer, 503, "not_ready")
    report = answer.json()
    assert report["status"] == "not_ready" and report["failing"] == ["workers"]
    assert worker.worker_id in message and f"pid {worker.pid}" in message and "31 s old" in message
    assert report["checks"]["workers"]["status"] == "failing"
    assert report["checks"]["workers"]["live"] == 0
    assert report["checks"]["database"]["status"] == "ok"  # the other checks' details stay


def test_a_fresh_beat_makes_it_ready_again(client, worker, clock):
    clock.advance(seconds=31)
    assert client.get("/readyz").status_code == 503
    worker.beat()
    assert client.get("/readyz").status_code == 200


def test_no_heartbeat_at_all_is_503_saying_no_worker_runs(client):
    answer = client.get("/readyz")
    message = assert_error(answer, 503, "not_ready")
    assert "no queue worker has written a heartbeat" in message
    assert "newest" not in answer.json()["checks"]["workers"]


def test_a_stopped_worker_no_longer_counts(client, worker):
    worker.stop()
    assert_error(client.get("/readyz"), 503, "not_ready")


def test_an_unreachable_database_is_503_naming_the_database(client, worker):
    # PostgreSQL on a loopback port nobody listens on: the connection is refused.
    bind(open_database(f"postgresql://fanout@127.0.0.1:{free_port()}/fanout"))
    answer = client.get("/healthz")
    assert answer.status_code == 200  # liveness looks at nothing else
    answer = client.get("/readyz")
    message = assert_error(answer, 503, "not_ready")
    report = answer.json()
    assert "database" in report["failing"] and report["checks"]["database"]["status"] == "failing"
    assert "OperationalError" in report["checks"]["database"]["message"]
    assert message.startswith("not ready: database (")
    assert report["checks"]["queue"]["status"] == "ok"


def test_a_migration_not_applied_is_503_naming_the_database(client, worker):
    with db.connection_context():
        db.execute_sql("DELETE FROM schema_migration WHERE name = '0004_worker_heartbeats'")
    try:
        answer = client.get("/readyz")
    finally:
        migrate()  # records it again (its table is there), for the tests that share a PostgreSQL database
    assert_error(answer, 503, "not_ready")
    report = answer.json()
    assert report["failing"] == ["database"]
    assert "migrations 0004_worker_heartbeats are not applied" in report["checks"]["database"]["message"]


class SilentServer:
    """A loopback port that accepts connections and never answers: a hanging server."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        try:
            while True:
                self.accepted.append(self.sock.accept()[0])
        except OSError:
            return

    def close(self):
        # shutdown, not close alone: it wakes the blocked accept(), and refuses what waits.
        self.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join()
        self.sock.close()
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def silent_server():
    server = SilentServer()
    yield server
    server.close()
    # The hung checks end once their connection is closed; the next test starts clean.
    wait_for(lambda: not any(lock.locked() for lock in readiness._running.values()), what="the hung checks to end")


def test_a_hanging_database_fails_its_check_in_bounded_time_and_the_next_probe_does_not_pile_up(
        client, worker, silent_server):
    bind(open_database(f"postgresql://fanout@127.0.0.1:{silent_server.port}/fanout"))
    answer = client.get("/readyz")
    assert_error(answer, 503, "not_ready")
    checks = answer.json()["checks"]
    assert checks["database"]["message"] == "no answer within 2 s"
    assert checks["workers"]["message"] == "no answer within 2 s"  # heartbeats live in the database too
    # The first checks still hang: the next probe starts none beside them.
    checks = client.get("/readyz").json()["checks"]
    assert checks["database"]["message"] == "the previous check has not answered yet"


def test_an_unreachable_limiter_store_is_degraded_but_ready(client, worker, rt):
    rt.throttle = Throttle(Limiter(RedisStore(f"redis://127.0.0.1:{free_port()}/0"), clock=rt.clock), clock=rt.clock)
    answer = client.get("/readyz")
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["status"] == "degraded" and report["failing"] == []
    limiter = report["checks"]["limiter"]
    assert limiter["status"] == "degraded"
    assert "unavailable" in limiter["message"] and "served without the per-minute limit" in limiter["message"]


def test_monitoring_takes_no_key_and_counts_against_no_quota(client, free, worker):
    _, headers = free  # 30 requests a minute
    spend(client, headers, 29)
    for _ in range(10):
        # With the workspace's key or without it, none of them counts, and none is limited.
        for path in ("/healthz", "/readyz", "/metrics"):
            assert client.get(path, headers=headers).status_code == 200
            assert client.get(path).status_code == 200
    assert client.get("/v1/accounts", headers=headers).status_code == 200  # the 30th
    assert_error(client.get("/v1/accounts", headers=headers), 429, "rate_limited")
    for path in ("/healthz", "/readyz", "/metrics"):
        answer = client.get(path, headers=headers)
        assert answer.status_code == 200
        assert "RateLimit-Policy" not in answer.headers
