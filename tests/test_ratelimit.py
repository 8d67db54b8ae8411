"""The requests-per-minute limiter (fanout/ratelimit.py) on both stores, with a fake clock.

Redis tests use the pass's own Redis (FANOUT_QUEUE_URL) when it has one, else database 14,
under a key prefix of this session's own, flushed before each test: sessions running at
once (`.ci/run`'s two passes) never see each other's keys. Without a reachable Redis they
are skipped, unless CI=true, where that is a failure.
"""
from __future__ import annotations

import datetime as dt
import os
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from fanout.ratelimit import (
    Decision,
    Limiter,
    LimiterUnavailable,
    RedisStore,
    SqliteStore,
    headers,
    open_store,
)

from .conftest import EXTERNAL_QUEUE_URL, loopback_guarded, parse_sf_list

REDIS_URL = EXTERNAL_QUEUE_URL or "redis://127.0.0.1:6379/14"
PREFIX = f"fanout-test:ratelimit:{os.getpid()}:"  # the keys expire a minute after their last hit
ROOT = Path(__file__).resolve().parent.parent
NOW = 1_795_000_000.0  # epoch seconds for store-level tests


def _redis_or_skip() -> None:
    client = redis.Redis.from_url(REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
        for name in client.scan_iter(match=PREFIX + "*"):
            client.delete(name)
    except redis.RedisError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis at {REDIS_URL} is unreachable and CI=true: {e}")
        pytest.skip(f"Redis at {REDIS_URL} is unreachable (set CI=true to make this a failure): {e}")
    finally:
        client.close()


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path) -> str:
    """A fresh store's URL: a new SQLite file, or Redis with this suite's keys flushed."""
    if request.param == "redis":
        _redis_or_skip()
        return REDIS_URL
    return f"sqlite:///{tmp_path / 'ratelimit.db'}"


def _open(url: str):
    return RedisStore(url, prefix=PREFIX) if url.startswith("redis") else open_store(url)


@pytest.fixture
def store(store_url):
    opened = _open(store_url)
    yield opened
    opened.close()


@pytest.fixture
def limiter(store, clock) -> Limiter:
    return Limiter(store, clock)


def _burst(limiter: Limiter, key: str, limit: int, count: int) -> list[Decision]:
    return [limiter.hit(key, limit) for _ in range(count)]


# --- sliding-window behaviour, on both stores -------------------------------------------

def test_admits_the_limit_then_refuses_at_one_instant(limiter):
    decisions = _burst(limiter, "ws_a", 5, 8)
    assert [d.allowed for d in decisions] == [True] * 5 + [False] * 3
    assert [d.remaining for d in decisions] == [4, 3, 2, 1, 0, 0, 0, 0]


def test_refused_hits_do_not_count(limiter, clock):
    _burst(limiter, "ws_a", 5, 5)
    for _ in range(5):  # refused retries through the window must not push recovery out
        clock.advance(seconds=10)
        assert not limiter.hit("ws_a", 5).allowed
    clock.advance(seconds=10)  # 60 s after the admitted burst
    assert [d.allowed for d in _burst(limiter, "ws_a", 5, 6)] == [True] * 5 + [False]


def test_keys_are_independent(limiter):
    _burst(limiter, "ws_a", 3, 4)
    assert [d.allowed for d in _burst(limiter, "ws_b", 3, 3)] == [True] * 3
    assert not limiter.hit("ws_a", 3).allowed


def test_retry_after_is_exact(limiter, clock):
    limiter.hit("ws_a", 3)  # the oldest hit, at 10:00:00.000
    clock.advance(seconds=20, milliseconds=500)
    _burst(limiter, "ws_a", 3, 2)
    refused = limiter.hit("ws_a", 3)
    # The oldest hit leaves at 10:01:00.000, 39.5 s away: 40 whole seconds.
    assert (refused.allowed, refused.retry_after) == (False, 40)
    refused_at = clock.now
    clock.now = refused_at + dt.timedelta(seconds=refused.retry_after - 1)
    assert not limiter.hit("ws_a", 3).allowed
    clock.now = refused_at + dt.timedelta(seconds=refused.retry_after)
    assert limiter.hit("ws_a", 3).allowed


