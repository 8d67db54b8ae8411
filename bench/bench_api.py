"""Fanout's API against a bare reference doing the same work; prints the figures and ratios.

Run: python bench/bench_api.py [--backend sqlite|postgresql|both] [--runs 3] [--seconds 10] [--connections 16]

For each backend, prepares a data folder in a temporary directory with Fanout's own code
(`migrate`, then --workspaces BUSINESS workspaces, each with a sandbox key, a sandbox X
account and one post), then serves it with `fanout api` and with bench/reference_app.py
(which shares no code with Fanout), one process each on a free loopback port, both up for
the whole backend. Then --runs times, for `POST /v1/upload` (sandbox posts with one target)
and `GET /v1/posts/{id}`, it loads one server then the other (the order alternates from run
to run) with the same generator: `wrk` with a Lua script rotating the keys and account or
post ids when it is installed, else an asyncio generator in this process (--generator). It
prints each run's requests/s, p50 and p99, and the ratios Fanout/reference of each run with
their minimum and median.

Backends: `sqlite` is the embedded default (SQLite data, queue and limiter files in the
data folder); `postgresql` is the scale-out one, the database FANOUT_DATABASE_URL names
and the Redis FANOUT_QUEUE_URL names, for both servers. The database is emptied first, so
its name must contain `test` or `bench`; the bench deletes only its own keys in Redis.

Every run is bounded (--warmup, whole seconds, and --seconds, whole with wrk, plus 60 s to
start a server); every process started here is stopped when it ends, on an error and on
Ctrl-C.
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import sqlite3
import subprocess
import sys
import tempfile
import time
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
PLAN = "BUSINESS"  # 600 requests a minute a workspace: 100 of them serve 1,000 req/s unlimited
CAPTION = "Fanout bench"
STARTUP_TIMEOUT = 60.0

WRK_SCRIPT = r"""
-- args: fixtures file (lines "key account_id post_id"), then "upload" or "get".
local started = 0
function setup(thread)
  -- Threads start at different rows so they do not send the same key in step.
  thread:set("offset", started * 37)
  started = started + 1
end

