"""What the limiter adds to every authenticated request, on each store; prints its figures.

Run: python bench/bench_rate_limit.py [redis://127.0.0.1:6379/14]

For each store: one thread's latency per hit (median and p99), then the hits per second
that 8 threads get together (the API's thread pool hitting one workspace's key at once).
The limit is set high enough that every hit is admitted, so each one writes.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis

from fanout.ratelimit import Limiter, RedisStore, SqliteStore

HITS = 3000
THREADS = 8
LIMIT = 1_000_000
PREFIX = "fanout-bench:ratelimit:"


def latencies(limiter: Limiter, key: str, count: int) -> list[float]:
    out = []
    for _ in range(count):
        started = time.perf_counter()
        limiter.hit(key, LIMIT)
        out.append(time.perf_counter() - started)
    return out


def throughput(limiter: Limiter, key: str) -> float:
    per_thread = HITS // THREADS
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(lambda _: latencies(limiter, key, per_thread), range(THREADS)))
    return per_thread * THREADS / (time.perf_counter() - started)


def report(name: str, store) -> None:
    limiter = Limiter(store)
    times = sorted(latencies(limiter, "bench-one", HITS))
    p50, p99 = statistics.median(times), times[int(len(times) * 0.99)]
    rate = throughput(limiter, "bench-many")
    print(f"{name:<8} one thread: p50 {p50 * 1e6:7.0f} us, p99 {p99 * 1e6:7.0f} us   "
          f"{THREADS} threads: {rate:8.0f} hits/s")
    store.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        report("sqlite", SqliteStore(str(Path(folder) / "limiter.db")))
    url = sys.argv[1] if len(sys.argv) > 1 else "redis://127.0.0.1:6379/14"
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.RedisError as e:  # a machine without Redis still gets the SQLite figures
        print(f"redis    skipped: {e}")
        return
    try:
        report("redis", RedisStore(url, prefix=PREFIX))
    finally:
        for key in client.scan_iter(PREFIX + "*"):
            client.delete(key)


if __name__ == "__main__":
    main()
