"""A page of the events log (`GET /v1/events`) in a workspace of a million events; prints figures.

Run: python bench/bench_events.py [--events 1000000] [--requests 200]
     (SQLite in a temporary folder; with FANOUT_DATABASE_URL, PostgreSQL, whose tables it
     empties first: the database's name must contain `test` or `bench`)

The goal (docs/decisions.md#the-events-log): a page answers in under 5 ms p50 at 1M events.

1. Fills the log of one BUSINESS workspace with `--events` events over 30 days (the
   retention), the mix a busy workspace has (post events of three targets a post, account
   events, a few registrations disabled), across 50 accounts, bodies as the service writes
   them; and another workspace with a tenth as many, so pages are not alone in the index.
   Rows go in straight, in batches (foreign keys off for the fill only: the posts and
   targets the events name are not made).
2. Times each kind of page in this process, through `fanout/models/event_log.py` and the
   entries' view, `--requests` times: p50 and p99.
3. Times the same pages through HTTP on a `fanout api` process over that database (the key
   checked, the request counted, validation, the JSON answer), `--requests` times each
   over one keep-alive connection: p50 and p99. The requests stay within the workspace's
   600 a minute (the bench paces itself when it must).

Bounded: the server must answer within 60 s and is stopped at the end, on an error too.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import requests

from fanout.app import boot
from fanout.http import cursors
from fanout.ids import new_id
from fanout.models import MODELS, Event, db
from fanout.models import event_log
from fanout.models.api_key import create_key
from fanout.models.db import is_sqlite
from fanout.models.schema import migrate
from fanout.models.workspace import create_workspace
from fanout.settings import Settings
from fanout.tasks import memory_queue
from fanout.times import isoformat
from fanout.views import event_view

ROOT = Path(__file__).resolve().parents[1]
KEY = "hTMUhjRO0RYW8h_LA-g_S9tTbcf3G_9pGxvX0fl-plA="
START = dt.datetime(2026, 10, 23)
SPAN = dt.timedelta(days=30)
ACCOUNTS = [new_id("acc", START, random.Random(n).randbytes) for n in range(50)]
PLATFORMS = ("instagram", "threads", "tiktok", "x")


def settings_for(folder: Path) -> Settings:
    url = os.environ.get("FANOUT_DATABASE_URL") or f"sqlite:///{folder / 'bench.db'}"
    if not url.startswith("sqlite") and not any(word in url.rsplit("/", 1)[-1] for word in ("test", "bench")):
        sys.exit("FANOUT_DATABASE_URL must name a database whose name contains test or bench: the bench empties it")
    return Settings(data_dir=folder, database_url=url, queue_url=f"sqlite:///{folder / 'queue.db'}",
                    limiter_url=f"sqlite:///{folder / 'limiter.db'}", base_url="http://bench",
                    connect_url="http://bench", secret_key=KEY)


def body(rng: random.Random, event_id: str, kind: str, at: dt.datetime, post_id: str, account_id: str) -> str:
    """An event's JSON as fanout/views.py shapes it."""
    platform = PLATFORMS[rng.randrange(4)]
    if kind.startswith("post."):
        target = {"id": new_id("tgt", at, rng.randbytes), "account_id": account_id, "platform": platform}
        if kind == "post.completed":
            target.update(status="published", external_url=f"https://www.{platform}.com/p/{rng.getrandbits(60)}")
        else:
            target.update(status="failed", error_code="platform_rate_limited",
                          error_message=f"{platform} rate limit reached (429 Too Many Requests); retry later")
        value = {"id": event_id, "event": kind, "post_id": post_id, "target": target}
    elif kind.startswith("account."):
        value = {"id": event_id, "event": kind, "account": {
            "id": account_id, "platform": platform, "username": f"user_{rng.getrandbits(20)}",
            "status": "expired" if kind == "account.expired" else "active", "connected_at": isoformat(START),
            "sandbox": False}}
        if kind == "account.expired":
            value["reason"] = "the platform refused to refresh the token"
    else:
        value = {"id": event_id, "event": kind, "webhook": {
            "id": new_id("wh", START, rng.randbytes), "url": "https://hooks.example.com/fanout",
            "events": ["post.completed", "post.failed"], "enabled": False, "disabled_reason": "failing",
            "previous_secret_expires_at": None, "created_at": isoformat(START)}}
    return json.dumps({**value, "timestamp": isoformat(at)}, separators=(",", ":"))


def kind_of(n: int) -> str:
    """The mix: 90% post events (one post in five partly failing), 9% account, 1% disabled registrations."""
    slot = n % 100
    if slot < 72:
        return "post.completed"
    if slot < 90:
        return "post.failed"
    if slot < 96:
        return "account.connected"
    if slot < 98:
        return "account.disconnected"
    if slot < 99:
        return "account.expired"
    return "webhook.disabled"


@contextmanager
def foreign_keys_off():
    """The fill names posts and targets that are not there; nothing else writes meanwhile."""
    if is_sqlite():
        db.execute_sql("PRAGMA foreign_keys = OFF")
        try:
            yield
        finally:
            db.execute_sql("PRAGMA foreign_keys = ON")
    else:
        db.execute_sql("SET session_replication_role = replica")
        try:
            yield
        finally:
            db.execute_sql("SET session_replication_role = DEFAULT")