function init(args)
  rows, mode, n = {}, args[2], offset or 0
  for line in io.lines(args[1]) do
    local key, account, post = line:match("(%S+) (%S+) (%S+)")
    rows[#rows + 1] = {key, account, post}
  end
end

function request()
  n = n + 1
  local row = rows[n % #rows + 1]
  local headers = {["Authorization"] = "Bearer " .. row[1]}
  if mode == "upload" then
    headers["Content-Type"] = "application/json"
    return wrk.format("POST", "/v1/upload", headers,
      '{"caption":"CAPTION","account_ids":["' .. row[2] .. '"]}')
  end
  return wrk.format("GET", "/v1/posts/" .. row[3], headers)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH %d %d %d %d %d %d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
""".replace("CAPTION", CAPTION)


@dataclass(frozen=True)
class Fixture:
    key: str
    account_id: str
    post_id: str


@dataclass(frozen=True)
class Result:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    bad_status: int  # answers of 4xx/5xx (wrk counts over 399)
    socket_errors: int
    cpu_us: float = 0.0  # the server process's CPU time (user + system) per answered request

    def with_cpu(self, seconds: float) -> "Result":
        return dataclasses.replace(self, cpu_us=seconds * 1e6 / self.requests if self.requests else 0.0)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


# --- the data folder ------------------------------------------------------------------


def _check_postgresql(url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    if "test" not in name and "bench" not in name:
        raise SystemExit(f"bench_api empties the database it runs on; {name!r} does not look like a scratch one "
                         "(its name must contain 'test' or 'bench')")


def prepare(env: dict, workspaces: int) -> list[Fixture]:
    """Migrate, then make the workspaces, keys, accounts and posts with Fanout's own code."""
    saved = dict(os.environ)
    for name in [name for name in os.environ if name.startswith("FANOUT_")]:
        del os.environ[name]  # only what `env` sets: a backend's URLs stay out of another's
    os.environ.update(env)
    try:
        from fanout.boot import boot
        from fanout.models import MODELS, db
        from fanout.models.api_key import create_key
        from fanout.models.connect_session import consume_session, start_session
        from fanout.models.sandbox_account import connect_sandbox_account
        from fanout.models.schema import migrate
        from fanout.models.upload import create_post, draft_from_request
        from fanout.models.workspace import create_workspace
        from fanout.settings import Settings

        rt = boot(Settings.from_env())
        migrate()
        fixtures = []
        with db.connection_context():
            if not rt.settings.database_url.startswith("sqlite"):
                db.execute_sql("TRUNCATE " + ", ".join(f'"{m._meta.table_name}"' for m in MODELS) + " CASCADE")
            for i in range(workspaces):
                workspace = create_workspace(rt, f"bench {i}", PLAN)
                _, key = create_key(rt, workspace.id, "sandbox")
                token = start_session(rt, workspace.id, platform="x", sandbox=True, redirect_url=None)
                account = connect_sandbox_account(rt, consume_session(rt, token, "x"))
                draft = draft_from_request({"caption": CAPTION, "account_ids": [account.id]}, "sandbox")
                post, _ = create_post(rt, workspace.id, draft)
                fixtures.append(Fixture(key, account.id, post.id))
        db.close_all()
        rt.queue.storage.close()
        return fixtures
    finally:
        os.environ.clear()
        os.environ.update(saved)


def server_env(data_dir: Path, backend: "Backend | None" = None) -> dict:
    """This process's environment for a server on `data_dir`, without the caller's FANOUT_
    settings (each server gets only what the bench sets)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")}
    env["FANOUT_DATA_DIR"] = str(data_dir)
    if backend is not None and backend.database_url:
        env["FANOUT_DATABASE_URL"], env["FANOUT_QUEUE_URL"] = backend.database_url, backend.queue_url
    return env


def write_fixtures(folder: Path, fixtures: list[Fixture]) -> Path:
    """The fixtures as the wrk script reads them: a line `key account_id post_id` each."""
    path = folder / "fixtures.txt"
    path.write_text("".join(f"{f.key} {f.account_id} {f.post_id}\n" for f in fixtures))
    return path


@dataclass(frozen=True)
class Backend:
    """Where both servers keep their data: SQLite files in the data folder (no URLs), or a
    PostgreSQL database and a Redis db."""

    name: str
    database_url: str | None = None
    queue_url: str | None = None

    def reference_args(self, data_dir: Path) -> list[str]:
        if self.database_url:
            return ["--database", self.database_url, "--queue", self.queue_url]
        return ["--database", str(data_dir / "fanout.db"), "--queue", str(data_dir / "reference-queue.db")]

    def reset(self, data_dir: Path) -> None:
        """Empty both servers' rate-limit counts and queues, so each run starts alike and no
        workspace carries hits of the previous run into its window."""
        if self.queue_url:
            import redis

            conn = redis.Redis.from_url(self.queue_url)
            try:
                for pattern in REDIS_KEYS:
                    keys = list(conn.scan_iter(match=pattern, count=1000))
                    if keys:
                        conn.delete(*keys)
            finally:
                conn.close()
            return
        for name, table in SQLITE_TABLES:
            path = data_dir / name
            if path.exists():
                conn = sqlite3.connect(path, timeout=10)
                try:
                    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
                        conn.execute(f"DELETE FROM {table}")
                        conn.commit()
                finally:
                    conn.close()


# What `fanout api` and the reference count requests and queue tasks in.
SQLITE_TABLES = (("limiter.db", "ratelimit_log"), ("queue.db", "task"),
                 ("fanout.db", "reference_ratelimit"), ("reference-queue.db", "queue"))
REDIS_KEYS = ("fanout:ratelimit:*", "huey.*.fanout", "reference:*")


# --- processes --------------------------------------------------------------------------


class Processes:
    """Every process the bench starts, each in a session of its own (so a Ctrl-C in the
    terminal reaches only the bench, which then stops them all, group by group)."""

    def __init__(self) -> None:
        self.running: list[subprocess.Popen] = []

    def start(self, args: list[str], **kwargs) -> subprocess.Popen:
        proc = subprocess.Popen(args, start_new_session=True, **kwargs)
        self.running.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen, grace: float = 10.0) -> None:
        if proc.poll() is None:
            self._signal(proc, signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                self._signal(proc, signal.SIGKILL)
                proc.wait()
        if proc in self.running:
            self.running.remove(proc)

    def stop_all(self) -> None:
        for proc in list(self.running):
            self.stop(proc)

    @staticmethod
    def _signal(proc: subprocess.Popen, signum: int) -> None:
        try:
            os.killpg(proc.pid, signum)  # the group is the process's own: start_new_session
        except ProcessLookupError:
            pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proc: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            status, _ = call(port, "GET", "/healthz")
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"the server on port {port} was not ready within {STARTUP_TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}")


def call(port: int, method: str, path: str, key: str | None = None, body: dict | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, data, headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def shape(value):
    """The keys and value types of a JSON value, to compare two servers' answers."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__


def sample(port: int, fixture: Fixture) -> dict:
    """One upload and one get, checked; their shapes."""
    status, created = call(port, "POST", "/v1/upload", fixture.key, {"caption": CAPTION, "account_ids": [fixture.account_id]})
    if status != 201:
        raise SystemExit(f"POST /v1/upload answered {status}: {created}")
    status, read = call(port, "GET", f"/v1/posts/{fixture.post_id}", fixture.key)
    if status != 200:
        raise SystemExit(f"GET /v1/posts/{{id}} answered {status}: {read}")
    return {"upload": shape(created), "get": shape(read)}


# --- load generators --------------------------------------------------------------------


def run_wrk(procs: Processes, folder: Path, port: int, mode: str, fixtures_file: Path, seconds: float,
            connections: int) -> Result:
    script = folder / "rotate.lua"
    script.write_text(WRK_SCRIPT)
    threads = max(1, min(connections, os.cpu_count() or 1))
    proc = procs.start(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds:g}s", "--timeout", "10s",
                        "-s", str(script), f"http://127.0.0.1:{port}", "--", str(fixtures_file), mode],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=seconds + 30)
    finally:
        procs.stop(proc)
    line = next((line for line in out.splitlines() if line.startswith("BENCH ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(f"wrk failed ({proc.returncode}):\n{out}")
    requests, micros, p50, p99, bad, errors = (int(x) for x in line.split()[1:])
    return Result(requests, micros / 1e6, p50 / 1000, p99 / 1000, bad, errors)


async def _load(port: int, requests: list[bytes], seconds: float, connections: int) -> Result:
    latencies: list[float] = []
    bad = errors = 0
    deadline = time.monotonic() + seconds

    async def connection(start: int) -> None:
        nonlocal bad, errors
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        n = start
        try:
            while time.monotonic() < deadline:
                n += 1
                started = time.perf_counter()
                writer.write(requests[n % len(requests)])
                status = int((await reader.readline()).split()[1])
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - started)
                bad += status >= 400
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            errors += 1
        finally:
            writer.close()

    started = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(connection(i * 37) for i in range(connections))), seconds + 30)
    elapsed = time.monotonic() - started
    latencies.sort()
    pick = (lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1000) if latencies else (lambda q: 0.0)
    return Result(len(latencies), elapsed, pick(0.5), pick(0.99), bad, errors)


