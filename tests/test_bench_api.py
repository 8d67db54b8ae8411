"""bench/bench_api.py runs end to end, with each load generator; its figures are not asserted
(they depend on the machine and what else runs on it)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import EXTERNAL_DATABASE_URL

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_api.py"


@pytest.mark.slow
@pytest.mark.parametrize("generator", [
    pytest.param("wrk", marks=pytest.mark.skipif(shutil.which("wrk") is None, reason="needs wrk (apt-get install wrk)")),
    "python",
])
def test_the_api_bench_runs_both_servers_and_prints_the_ratios(generator):
    env = dict(os.environ)
    backend = "sqlite"
    if EXTERNAL_DATABASE_URL:  # the suite's PostgreSQL, which every test empties anyway
        backend, env["FANOUT_DATABASE_URL"] = "postgresql", EXTERNAL_DATABASE_URL
    # 20 workspaces keep even a fast reference under each one's 600 requests a minute.
    run = subprocess.run(
        [sys.executable, str(BENCH), "--backend", backend, "--generator", generator, "--seconds", "1",
         "--warmup", "0", "--workspaces", "20", "--connections", "4"],
        capture_output=True, text=True, timeout=180, env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split() for line in run.stdout.splitlines()]
    for label in ("/v1/upload", "/v1/posts/{id}"):
        servers = {row[2]: row[3:] for row in rows if len(row) > 3 and row[1] == label}
        assert set(servers) == {"fanout", "reference", "fanout/ref"}, run.stdout
        assert all(float(servers[name][0]) > 0 for name in ("fanout", "reference")), run.stdout