def test_retry_after_is_the_whole_window_right_after_a_burst(limiter, clock):
    _burst(limiter, "ws_a", 2, 2)
    refused = limiter.hit("ws_a", 2)
    assert (refused.retry_after, refused.reset) == (60, 60)
    clock.advance(seconds=59, milliseconds=999)
    assert not limiter.hit("ws_a", 2).allowed
    clock.advance(milliseconds=1)
    assert limiter.hit("ws_a", 2).allowed


def test_no_boundary_burst_across_a_minute(limiter, clock):
    clock.now = dt.datetime(2026, 11, 22, 10, 0, 59)
    assert all(d.allowed for d in _burst(limiter, "ws_a", 10, 10))
    clock.now = dt.datetime(2026, 11, 22, 10, 1, 0)  # a fixed window would admit 10 more
    assert not any(d.allowed for d in _burst(limiter, "ws_a", 10, 10))


def test_window_slides(limiter, clock):
    _burst(limiter, "ws_a", 10, 5)  # 5 at :00
    clock.advance(seconds=30)
    _burst(limiter, "ws_a", 10, 5)  # 5 at :30
    clock.advance(seconds=30)  # the :00 hits have left, the :30 ones have not
    assert [d.allowed for d in _burst(limiter, "ws_a", 10, 6)] == [True] * 5 + [False]


def test_count_is_the_admitted_hits_of_the_last_minute_and_counts_none_itself(limiter, clock):
    assert limiter.count("ws_count") == 0
    _burst(limiter, "ws_count", 3, 5)  # three admitted, two refused
    clock.advance(seconds=30)
    limiter.hit("ws_count", 3)  # refused too: the window is full
    assert [limiter.count("ws_count") for _ in range(3)] == [3, 3, 3]
    clock.advance(seconds=30)  # the burst has left the window
    assert limiter.count("ws_count") == 0
    assert limiter.hit("ws_count", 3).allowed and limiter.count("ws_count") == 1


# --- headers -------------------------------------------------------------------------------

def test_headers_parse_as_structured_fields(limiter):
    remaining = []
    for decision in _burst(limiter, "ws_a", 4, 6):
        fields = headers(decision)
        assert parse_sf_list(fields["RateLimit-Policy"]) == [("default", {"q": 4, "w": 60})]
        [(name, params)] = parse_sf_list(fields["RateLimit"])
        assert name == "default" and set(params) == {"r", "t"}
        remaining.append(params["r"])
        if decision.allowed:
            assert "Retry-After" not in fields and params["t"] == 60
        else:
            assert params["r"] == 0
            # Clients prefer Retry-After; it must not point earlier than t.
            assert int(fields["Retry-After"]) == params["t"] == decision.retry_after >= 1
    assert remaining == [3, 2, 1, 0, 0, 0]


def test_headers_exact_text():
    refused = Decision(allowed=False, limit=30, remaining=0, retry_after=17)
    assert headers(refused) == {
        "RateLimit-Policy": '"default";q=30;w=60',
        "RateLimit": '"default";r=0;t=17',
        "Retry-After": "17",
    }


# --- exactness under concurrency -----------------------------------------------------------

def test_concurrent_threads_admit_exactly_the_limit(store):
    barrier = threading.Barrier(100)

    def fire(_):
        barrier.wait()
        return store.hit("ws_a", NOW, 60, 30)[0]

    with ThreadPoolExecutor(max_workers=100) as pool:
        admitted = list(pool.map(fire, range(100)))
    assert sum(admitted) == 30
    assert store.hit("ws_a", NOW, 60, 30)[:2] == (False, 30)  # 30 recorded, not one more


