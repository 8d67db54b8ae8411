"""Fanout's API against a bare reference doing the same reads and writes; prints the figures.

Run: python bench/bench_api.py [--backend sqlite|postgresql] [--seconds 10] [--connections 16]

Prepares a data folder in a temporary directory with Fanout's own code (`migrate`, then
--workspaces BUSINESS workspaces, each with a sandbox key, a sandbox X account and one
post), then serves it in turn with `fanout api` (one process; no worker, the queue only
receives rows) and bench/reference_app.py, each on a free loopback port, under the same
load: `wrk` with a Lua script rotating the keys and account or post ids when it is
installed, else an asyncio generator in this process (--generator). For `POST /v1/upload`
(sandbox posts with one target) and `GET /v1/posts/{id}` it prints requests/s, p50 and p99
of each server and the ratios Fanout/reference.

PostgreSQL: FANOUT_DATABASE_URL names the database, for both servers; it is emptied first,
so its name must contain `test` or `bench`. The queue and the rate-limit store stay SQLite
files in the data folder, as `fanout api` keeps them when only the database is moved.

Every run is bounded (--warmup and --seconds, whole seconds, plus 60 s to start a server); every process started here
is stopped when it ends, on an error and on Ctrl-C.
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
import sqlite3
import subprocess
import sys
import tempfile
import time
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


def server_env(data_dir: Path) -> dict:
    """This process's environment for a server on `data_dir`, without the caller's FANOUT_
    settings (each server gets only what the bench sets)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")}
    env["FANOUT_DATA_DIR"] = str(data_dir)
    return env


def write_fixtures(folder: Path, fixtures: list[Fixture]) -> Path:
    """The fixtures as the wrk script reads them: a line `key account_id post_id` each."""
    path = folder / "fixtures.txt"
    path.write_text("".join(f"{f.key} {f.account_id} {f.post_id}\n" for f in fixtures))
    return path


def reset_stores(data_dir: Path) -> None:
    """Empty the rate-limit log and the queue between runs, so each run starts alike and no
    workspace carries hits of the previous run into its window."""
    for name, table in (("limiter.db", "ratelimit_log"), ("queue.db", "task")):
        path = data_dir / name
        if path.exists():
            conn = sqlite3.connect(path, timeout=10)
            try:
                if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
                    conn.execute(f"DELETE FROM {table}")
                    conn.commit()
            finally:
                conn.close()


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


SERVERS = {
    "fanout": lambda port: [sys.executable, "-m", "fanout", "api", "--host", "127.0.0.1", "--port", str(port)],
    "reference": lambda port: [sys.executable, str(HERE / "reference_app.py"), "--host", "127.0.0.1", "--port", str(port)],
}
ENDPOINTS = (("upload", "POST /v1/upload"), ("get", "GET /v1/posts/{id}"))


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


def measure(procs: Processes, name: str, env: dict, load: Load, warmup: float, seconds: float) -> tuple[dict, Result]:
    """Start server `name` on a free port, check its answers, load it; stop it whatever happens."""
    port = free_port()
    log = load.folder / f"{name}-{load.mode}.log"
    with log.open("w") as out:
        server = procs.start(SERVERS[name](port), env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_ready(server, port, log)
        shapes = sample(port, load.fixtures[0])
        if warmup > 0:
            load.run(procs, port, warmup)  # first requests fill caches and pools; not counted
        return shapes, load.run(procs, port, seconds)
    finally:
        procs.stop(server)


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt  # so the `finally` that stops every process runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--seconds", type=int, default=10, help="measured seconds per server and endpoint")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workspaces", type=int, default=100, help="BUSINESS workspaces the keys rotate over")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured seconds of load before each run (0: none)")
    parser.add_argument("--generator", choices=["auto", "wrk", "python"], default="auto",
                        help="auto: wrk when installed, else the asyncio generator")
    args = parser.parse_args(argv)
    # Bounded, so a run always ends (wrk takes whole seconds only).
    if not (1 <= args.seconds <= 600 and 0 <= args.warmup <= 60 and 1 <= args.connections <= 1000
            and 1 <= args.workspaces <= 10_000):
        parser.error("--seconds is 1 to 600, --warmup 0 to 60, --connections 1 to 1000, --workspaces 1 to 10000")
    generator = args.generator
    if generator == "auto":
        generator = "wrk" if shutil.which("wrk") else "python"
    elif generator == "wrk" and not shutil.which("wrk"):
        parser.error("wrk is not installed (apt-get install wrk), or use --generator python")

    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    procs = Processes()
    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as tmp:
        folder = Path(tmp)
        data_dir = folder / "data"
        env = server_env(data_dir)
        if args.backend == "postgresql":
            url = os.environ.get("FANOUT_DATABASE_URL", "")
            if not url.startswith("postgresql://"):
                parser.error("--backend postgresql needs FANOUT_DATABASE_URL=postgresql://user@host:5432/name")
            _check_postgresql(url)
            env["FANOUT_DATABASE_URL"] = url
        try:
            started = time.monotonic()
            fixtures = prepare(env, args.workspaces)
            fixtures_file = write_fixtures(folder, fixtures)
            print(f"prepared {len(fixtures)} {PLAN} workspaces ({args.backend}) in {time.monotonic() - started:.1f} s; "
                  f"{args.connections} connections, {args.seconds:g} s a run, load from {generator}", flush=True)

            results: dict[tuple[str, str], Result] = {}
            for mode, _ in ENDPOINTS:
                shapes = {}
                for name in SERVERS:
                    reset_stores(data_dir)
                    load = Load(generator, folder, mode, fixtures, fixtures_file, args.connections)
                    shapes[name], results[name, mode] = measure(procs, name, env, load, args.warmup, args.seconds)
                    result = results[name, mode]
                    print(f"  {name:<9} {mode:<6} {result.rate:8.0f} req/s  p50 {result.p50_ms:7.1f} ms  "
                          f"p99 {result.p99_ms:7.1f} ms", flush=True)
                if shapes["fanout"] != shapes["reference"]:
                    raise SystemExit(f"the two servers answer in different shapes:\n{shapes}")
        except KeyboardInterrupt:
            print("interrupted; stopping what was started", file=sys.stderr)
            return 130
        finally:
            procs.stop_all()

    report(results)
    return 1 if any(r.bad_status or r.socket_errors or not r.requests for r in results.values()) else 0


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def report(results: dict[tuple[str, str], Result]) -> None:
    print()
    print(f"{'':<20} {'server':<10} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for mode, label in ENDPOINTS:
        for name in SERVERS:
            r = results[name, mode]
            print(f"{label:<20} {name:<10} {r.rate:8.0f} {r.p50_ms:8.1f} {r.p99_ms:8.1f} {r.bad_status + r.socket_errors:7d}")
        f, ref = results["fanout", mode], results["reference", mode]
        print(f"{label:<20} {'fanout/ref':<10} {_ratio(f.rate, ref.rate):>8} {_ratio(f.p50_ms, ref.p50_ms):>8} "
              f"{_ratio(f.p99_ms, ref.p99_ms):>8}")
    bad = [(name, mode, r) for (name, mode), r in results.items() if r.bad_status or r.socket_errors]
    for name, mode, r in bad:
        print(f"warning: {name} {mode}: {r.bad_status} answers of 4xx/5xx and {r.socket_errors} socket errors "
              f"(429s mean over 10 req/s a workspace: raise --workspaces)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