def run_python(port: int, mode: str, fixtures: list[Fixture], seconds: float, connections: int) -> Result:
    requests = []
    for f in fixtures:
        if mode == "upload":
            body = json.dumps({"caption": CAPTION, "account_ids": [f.account_id]}).encode()
            head = (f"POST /v1/upload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {f.key}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
            requests.append(head.encode() + body)
        else:
            requests.append(f"GET /v1/posts/{f.post_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                            f"Authorization: Bearer {f.key}\r\n\r\n".encode())
    return asyncio.run(_load(port, requests, seconds, connections))


# --- the run ----------------------------------------------------------------------------


SERVERS = ("fanout", "reference")
ENDPOINTS = (("upload", "POST /v1/upload"), ("get", "GET /v1/posts/{id}"))


def server_command(name: str, port: int, backend: Backend, data_dir: Path) -> list[str]:
    if name == "fanout":
        return [sys.executable, "-m", "fanout", "api", "--host", "127.0.0.1", "--port", str(port)]
    return [sys.executable, str(HERE / "reference_app.py"), "--host", "127.0.0.1", "--port", str(port),
            *backend.reference_args(data_dir)]


@dataclass(frozen=True)
class Load:
    """One endpoint's load, from one generator."""

    generator: str
    folder: Path
    mode: str
    fixtures: list[Fixture]
    fixtures_file: Path
    connections: int

    def run(self, procs: Processes, port: int, seconds: float) -> Result:
        if self.generator == "wrk":
            return run_wrk(procs, self.folder, port, self.mode, self.fixtures_file, seconds, self.connections)
        return run_python(port, self.mode, self.fixtures, seconds, self.connections)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_servers(procs: Processes, backend: Backend, folder: Path, data_dir: Path,
                  env: dict) -> dict[str, tuple[int, int]]:
    """Start every server on a free port, all at once, and wait until each answers; the
    port and pid of each."""
    started = {}
    for name in SERVERS:
        port = free_port()
        log = folder / f"{name}.log"
        with log.open("w") as out:
            started[name] = (port, procs.start(server_command(name, port, backend, data_dir), env=env, stdout=out,
                                               stderr=subprocess.STDOUT), log)
    for port, server, log in started.values():
        wait_ready(server, port, log)
    return {name: (port, server.pid) for name, (port, server, _) in started.items()}


@dataclass
class Measured:
    """Every run of one backend: {(server, mode): [Result of each run]}."""

    backend: str
    results: dict[tuple[str, str], list[Result]]


def bench_backend(procs: Processes, args, backend: Backend, folder: Path, generator: str) -> Measured:
    folder.mkdir()
    data_dir = folder / "data"
    env = server_env(data_dir, backend)
    started = time.monotonic()
    fixtures = prepare(env, args.workspaces)
    fixtures_file = write_fixtures(folder, fixtures)
    print(f"[{backend.name}] prepared {len(fixtures)} {PLAN} workspaces in {time.monotonic() - started:.1f} s; "
          f"{args.connections} connections, {args.runs} runs of {args.seconds:g} s, load from {generator}", flush=True)
    started_servers = start_servers(procs, backend, folder, data_dir, env)
    ports = {name: port for name, (port, _) in started_servers.items()}
    shapes = {name: sample(port, fixtures[0]) for name, port in ports.items()}
    if shapes["fanout"] != shapes["reference"]:
        raise SystemExit(f"the two servers answer in different shapes:\n{shapes}")
    results: dict[tuple[str, str], list[Result]] = {(name, mode): [] for name in SERVERS for mode, _ in ENDPOINTS}
    for run in range(args.runs):
        # Alternate which server goes first, so a drift in the machine's load over a run
        # weighs on both alike.
        order = SERVERS if run % 2 == 0 else SERVERS[::-1]
        for mode, _ in ENDPOINTS:
            load = Load(generator, folder, mode, fixtures, fixtures_file, args.connections)
            for name in order:
                backend.reset(data_dir)
                if args.warmup > 0:
                    load.run(procs, ports[name], args.warmup)  # fills caches and pools; not counted
                pid = started_servers[name][1]
                cpu = cpu_seconds(pid)
                result = load.run(procs, ports[name], args.seconds).with_cpu(cpu_seconds(pid) - cpu)
                results[name, mode].append(result)
                print(f"  [{backend.name}] run {run + 1}  {name:<9} {mode:<6} {result.rate:8.0f} req/s  "
                      f"p50 {result.p50_ms:7.1f} ms  p99 {result.p99_ms:7.1f} ms  CPU {result.cpu_us:6.0f} us/req",
                      flush=True)
    return Measured(backend.name, results)


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt  # so the `finally` that stops every process runs


def backends(parser, choice: str) -> list[Backend]:
    chosen = []
    if choice in ("sqlite", "both"):
        chosen.append(Backend("sqlite"))
    if choice in ("postgresql", "both"):
        url, queue = os.environ.get("FANOUT_DATABASE_URL", ""), os.environ.get("FANOUT_QUEUE_URL", "")
        if not url.startswith("postgresql://") or not queue.startswith("redis://"):
            parser.error("--backend postgresql needs FANOUT_DATABASE_URL=postgresql://user@host:5432/name "
                         "and FANOUT_QUEUE_URL=redis://host:6379/N")
        _check_postgresql(url)
        chosen.append(Backend("postgresql", url, queue))
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="sqlite")
    parser.add_argument("--runs", type=int, default=3, help="runs of each server and endpoint, interleaved")
    parser.add_argument("--seconds", type=float, default=10, help="measured seconds of each run (whole with wrk)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workspaces", type=int, default=100, help="BUSINESS workspaces the keys rotate over")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured seconds of load before each run (0: none)")
    parser.add_argument("--generator", choices=["auto", "wrk", "python"], default="auto",
                        help="auto: wrk when installed, else the asyncio generator")
    args = parser.parse_args(argv)
    # Bounded, so a run always ends.
    if not (1 <= args.runs <= 20 and 0.1 <= args.seconds <= 600 and 0 <= args.warmup <= 60
            and 1 <= args.connections <= 1000 and 1 <= args.workspaces <= 10_000):
        parser.error("--runs is 1 to 20, --seconds 0.1 to 600, --warmup 0 to 60, --connections 1 to 1000, "
                     "--workspaces 1 to 10000")
    generator = args.generator
    if generator == "auto":
        generator = "wrk" if shutil.which("wrk") else "python"
    elif generator == "wrk" and not shutil.which("wrk"):
        parser.error("wrk is not installed (apt-get install wrk), or use --generator python")
    if generator == "wrk" and (args.seconds < 1 or args.seconds != int(args.seconds)):
        parser.error("wrk takes whole seconds: --seconds 1 or more, whole")
    chosen = backends(parser, args.backend)

    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    measured = []
    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as tmp:
        for backend in chosen:
            procs = Processes()
            try:
                measured.append(bench_backend(procs, args, backend, Path(tmp) / backend.name, generator))
            except KeyboardInterrupt:
                print("interrupted; stopping what was started", file=sys.stderr)
                return 130
            finally:
                procs.stop_all()

    for m in measured:
        report(m)
    failed = [(m.backend, name, mode, r) for m in measured for (name, mode), runs in m.results.items() for r in runs
              if r.bad_status or r.socket_errors or not r.requests]
    for backend, name, mode, r in failed:
        print(f"warning: [{backend}] {name} {mode}: {r.bad_status} answers of 4xx/5xx, {r.socket_errors} socket errors, "
              f"{r.requests} answered (429s mean over 10 req/s a workspace: raise --workspaces)", file=sys.stderr)
    return 1 if failed else 0


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def report(m: Measured) -> None:
    """A table per backend: each run's req/s, their median and minimum, the median p50, p99
    and CPU per request; then Fanout/reference for each run, with the median and minimum
    of those ratios, and the reference's CPU per request over Fanout's."""
    runs = len(next(iter(m.results.values())))
    heads = " ".join(f"{f'run {i + 1}':>8}" for i in range(runs))
    print()
    print(f"{m.backend:<20} {'server':<10} {heads} {'median':>8} {'min':>8} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'CPU us':>8}")
    for mode, label in ENDPOINTS:
        for name in SERVERS:
            rs = m.results[name, mode]
            rates = " ".join(f"{r.rate:8.0f}" for r in rs)
            print(f"{label:<20} {name:<10} {rates} {_median([r.rate for r in rs]):8.0f} {min(r.rate for r in rs):8.0f} "
                  f"{_median([r.p50_ms for r in rs]):8.1f} {_median([r.p99_ms for r in rs]):8.1f} "
                  f"{_median([r.cpu_us for r in rs]):8.0f}")
        fanout, reference = m.results["fanout", mode], m.results["reference", mode]
        ratios = [f.rate / r.rate if r.rate else 0.0 for f, r in zip(fanout, reference)]
        cpu = _median([r.cpu_us for r in reference]) / _median([f.cpu_us for f in fanout]) if fanout[0].cpu_us else 0.0
        print(f"{label:<20} {'fanout/ref':<10} {' '.join(f'{x:8.2f}' for x in ratios)} {_median(ratios):8.2f} "
              f"{min(ratios):8.2f} {'':>8} {'':>8} {cpu:8.2f}")


if __name__ == "__main__":
    sys.exit(main())
