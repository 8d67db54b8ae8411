"""Memory of a long-running API process and of a worker; prints it.

Run: python bench/bench_memory.py [--requests 100000] [--connections 16] [--round 20]

Prepares a data folder as bench_api.py does (`--workspaces` BUSINESS workspaces, keys,
sandbox accounts), serves it with `fanout api` (one process) and loads it with wrk, uploads
and gets in turn, `--round` s at a time, until `--requests` requests were answered; then reads the
API process's resident memory (VmRSS, and its peak VmHWM). Then a `fanout worker` (the
default 4 threads) publishes every sandbox post those uploads made, and its memory is read
the same way once the queue is empty (`--no-worker`: not). Linux only (/proc); needs wrk.
"""
from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_api import Load, Processes, free_port, prepare, server_env, wait_ready, write_fixtures  # noqa: E402


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(value.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def pending_targets(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "fanout.db") as conn:
        return conn.execute("select count(*) from target where status in ('pending', 'processing')").fetchone()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workspaces", type=int, default=200)
    parser.add_argument("--round", type=int, default=20, help="seconds of one wrk run (whole seconds, as wrk takes)")
    parser.add_argument("--no-worker", action="store_true", help="the API process only: no worker publishing after")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        parser.error("wrk is not installed (apt-get install wrk)")
    if not 1 <= args.requests <= 2_000_000 or not 1 <= args.round <= 600:
        parser.error("--requests is 1 to 2,000,000, --round 1 to 600")

    procs = Processes()
    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as tmp:
        folder = Path(tmp)
        data_dir = folder / "data"
        env = server_env(data_dir)
        try:
            fixtures = prepare(env, args.workspaces)
            fixtures_file = write_fixtures(folder, fixtures)
            port = free_port()
            log = folder / "api.log"
            with log.open("w") as out:
                api = procs.start([sys.executable, "-m", "fanout", "api", "--host", "127.0.0.1", "--port", str(port)],
                                  env=env, stdout=out, stderr=subprocess.STDOUT)
            wait_ready(api, port, log)
            start_rss, _ = memory_mb(api.pid)
            done, uploads, rounds = 0, 0, 0
            started = time.monotonic()
            while done < args.requests:
                mode = "upload" if rounds % 2 == 0 else "get"
                # Each workspace may make 600 requests a minute: wait out a minute's quota.
                result = Load("wrk", folder, mode, fixtures, fixtures_file, args.connections).run(procs, port, args.round)
                if result.bad_status or result.socket_errors:
                    raise SystemExit(f"{result.bad_status} refused or failed answers, {result.socket_errors} socket "
                                     f"errors: raise --workspaces")
                done += result.requests
                uploads += result.requests if mode == "upload" else 0
                rounds += 1
                rss, peak = memory_mb(api.pid)
                print(f"  {done:>8} requests ({mode} {result.rate:.0f} req/s): API RSS {rss:.0f} MiB, peak {peak:.0f}",
                      flush=True)
            rss, peak = memory_mb(api.pid)
            print(f"fanout api after {done} requests in {time.monotonic() - started:.0f} s: RSS {rss:.0f} MiB "
                  f"(at start {start_rss:.0f}), peak {peak:.0f} MiB")
            procs.stop(api)
            if args.no_worker:
                return 0

            with (folder / "worker.log").open("w") as out:
                worker = procs.start([sys.executable, "-m", "fanout", "worker"], env=env, stdout=out,
                                     stderr=subprocess.STDOUT)
            started, deadline = time.monotonic(), time.monotonic() + 1800
            while (left := pending_targets(data_dir)) and time.monotonic() < deadline:
                time.sleep(2)
            rss, peak = memory_mb(worker.pid)
            print(f"fanout worker after publishing {uploads} posts in {time.monotonic() - started:.0f} s "
                  f"({left} left): RSS {rss:.0f} MiB, peak {peak:.0f} MiB")
        except KeyboardInterrupt:
            return 130
        finally:
            procs.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
