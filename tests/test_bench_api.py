"""bench/bench_api.py runs end to end, with each load generator, both servers taking turns
over two runs; its figures are not asserted (they depend on the machine and what else runs
on it), only that each is there."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import EXTERNAL_DATABASE_URL, EXTERNAL_QUEUE_URL

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_api.py"


@pytest.mark.slow
@pytest.mark.parametrize("generator, seconds", [
    # wrk takes whole seconds; the asyncio generator as little as the bench allows.
    pytest.param("wrk", "1", id="wrk",
                 marks=pytest.mark.skipif(shutil.which("wrk") is None, reason="needs wrk (apt-get install wrk)")),
    pytest.param("python", "0.1", id="python"),
])
def test_the_api_bench_runs_both_servers_and_prints_the_ratios(generator, seconds):
    env = dict(os.environ)
    backend = "sqlite"
    if EXTERNAL_DATABASE_URL and (EXTERNAL_QUEUE_URL or "").startswith("redis://"):
        # The suite's PostgreSQL, which every test empties anyway, and its Redis db.
        backend = "postgresql"
        env["FANOUT_DATABASE_URL"], env["FANOUT_QUEUE_URL"] = EXTERNAL_DATABASE_URL, EXTERNAL_QUEUE_URL
    # 20 workspaces keep even a fast reference under each one's 600 requests a minute.
    run = subprocess.run(
        [sys.executable, str(BENCH), "--backend", backend, "--generator", generator, "--runs", "2",
         "--seconds", seconds, "--warmup", "0", "--workspaces", "20", "--connections", "4"],
        capture_output=True, text=True, timeout=180, env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split() for line in run.stdout.splitlines()]
    for label in ("/v1/upload", "/v1/posts/{id}"):
        servers = {row[2]: row[3:] for row in rows if len(row) > 3 and row[1] == label}
        assert set(servers) == {"fanout", "reference", "fanout/ref"}, run.stdout
        # Each server: two runs' req/s, their median and minimum, p50, p99, CPU per request.
        assert all(len(servers[name]) == 7 and float(servers[name][0]) > 0 and float(servers[name][1]) > 0
                   for name in ("fanout", "reference")), run.stdout
        # The ratios: of each run, their median and minimum, and of the CPU per request.
        assert len(servers["fanout/ref"]) == 5 and all(float(x) > 0 for x in servers["fanout/ref"]), run.stdout