_WORKER = """
import sys, threading, time
from fanout.ratelimit import RedisStore, open_store
url, prefix, now, start_at = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
store = RedisStore(url, prefix=prefix) if url.startswith("redis") else open_store(url)
results = []
def fire():
    while time.time() < start_at:
        time.sleep(0.001)
    try:
        results.append(int(store.hit("ws_a", now, 60, 30)[0]))
    except Exception as e:
        results.append(repr(e))
threads = [threading.Thread(target=fire) for _ in range(50)]
for t in threads: t.start()
for t in threads: t.join()
store.close()
errors = [r for r in results if not isinstance(r, int)]
print(sum(r for r in results if isinstance(r, int)), len(errors), errors[:1])
"""


def test_concurrent_processes_admit_exactly_the_limit(store_url):
    # Both processes wait for one instant, so their 50 threads each really overlap.
    start_at = str(time.time() + 1.5)
    env = loopback_guarded({**os.environ, "PYTHONPATH": str(ROOT)})
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, store_url, PREFIX, str(NOW), start_at],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=30) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    admitted = [int(out.split()[0]) for out, _ in outputs]
    assert [out.split()[1] for out, _ in outputs] == ["0", "0"], outputs
    assert sum(admitted) == 30


# --- failures and construction -------------------------------------------------------------

def test_unreachable_redis_raises_limiter_unavailable_quickly_without_password():
    store = RedisStore("redis://:s3cret@127.0.0.1:1/0")
    started = time.monotonic()
    with pytest.raises(LimiterUnavailable) as caught:
        store.hit("ws_a", NOW, 60, 30)
    store.close()
    assert time.monotonic() - started < 3
    assert "s3cret" not in str(caught.value)
    assert "127.0.0.1:1" in str(caught.value)


def test_sqlite_locked_past_its_timeout_raises_limiter_unavailable(tmp_path):
    path = str(tmp_path / "ratelimit.db")
    store = SqliteStore(path, timeout=0.2)
    store.hit("ws_a", NOW, 60, 30)  # creates the file and table
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(LimiterUnavailable, match="locked"):
            store.hit("ws_a", NOW, 60, 30)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()


def test_open_store_chooses_by_scheme(tmp_path):
    sqlite_store = open_store(f"sqlite:///{tmp_path / 'r.db'}")
    redis_store = open_store("rediss://:s3cret@127.0.0.1:1/0")
    assert isinstance(sqlite_store, SqliteStore) and isinstance(redis_store, RedisStore)
    sqlite_store.close()
    redis_store.close()


@pytest.mark.parametrize("url", ["postgresql://u:s3cret@db/x", "sqlite:///", "sqlite:///:memory:", "memory://"])
def test_open_store_rejects_other_urls_without_the_password(url):
    with pytest.raises(ValueError) as caught:
        open_store(url)
    assert "s3cret" not in str(caught.value)


# --- the stores' shape: one round trip, bounded, swept --------------------------------------

def test_a_lowered_limit_refuses_until_the_limit_th_newest_leaves(limiter, clock):
    # A plan change: 10 hits admitted, 5 at :00 and 5 at :30, then the limit drops to 5.
    _burst(limiter, "ws_a", 10, 5)
    clock.advance(seconds=30)
    _burst(limiter, "ws_a", 10, 5)
    clock.advance(seconds=10)
    refused = limiter.hit("ws_a", 5)
    # The :00 hits leaving (in 20 s) still leaves 5; the 5th newest leaves at 1:30, 50 s on.
    assert (refused.allowed, refused.retry_after) == (False, 50)
    assert not limiter.hit("ws_a", 10).allowed  # raised back: all 10 hits are still known
    clock.advance(seconds=49)
    assert not limiter.hit("ws_a", 5).allowed
    clock.advance(seconds=1)
    assert [d.allowed for d in _burst(limiter, "ws_a", 5, 6)] == [True] * 5 + [False]


def test_a_clock_stepped_back_records_the_newest_stamp_again(limiter, clock):
    limiter.hit("ws_a", 2)
    clock.advance(seconds=-10)
    assert limiter.hit("ws_a", 2).allowed  # recorded at the first hit's time, not 10 s before it
    clock.advance(seconds=69, milliseconds=999)
    assert not limiter.hit("ws_a", 2).allowed
    clock.advance(milliseconds=1)
    assert [d.allowed for d in _burst(limiter, "ws_a", 2, 3)] == [True, True, False]