def fill(workspace_id: str, count: int, seed: int) -> list[tuple[dt.datetime, str]]:
    """`count` events over SPAN, oldest first; returns every tenth (time, id), for positions."""
    rng = random.Random(seed)
    step = SPAN / count
    marks, rows = [], []
    post_id = ""
    with foreign_keys_off():
        for n in range(count):
            at = START + step * n
            at = at.replace(microsecond=at.microsecond // 1000 * 1000)
            kind = kind_of(n)
            if n % 3 == 0:
                post_id = new_id("post", at, rng.randbytes)
            account_id = ACCOUNTS[rng.randrange(len(ACCOUNTS))]
            event_id = new_id("evt", at, rng.randbytes)
            rows.append(dict(id=event_id, workspace=workspace_id, post=post_id if kind.startswith("post.") else None,
                             target=None, account_id=account_id, type=kind,
                             body=body(rng, event_id, kind, at, post_id, account_id), created_at=at))
            if n % 10 == 0:
                marks.append((at, event_id))
            if len(rows) == 1000:
                with db.atomic():
                    Event.insert_many(rows).execute()
                rows = []
        if rows:
            with db.atomic():
                Event.insert_many(rows).execute()
    return marks


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def figures(label: str, seconds: list[float], rows: int) -> str:
    ms = [s * 1000 for s in seconds]
    return f"  {label:<46} p50 {statistics.median(ms):6.2f} ms   p99 {percentile(ms, 99):6.2f} ms   ({rows} events)"


def cases(keyring, workspace_id: str, marks: list[tuple[dt.datetime, str]]) -> list[tuple[str, dict, dict]]:
    """(label, model arguments, HTTP query) of each page timed."""
    deep = marks[len(marks) // 50]  # 2% from the oldest end: a walk almost done
    # The cursor the server gives for that position (the same keyring seals it).
    deep_cursor = cursors.encode(keyring, workspace_id, *deep)
    day_ago = marks[int(len(marks) * 29 / 30)]  # catching up after a day of downtime
    post_id = json.loads(Event.get_by_id(marks[len(marks) // 2][1]).body).get("post_id") or ""
    return [
        ("first page (limit 20)", {}, {}),
        ("page deep in the log (cursor near the oldest)", {"after": deep}, {"cursor": deep_cursor}),
        ("catching up: after an event a day old, limit 100", {"after": day_ago, "ascending": True, "limit": 100},
         {"after": day_ago[1], "limit": 100}),
        ("type=post.failed", {"types": ["post.failed"]}, {"type": "post.failed"}),
        ("type=account.expired&type=webhook.disabled (rare)", {"types": ["account.expired", "webhook.disabled"]},
         {"type": ["account.expired", "webhook.disabled"]}),
        ("account_id= one of 50 accounts", {"account_id": ACCOUNTS[7]}, {"account_id": ACCOUNTS[7]}),
        ("post_id= one post", {"post_id": post_id}, {"post_id": post_id}),
    ]


def time_models(workspace_id: str, page_cases, repeat: int) -> None:
    print(f"In process (fanout/models/event_log.py and the entries' view), {repeat} pages each:")
    with db.connection_context():
        for label, arguments, _ in page_cases:
            arguments = {"limit": 20, **arguments}
            took = []
            for _ in range(repeat):
                started = time.perf_counter()
                rows, _more = event_log.page(workspace_id, **arguments)
                [event_view(e) for e in rows]
                took.append(time.perf_counter() - started)
            print(figures(label, took, len(rows)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def api_server(settings: Settings):
    """`fanout api` over the bench's database, answering; stopped on the way out."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")}
    env.update(FANOUT_DATA_DIR=str(settings.data_dir), FANOUT_DATABASE_URL=settings.database_url,
               FANOUT_QUEUE_URL=settings.queue_url, FANOUT_LIMITER_URL=settings.limiter_url,
               FANOUT_SECRET_KEY=KEY, FANOUT_LOG_FORMAT="text")
    log = open(settings.data_dir / "api.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "fanout", "api", "--port", str(port)], env=env, cwd=ROOT,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                sys.exit(f"fanout api did not answer: {(settings.data_dir / 'api.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def time_http(base: str, key: str, page_cases, repeat: int) -> None:
    print(f"Through HTTP on fanout api (one keep-alive connection), {repeat} requests each:")
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {key}"
    sent = 0
    baseline = [("GET /v1/webhooks (an empty list: what any request costs)", "/v1/webhooks", {})]
    for label, path, query in baseline + [(label, "/v1/events", query) for label, _, query in page_cases]:
        took, rows = [], 0
        for _ in range(repeat):
            if sent >= 580:  # the BUSINESS plan allows 600 in any 60 s: let them all leave the window
                time.sleep(61)
                sent = 0
            started = time.perf_counter()
            answer = session.get(f"{base}{path}", params=query, timeout=10)
            took.append(time.perf_counter() - started)
            sent += 1
            if answer.status_code != 200:
                sys.exit(f"{label}: {answer.status_code} {answer.text[:300]}")
            rows = len(answer.json()["data"])
        print(figures(label, took, rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        settings = settings_for(Path(folder))
        rt = boot(settings, queue=memory_queue())
        migrate()
        with db.connection_context():
            if not is_sqlite():
                db.execute_sql("TRUNCATE " + ", ".join(m._meta.table_name for m in MODELS) + " CASCADE")
            workspace = create_workspace(rt, "bench", "BUSINESS")
            other = create_workspace(rt, "neighbour", "BUSINESS")
            key = create_key(rt, workspace.id, "sandbox")[1]
            started = time.perf_counter()
            marks = fill(workspace.id, args.events, seed=1)
            fill(other.id, args.events // 10, seed=2)
            print(f"{args.events + args.events // 10} events written in {time.perf_counter() - started:.0f} s "
                  f"({args.events} in the workspace timed, {args.events // 10} in another)")
            if not is_sqlite():
                db.execute_sql("ANALYZE event")  # what autovacuum does by itself after such a load
            page_cases = cases(rt.keyring, workspace.id, marks)
        time_models(workspace.id, page_cases, args.requests)
        with api_server(settings) as base:
            time_http(base, key, page_cases, args.requests)


if __name__ == "__main__":
    main()
