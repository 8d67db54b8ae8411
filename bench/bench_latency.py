"""Upload to webhook, end to end on `fanout serve` (the embedded default); prints it.

Run: python bench/bench_latency.py [--rate 20] [--seconds 30] [--idle 60] [--trials 20]

A fresh data folder with WORKSPACES BUSINESS workspaces and their sandbox keys (made with
Fanout's own code in this process), then on `fanout serve` a sandbox account and a webhook
to a receiver in this process (loopback) for each. Then:
- steady: sandbox posts at `--rate` a second for `--seconds`; for each, the time from
  sending the upload to the `post.completed` webhook arriving; p50, p99, max;
- after idle: `--trials` times, `--idle` seconds of nothing, then one post, timed the same
  way; p50, p99, max;
- the worker process's CPU time over the idle spells (its polling of the SQLite queue), as
  a share of one core.
`--trials 0` or `--seconds 0` skips a part. Bounded: every process is stopped at the end,
even on Ctrl-C.
"""
from __future__ import annotations

import argparse
import itertools
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
FANOUT = [sys.executable, "-m", "fanout"]
# Several workspaces, posts taking turns: one BUSINESS workspace makes 600 requests a
# minute, which 20 posts a second for 30 s would use up.
WORKSPACES = 4


class _Receiver(BaseHTTPRequestHandler):
    server: "Receiver"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        arrived = time.monotonic()
        self.send_response(204)
        self.end_headers()
        event = json.loads(body)
        with self.server.lock:
            self.server.events.setdefault(event["post_id"], (arrived, event))


class Receiver(ThreadingHTTPServer):
    """Webhooks on loopback: each post's first event and when it arrived."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receiver)
        self.lock = threading.Lock()
        self.events: dict[str, tuple[float, dict]] = {}

    def wait_for(self, post_id: str, timeout: float = 30.0) -> tuple[float, dict]:
        """When the post's first event arrived, and the event; TimeoutError past `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if post_id in self.events:
                    return self.events[post_id]
            time.sleep(0.002)
        raise TimeoutError(f"no webhook for {post_id} within {timeout} s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def summary(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"{name}: {len(ms)} posts, p50 {statistics.median(ms):.0f} ms, p99 {percentile(ms, 99):.0f} ms, "
            f"max {max(ms):.0f} ms")


def prepare(env: dict) -> list[str]:
    """Migrate and make the workspaces and their sandbox keys (in this process: a command
    each would start Python nine times); the keys."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        from fanout.boot import boot
        from fanout.models import db
        from fanout.models.api_key import create_key
        from fanout.models.schema import migrate
        from fanout.models.workspace import create_workspace
        from fanout.settings import Settings

        rt = boot(Settings.from_env())
        migrate()
        with db.connection_context():
            keys = [create_key(rt, create_workspace(rt, f"bench {i}", "BUSINESS").id, "sandbox")[1]
                    for i in range(WORKSPACES)]
        db.close_all()
        rt.queue.storage.close()
        return keys
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def serving(env: dict, port: int):
    """`fanout serve` on `port`, ready (its /readyz 200); stopped on the way out."""
    base = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen([*FANOUT, "serve", "--port", str(port)], env=env, cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or serve.poll() is not None:
                sys.exit("fanout serve did not become ready")
            time.sleep(0.2)
        yield serve
    finally:
        os.killpg(serve.pid, 15)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, 9)
            serve.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()

    data = tempfile.mkdtemp(prefix="fanout-bench-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FANOUT_DATA_DIR": data, "FANOUT_INSECURE_URLS": "1", "FANOUT_BASE_URL": base}
    for name in ("FANOUT_DATABASE_URL", "FANOUT_QUEUE_URL"):
        env.pop(name, None)  # the embedded default
    keys = prepare(env)

    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    with serving(env, port) as serve:
        senders = []  # (headers, account id) of each workspace
        for key in keys:
            headers = {"Authorization": f"Bearer {key}"}
            link = requests.post(f"{base}/v1/accounts/x/connect", headers=headers, json={}, timeout=10).json()["url"]
            location = requests.get(link, allow_redirects=False, timeout=10).headers["location"]
            senders.append((headers, location.split("account_id=")[1].split("&")[0]))
            hook = requests.post(f"{base}/v1/webhooks", headers=headers, timeout=10, json={
                "url": f"http://127.0.0.1:{receiver.server_address[1]}/hook", "events": ["post.completed"]})
            hook.raise_for_status()

        session = requests.Session()
        turn = itertools.count()  # next() on it is atomic under the GIL

        def one_post(caption: str) -> float:
            headers, account = senders[next(turn) % len(senders)]
            sent = time.monotonic()
            answer = session.post(f"{base}/v1/upload", headers=headers, timeout=10,
                                  json={"caption": caption, "account_ids": [account]})
            answer.raise_for_status()
            return receiver.wait_for(answer.json()["id"])[0] - sent

        one_post("warm-up")
        if args.seconds:
            latencies, lock, threads = [], threading.Lock(), []

            def timed(i: int) -> None:
                value = one_post(f"steady {i}")
                with lock:
                    latencies.append(value)

            start = time.monotonic()
            for i in range(int(args.rate * args.seconds)):
                wait = start + i / args.rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                thread = threading.Thread(target=timed, args=(i,))
                thread.start()
                threads.append(thread)
            for thread in threads:
                thread.join(60)
            print(summary(f"steady at {args.rate:g} posts/s for {args.seconds} s", latencies))
        if args.trials:
            worker = children(serve.pid)
            idle_cpu, idle_wall, latencies = 0.0, 0.0, []
            for i in range(args.trials):
                before = sum(cpu_seconds(p) for p in worker)
                time.sleep(args.idle)
                idle_cpu += sum(cpu_seconds(p) for p in worker) - before
                idle_wall += args.idle
                latencies.append(one_post(f"after idle {i}"))
            print(summary(f"after {args.idle:g} s idle", latencies))
            print(f"worker CPU while idle: {idle_cpu:.2f} s over {idle_wall:.0f} s "
                  f"({100 * idle_cpu / idle_wall:.2f}% of one core)")
    receiver.shutdown()


if __name__ == "__main__":
    main()
