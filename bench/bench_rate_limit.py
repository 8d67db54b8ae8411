"""What the limiter adds to every authenticated request, on each store; prints its figures.

Run: python bench/bench_rate_limit.py [redis://127.0.0.1:6379/14]

For each store and case: one thread's latency per hit (median and p99), then the hits per
second that 8 threads get together (the API's thread pool hitting one workspace's key at
once). Every hit is admitted, so each one writes. Cases:

- `1e6/min`: a limit of a million on the real clock, so the window holds every hit so far
  (up to 3,000 per key): the store's worst case, not a plan's.
- `600/min` and `30/min` (the plans' largest and smallest): a clock that moves a minute
  per `limit` hits, so the window always holds the whole quota, as for a workspace that
  uses all of it.
"""
from __future__ import annotations

import datetime as dt
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis

from fanout.ratelimit import WINDOW, Limiter, RedisStore, SqliteStore
from fanout.times import utcnow

HITS = 3000
THREADS = 8
PREFIX = "fanout-bench:ratelimit:"


class Steady:
    """A clock that moves one window per `limit` reads, so every hit is just admitted."""

    def __init__(self, limit: int) -> None:
        self.step = dt.timedelta(seconds=WINDOW) / limit
        self.now = dt.datetime(2026, 11, 22, 10, 0, 0)
        self.lock = threading.Lock()

    def __call__(self) -> dt.datetime:
        with self.lock:
            self.now += self.step
            return self.now


def latencies(limiter: Limiter, key: str, limit: int, count: int) -> list[float]:
    out = []
    for _ in range(count):
        started = time.perf_counter()
        limiter.hit(key, limit)
        out.append(time.perf_counter() - started)
    return out


def throughput(limiter: Limiter, key: str, limit: int) -> float:
    per_thread = HITS // THREADS
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(lambda _: latencies(limiter, key, limit, per_thread), range(THREADS)))
    return per_thread * THREADS / (time.perf_counter() - started)


def report(name: str, open_store) -> None:
    for case, limit, clock in [("1e6/min", 1_000_000, utcnow), ("600/min", 600, Steady(600)), ("30/min", 30, Steady(30))]:
        store = open_store()
        limiter = Limiter(store, clock)
        times = sorted(latencies(limiter, "bench-one", limit, HITS))
        p50, p99 = statistics.median(times), times[int(len(times) * 0.99)]
        rate = throughput(limiter, "bench-many", limit)
        print(f"{name:<6} {case:<8} one thread: p50 {p50 * 1e6:5.0f} us, p99 {p99 * 1e6:6.0f} us   "
              f"{THREADS} threads: {rate:6.0f} hits/s", flush=True)
        store.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = iter(range(100))
        report("sqlite", lambda: SqliteStore(str(Path(folder) / f"limiter{next(paths)}.db")))
    url = sys.argv[1] if len(sys.argv) > 1 else "redis://127.0.0.1:6379/14"
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.RedisError as e:  # a machine without Redis still gets the SQLite figures
        print(f"redis    skipped: {e}")
        return

    def fresh() -> RedisStore:
        for key in client.scan_iter(PREFIX + "*"):
            client.delete(key)
        return RedisStore(url, prefix=PREFIX)

    try:
        report("redis", fresh)
    finally:
        for key in client.scan_iter(PREFIX + "*"):
            client.delete(key)


if __name__ == "__main__":
    main()