def _sqlite_statements(store: SqliteStore) -> list[str]:
    traced: list[str] = []
    store._connection().set_trace_callback(traced.append)
    return traced


def test_sqlite_hit_is_one_statement(tmp_path):
    store = SqliteStore(str(tmp_path / "ratelimit.db"))
    store.hit("ws_a", NOW, 60, 3)
    traced = _sqlite_statements(store)
    for i in range(5):  # admitted, then refused: one UPSERT each, no BEGIN or COMMIT
        store.hit("ws_a", NOW + i, 60, 3)
    assert len(traced) == 5
    assert all(sql.lstrip().startswith("INSERT INTO ratelimit_log") for sql in traced)
    traced.clear()
    store.hit("ws_new", NOW + 5, 60, 3)  # a new key: the same statement, its sweep a trigger
    assert traced and all(sql.lstrip().startswith("INSERT INTO ratelimit_log") for sql in traced)
    store.close()


def _rows(path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT key, stamps FROM ratelimit_log"))


def test_sqlite_row_keeps_at_most_the_limit_of_stamps(tmp_path):
    path = tmp_path / "ratelimit.db"
    store = SqliteStore(str(path))
    for i in range(200):  # a hit every 2 s: 30 in each window, every one admitted
        assert store.hit("ws_a", NOW + 2 * i, 60, 30)[:2] == (True, 30 if i >= 29 else i + 1)
    store.close()
    stamps = _rows(path)["ws_a"]
    assert len(stamps) == 30 * 13
    assert stamps[-13:] == str(round((NOW + 398) * 1000))


def test_sqlite_stale_keys_are_swept_when_a_new_key_arrives(tmp_path):
    path = tmp_path / "ratelimit.db"
    store = SqliteStore(str(path))
    for i in range(50):
        store.hit(f"ws_{i}", NOW, 60, 30)
    store.hit("ws_busy", NOW + 30, 60, 30)
    store.hit("ws_0", NOW + 59.999, 60, 30)  # refused or not, a hit keeps its key's row
    store.hit("ws_late", NOW + 60, 60, 30)  # the 48 keys idle for a window go
    assert set(_rows(path)) == {"ws_busy", "ws_0", "ws_late"}
    store.close()


def test_sqlite_store_drops_the_previous_stores_table(tmp_path):
    path = tmp_path / "ratelimit.db"
    with sqlite3.connect(path) as old:  # a data folder written by the row-per-hit store
        old.execute("CREATE TABLE ratelimit_hits (key TEXT NOT NULL, ts INTEGER NOT NULL)")
        old.execute("CREATE INDEX ratelimit_hits_key_ts ON ratelimit_hits (key, ts)")
        old.executemany("INSERT INTO ratelimit_hits VALUES ('ws_a', ?)", [(round(NOW * 1000),)] * 30)
    old.close()
    store = SqliteStore(str(path))
    # Its counts are not carried over: the upgrade forgets at most one window of hits.
    assert store.hit("ws_a", NOW, 60, 30)[:2] == (True, 1)
    store.close()
    with sqlite3.connect(path) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert tables == {"ratelimit_log"}


def test_redis_hit_is_one_evalsha_and_its_list_is_bounded():
    _redis_or_skip()
    store = RedisStore(REDIS_URL, prefix=PREFIX)
    store.hit("ws_a", NOW, 60, 3)  # loads the script
    sent = []
    execute = store._redis.execute_command
    store._redis.execute_command = lambda *args, **kwargs: sent.append(args[0]) or execute(*args, **kwargs)
    for i in range(100):  # a hit every second: 3 admitted a minute
        store.hit("ws_a", NOW + i, 60, 3)
    assert sent == ["EVALSHA"] * 100
    client = redis.Redis.from_url(REDIS_URL)
    assert client.llen(PREFIX + "ws_a") == 3
    assert 0 < client.pttl(PREFIX + "ws_a") <= 60_000
    client.close()
    store.close()
