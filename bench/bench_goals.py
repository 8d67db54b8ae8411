"""Every performance goal of docs/architecture.md and bench/README.md in one run; prints a table.

Run: python bench/bench_goals.py [--backend sqlite|postgresql|both] [--only NAME ...]
                                 [--events 1000000] [--million 1000000] [--requests 100000] ...

PostgreSQL + Redis (`--backend postgresql` or `both`): FANOUT_DATABASE_URL names a scratch
database (emptied by the benches: its name must contain `test` or `bench`) and
FANOUT_QUEUE_URL a Redis db (flushed by bench_schedule.py).

It runs each bench of this folder as a process of its own, one after the other, each bounded
in time (past its bound it is interrupted, then killed), keeps its whole output in
`--out` (a folder; a temporary one by default) and reads the figures from what it printed:

| name | bench | goal |
|---|---|---|
| api | bench_api.py --backend B | upload >= 0.7 and get >= 0.8 of reference_app.py on the embedded default, >= 0.6 each on PostgreSQL + Redis (median of the runs' ratios of requests/s) |
| schedule | bench_schedule.py --backend B | p99 lateness of posts falling due at 20 a second: <= 1 s embedded, <= 2 s PostgreSQL + Redis |
| events | bench_events.py | a first page of GET /v1/events through HTTP at 1M events: p50 <= 5 ms |
| latency | bench_latency.py (embedded) | upload to webhook p99 <= 300 ms, steady and after 60 s idle |
| memory | bench_memory.py (embedded) | the API's RSS <= 150 MB after 100,000 requests |

Nothing is written in here but the bounds: every figure is one the benches measured in this
run. A run shortened by an option (fewer events, a smaller million, fewer requests, a shorter
idle) says so next to its figure. Each row says the load average of the machine when its
bench ended: the benches share the CPU with whatever else runs. Exits 1 when a bench failed
or printed no figure, 0 otherwise (a missed goal is a figure, not a failure).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NAMES = ("api", "schedule", "events", "latency", "memory")
MB = 1_000_000 / 2**20  # MiB in one MB


@dataclass
class Row:
    goal: str
    backend: str
    figure: str
    met: bool | None  # None: no figure
    note: str = ""


@dataclass
class Run:
    """One bench process: its command, output, exit status, time and the load when it ended."""

    name: str
    backend: str
    command: list[str]
    returncode: int | None = None
    output: str = ""
    seconds: float = 0.0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rows: list[Row] = field(default_factory=list)


def load_average() -> tuple[float, float, float]:
    return os.getloadavg()


def run_bench(name: str, backend: str, command: list[str], env: dict, bound: float, out: Path) -> Run:
    """Run one bench, its output to `out/<name>-<backend>.log` and kept; bounded by `bound` s:
    then SIGINT (each bench stops what it started on Ctrl-C), 30 s later SIGKILL."""
    run = Run(name, backend, command)
    log = out / f"{name}-{backend}.log"
    print(f"== {name} [{backend}]: {' '.join(command[1:])} (bound {bound:.0f} s; load {fmt_load(load_average())})",
          flush=True)
    started = time.monotonic()
    with log.open("w") as sink:
        proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            run.returncode = proc.wait(bound)
        except subprocess.TimeoutExpired:
            print(f"   {name} [{backend}] passed its bound of {bound:.0f} s: interrupted", flush=True)
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            run.returncode = None
        except BaseException:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
            raise
    run.seconds = time.monotonic() - started
    run.load = load_average()
    run.output = log.read_text(errors="replace")
    print(f"   done in {run.seconds:.0f} s, exit {run.returncode}, load {fmt_load(run.load)}; output in {log}",
          flush=True)
    return run


def fmt_load(load: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)


# --- reading the figures --------------------------------------------------------------------

NUMBER = r"([0-9]+(?:\.[0-9]+)?)"


def api_rows(run: Run, runs: int, seconds: int, warmup: int = 2) -> list[Row]:
    """bench_api.py's report: a `fanout/ref` line per endpoint: each run's ratio, median, min
    (and the CPU ratio)."""
    bounds = {"sqlite": {"upload": 0.7, "get": 0.8}, "postgresql": {"upload": 0.6, "get": 0.6}}[run.backend]
    rows = []
    for mode, label in (("upload", "POST /v1/upload"), ("get", "GET /v1/posts/{id}")):
        goal = f"{mode} >= {bounds[mode]} of the reference's req/s (median of runs)"
        found = re.search(rf"^{re.escape(label)}\s+fanout/ref\s+(.*)$", run.output, re.MULTILINE)
        if not found:
            rows.append(Row(goal, run.backend, "no figure", None))
            continue
        values = [float(x) for x in found.group(1).split()]
        # run ratios..., median, min, CPU ratio
        median, low, cpu = values[-3], values[-2], values[-1]
        rates = re.findall(rf"^{re.escape(label)}\s+(fanout|reference)\s+(.*)$", run.output, re.MULTILINE)
        cpu_us = {server: rest.split()[-1] for server, rest in rates}
        rows.append(Row(goal, run.backend, f"{median:.2f}", median >= bounds[mode],
                        f"runs {', '.join(f'{v:.2f}' for v in values[:-3])}; min {low:.2f}; CPU/request "
                        f"fanout {cpu_us.get('fanout', '?')} us, reference {cpu_us.get('reference', '?')} us "
                        f"(ratio {cpu:.2f})" + (f"; SHORTENED: {runs} runs of {seconds} s after {warmup} s of "
                                                f"warm-up, not 3 of 10 after 2"
                                                if (runs, seconds, warmup) != (3, 10, 2) else "")))
    return rows


def schedule_rows(run: Run, million: int, seconds: int) -> list[Row]:
    bound = 1000 if run.backend == "sqlite" else 2000
    goal = f"scheduled posts' p99 lateness at 20 due/s <= {bound // 1000} s"
    found = re.search(rf"lateness .*?: (\d+) of (\d+) published, p50 {NUMBER} ms, p99 {NUMBER} ms, max {NUMBER} ms; "
                      rf"(\d+) published before", run.output)
    if not found:
        return [Row(goal, run.backend, "no figure", None)]
    published, count, p50, p99, top, early = found.groups()
    queue = re.search(r"the queue holds (\d+) task", run.output)
    note = (f"{published} of {count} published, p50 {p50} ms, max {top} ms, {early} early; "
            f"{million:,} other posts scheduled" + (f" (the queue held {queue.group(1)} tasks after a sweep)"
                                                    if queue else ""))
    if seconds != 30:
        note = f"SHORTENED: {seconds} s of posts falling due, not 30; " + note
    met = float(p99) <= bound and published == count and early == "0"
    return [Row(goal, run.backend, f"{float(p99):.0f} ms", met, note)]


def events_rows(run: Run, events: int) -> list[Row]:
    goal = "events page through HTTP at 1M events p50 <= 5 ms"
    _, _, http = run.output.partition("Through HTTP")
    pages = re.findall(rf"^\s+(.+?)\s+p50\s+{NUMBER} ms\s+p99\s+{NUMBER} ms", http, re.MULTILINE)
    first = [(label, p50, p99) for label, p50, p99 in pages if label.startswith("first page")]
    if not first:
        return [Row(goal, run.backend, "no figure", None)]
    _, p50, p99 = first[0]
    others = [(float(p50_), label) for label, p50_, _ in pages if not label.startswith(("first page", "GET /v1/webhooks"))]
    worst = max(others) if others else None
    baseline = [p50_ for label, p50_, _ in pages if label.startswith("GET /v1/webhooks")]
    note = f"first page p99 {p99} ms"
    if worst:
        note += f"; slowest other page p50 {worst[0]:.2f} ms ({worst[1]})"
    if baseline:
        note += f"; an empty GET /v1/webhooks p50 {baseline[0]} ms"
    if events != 1_000_000:
        note = f"SHORTENED: {events:,} events, not 1M; " + note
    return [Row(goal, run.backend, f"{float(p50):.2f} ms", float(p50) <= 5.0, note)]


def latency_rows(run: Run, seconds: int, idle: float, trials: int) -> list[Row]:
    steady = (r"^steady at .*?: (\d+) posts, p50 (\d+) ms, p99 (\d+) ms, max (\d+) ms",
              f"SHORTENED: {seconds} s at 20/s, not 30" if seconds != 30 else "")
    after_idle = (r"^after .*? idle: (\d+) posts, p50 (\d+) ms, p99 (\d+) ms, max (\d+) ms",
                  f"{trials} trials" + (f"; SHORTENED: {idle:g} s idle, not 60" if idle != 60 else ""))
    rows = []
    for goal, (pattern, note) in (("upload to webhook p99 <= 300 ms, steady at 20/s", steady),
                                  ("upload to webhook p99 <= 300 ms after 60 s idle", after_idle)):
        found = re.search(pattern, run.output, re.MULTILINE)
        if not found:
            rows.append(Row(goal, run.backend, "no figure", None))
            continue
        count, p50, p99, top = found.groups()
        rows.append(Row(goal, run.backend, f"{p99} ms", int(p99) <= 300,
                        ", ".join(filter(None, [note, f"{count} posts, p50 {p50} ms, max {top} ms"]))))
    return rows


def memory_rows(run: Run, requests: int) -> list[Row]:
    goal = "API RSS <= 150 MB after 100,000 requests"
    found = re.search(r"fanout api after (\d+) requests in (\d+) s: RSS (\d+) MiB \(at start (\d+)\), peak (\d+) MiB",
                      run.output)
    if not found:
        return [Row(goal, run.backend, "no figure", None)]
    done, seconds, rss, start, peak = (int(x) for x in found.groups())
    note = f"{done:,} requests in {seconds} s; {start} MiB at start, peak {peak} MiB"
    if requests < 100_000:
        note = f"SHORTENED: {requests:,} requests asked; " + note
    return [Row(goal, run.backend, f"{rss / MB:.0f} MB ({rss} MiB)", rss / MB <= 150, note)]


# --- the table ------------------------------------------------------------------------------

def table(runs: list[Run]) -> str:
    lines = ["| goal | backend | figure | | load at its end | details |", "|---|---|---:|---|---|---|"]
    for run in runs:
        rows = run.rows or [Row(run.name, run.backend, "no figure", None)]
        for row in rows:
            verdict = {True: "met", False: "**missed**", None: "**no figure**"}[row.met]
            if run.returncode != 0 and row.met is not None:
                verdict += f" (the bench exited {run.returncode})"
            lines.append(f"| {row.goal} | {BACKEND_NAMES[row.backend]} | {row.figure} | {verdict} | "
                         f"{fmt_load(run.load)} | {row.note} |")
    return "\n".join(lines)


BACKEND_NAMES = {"sqlite": "embedded", "postgresql": "PostgreSQL + Redis"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="sqlite")
    parser.add_argument("--only", nargs="+", choices=NAMES, default=list(NAMES), help="the benches to run")
    parser.add_argument("--runs", type=int, default=3, help="bench_api.py: runs of each server")
    parser.add_argument("--seconds", type=int, default=10, help="bench_api.py: measured seconds of a run")
    parser.add_argument("--warmup", type=int, default=2, help="bench_api.py: unmeasured seconds before a run")
    parser.add_argument("--million", type=int, default=1_000_000, help="bench_schedule.py: posts scheduled in bulk")
    parser.add_argument("--schedule-seconds", type=int, default=30, help="bench_schedule.py: seconds posts fall due")
    parser.add_argument("--schedule-lead", type=float, default=5.0,
                        help="bench_schedule.py: seconds to spare before the first post falls due")
    parser.add_argument("--events", type=int, default=1_000_000, help="bench_events.py: events in the workspace")
    parser.add_argument("--event-requests", type=int, default=200, help="bench_events.py: requests of each page")
    parser.add_argument("--latency-seconds", type=int, default=30, help="bench_latency.py: seconds at 20 posts/s")
    parser.add_argument("--idle", type=float, default=60.0, help="bench_latency.py: seconds idle before a trial")
    parser.add_argument("--trials", type=int, default=5, help="bench_latency.py: idle trials")
    parser.add_argument("--requests", type=int, default=100_000, help="bench_memory.py: requests before reading RSS")
    parser.add_argument("--memory-round", type=int, default=20, help="bench_memory.py: seconds of one wrk run")
    parser.add_argument("--workspaces", type=int,
                        help="bench_api.py and bench_memory.py: workspaces the keys rotate over (default: each one's)")
    parser.add_argument("--out", type=Path, help="folder for each bench's output (default: a temporary one, kept)")
    args = parser.parse_args(argv)
    if args.events < 1000 or args.million < 0 or args.requests < 1 or args.trials < 1 or args.idle <= 0:
        parser.error("--events at least 1000, --million 0 or more, --requests, --trials and --idle above 0")

    base_env = {k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")}
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    pg_env = {}
    if "postgresql" in backends:
        database, queue = os.environ.get("FANOUT_DATABASE_URL", ""), os.environ.get("FANOUT_QUEUE_URL", "")
        if not database.startswith("postgresql://") or not queue.startswith("redis://"):
            parser.error("PostgreSQL needs FANOUT_DATABASE_URL=postgresql://... and FANOUT_QUEUE_URL=redis://...")
        name = urlsplit(database).path.lstrip("/")
        if "test" not in name and "bench" not in name:
            parser.error(f"the benches empty the database they run on; {name!r} does not look like a scratch one")
        pg_env = {"FANOUT_DATABASE_URL": database, "FANOUT_QUEUE_URL": queue}
    if ("api" in args.only or "memory" in args.only) and not shutil.which("wrk"):
        parser.error("bench_api.py and bench_memory.py need wrk (apt-get install wrk)")
    out = args.out or Path(tempfile.mkdtemp(prefix="fanout-goals-"))
    out.mkdir(parents=True, exist_ok=True)

    python = sys.executable
    workspaces = ["--workspaces", args.workspaces] if args.workspaces else []
    started = time.monotonic()
    print(f"bench_goals: {' '.join(sys.argv[1:]) or '(defaults)'}; load {fmt_load(load_average())}; "
          f"{os.cpu_count()} CPUs; output in {out}", flush=True)
    runs: list[Run] = []

    def bench(name: str, backend: str, script: str, options: list, bound: float, rows) -> None:
        env = {**base_env, **(pg_env if backend == "postgresql" else {})}
        run = run_bench(name, backend, [python, str(HERE / script), *map(str, options)], env, bound, out)
        run.rows = rows(run)
        runs.append(run)

    try:
        for backend in backends:
            if "api" in args.only:
                # prepare, then per run 2 endpoints x 2 servers x (warm-up + the run)
                bound = 300 + args.runs * 4 * (args.seconds + args.warmup + 15) * 2
                bench("api", backend, "bench_api.py", ["--backend", backend, "--runs", args.runs, "--seconds",
                                                       args.seconds, "--warmup", args.warmup, *workspaces], bound,
                      lambda run: api_rows(run, args.runs, args.seconds, args.warmup))
            if "schedule" in args.only:
                bound = 300 + args.million / 5000 + args.schedule_seconds * 3 + args.schedule_lead
                bench("schedule", backend, "bench_schedule.py",
                      ["--backend", backend, "--million", args.million, "--seconds", args.schedule_seconds,
                       "--lead", args.schedule_lead], bound,
                      lambda run: schedule_rows(run, args.million, args.schedule_seconds))
            if "events" in args.only:
                # the fill (~ 6,000 events a second on this machine), then ~ 8 x requests paced to 580 a minute
                bound = 300 + args.events * 1.1 / 2000 + 8 * args.event_requests / 580 * 62 * 2
                bench("events", backend, "bench_events.py", ["--events", args.events, "--requests",
                                                             args.event_requests], bound,
                      lambda run: events_rows(run, args.events))
        if "sqlite" in backends:
            if "latency" in args.only:
                bound = 300 + args.latency_seconds * 2 + args.trials * (args.idle + 15)
                bench("latency", "sqlite", "bench_latency.py", ["--seconds", args.latency_seconds, "--idle", args.idle,
                                                                "--trials", args.trials], bound,
                      lambda run: latency_rows(run, args.latency_seconds, args.idle, args.trials))
            if "memory" in args.only:
                bound = 300 + args.requests / 100 * 1.5 + args.memory_round * 2
                bench("memory", "sqlite", "bench_memory.py", ["--requests", args.requests, "--round", args.memory_round,
                                                              *workspaces, "--no-worker"], bound,
                      lambda run: memory_rows(run, args.requests))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

    print()
    print(f"All in {time.monotonic() - started:.0f} s; load at the end {fmt_load(load_average())}.")
    print()
    print(table(runs))
    bad = [run for run in runs if run.returncode != 0 or any(row.met is None for row in run.rows)]
    for run in bad:
        print(f"\n{run.name} [{run.backend}] exited {run.returncode}; the end of its output:\n"
              f"{run.output[-1500:]}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
