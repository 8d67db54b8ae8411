"""bench/bench_goals.py runs every bench of the goals and reads a figure from each: a bench
whose printed lines drift from what it reads shows up here as a row without a figure. The
figures themselves are not asserted (they depend on the machine), only that each is there
and that a shortened run says so."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_goals.py"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("wrk") is None, reason="needs wrk (apt-get install wrk)")
def test_the_goals_bench_prints_a_figure_for_every_goal(tmp_path):
    # Each part at the least that still runs it through: one wrk second of each load, one
    # second of posts falling due or sent, one request of each page, one round of wrk.
    run = subprocess.run(
        [sys.executable, str(BENCH), "--backend", "sqlite", "--runs", "1", "--seconds", "1", "--warmup", "0",
         "--workspaces", "20", "--million", "100", "--schedule-seconds", "1", "--schedule-lead", "1",
         "--events", "1000", "--event-requests", "1", "--latency-seconds", "1", "--idle", "0.1", "--trials", "1",
         "--requests", "1", "--memory-round", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("| ") and "| embedded |" in line]
    goals = ["upload >=", "get >=", "lateness", "events page", "p99 <= 300 ms, steady", "after 60 s idle",
             "API RSS"]
    for goal in goals:
        found = [row for row in rows if goal in row]
        assert len(found) == 1, run.stdout
        assert "| met |" in found[0] or "| **missed** |" in found[0], found[0]
    # Every part was shortened here, and the table says so for each goal measured at a lower scale.
    assert sum("SHORTENED" in row for row in rows) == len(goals), run.stdout
