"""Posts in time: what a million scheduled posts put in the queue, and how late scheduled
posts publish on `fanout serve`. Prints it.

Run: python bench/bench_schedule.py [--backend sqlite|postgresql] [--million 1000000]
                                    [--rate 20] [--seconds 30] [--lead 5]

PostgreSQL: FANOUT_DATABASE_URL names the database (emptied first, so its name must
contain `test` or `bench`) and FANOUT_QUEUE_URL a Redis database (flushed first); the
server's rate limits go to that Redis too, as they do when the queue is there.

1. A fresh data folder (or the emptied database), migrated, with WORKSPACES BUSINESS
   workspaces, each with a sandbox key and a sandbox X account, made with Fanout's own code.
2. A million: `--million` posts of one target each, inserted in bulk (one INSERT ... SELECT
   per table), due evenly from one minute from now to 365 days ahead, none with a wake-up
   task. Then one sweep, the periodic task every worker runs each minute, timed: the tasks
   it leaves in the queue (enqueued and scheduled), and this process's peak memory before
   and after it. A second sweep adds nothing (each wake-up is enqueued once). `--million 0`
   skips this part.
3. Lateness: `fanout serve` on that folder or database, the million still there; `--rate`
   sandbox posts a second falling due for `--seconds`, all scheduled beforehand through
   the API (their wake-ups enqueued with the upload: they are due within 5 minutes), the
   first `--lead` s after the uploads would end at 40 a second. Once the last is due, each
   post is read back (one not yet published again, until it is or SETTLE seconds after
   the last was due): its lateness is its target's `published_at`
   minus its `scheduled_at`, both the server's clock; p50, p99 and max, and how many
   published before their time (none may). `--seconds 0` skips this part.

Bounded: every wait has a deadline, and the server is stopped at the end, on an error and
on Ctrl-C.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_latency import free_port, percentile, serving  # noqa: E402

WORKSPACES = 6  # 600 requests a minute each: the uploads and reads of 600 posts, spread
SETTLE = 5.0  # seconds after the last post was due that a post not yet published may take


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def iso(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def parse(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).replace(tzinfo=None)


@contextlib.contextmanager
def environment(env: dict):
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def prepare(env: dict, postgresql: bool) -> list[tuple[str, str, str]]:
    """Migrate (emptying PostgreSQL and Redis first); the (workspace, key, account) of each workspace."""
    with environment(env):
        from fanout.boot import boot
        from fanout.models import MODELS, db
        from fanout.models.api_key import create_key
        from fanout.models.connect_session import consume_session, start_session
        from fanout.models.sandbox_account import connect_sandbox_account
        from fanout.models.schema import migrate
        from fanout.models.workspace import create_workspace
        from fanout.settings import Settings

        rt = boot(Settings.from_env())
        migrate()
        made = []
        with db.connection_context():
            if postgresql:
                db.execute_sql("TRUNCATE " + ", ".join(f'"{m._meta.table_name}"' for m in MODELS) + " CASCADE")
            for i in range(WORKSPACES):
                workspace = create_workspace(rt, f"bench {i}", "BUSINESS")
                _, key = create_key(rt, workspace.id, "sandbox")
                token = start_session(rt, workspace.id, platform="x", sandbox=True, redirect_url=None)
                account = connect_sandbox_account(rt, consume_session(rt, token, "x"))
                made.append((workspace.id, key, account.id))
        rt.queue.flush()
        db.close_all()
        rt.queue.storage.close()
        return made


# --- 2. a million scheduled posts -------------------------------------------------------------

SQLITE_POSTS = """
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
INSERT INTO post (id, workspace_id, sandbox, caption, media, simulate_error, status, created_at, scheduled_at)
SELECT printf('post_B%025d', i), ?, 1, 'later', '[]', NULL, 'pending', ?,
       strftime('%Y-%m-%d %H:%M:%f', ?, printf('+%.3f seconds', ? + i * ?))
FROM n
"""
POSTGRESQL_POSTS = """
INSERT INTO post (id, workspace_id, sandbox, caption, media, simulate_error, status, created_at, scheduled_at)
SELECT 'post_B' || lpad(i::text, 25, '0'), %s, true, 'later', '[]', NULL, 'pending', %s,
       %s::timestamp + make_interval(secs => %s + i * %s)
FROM generate_series(0, %s - 1) AS i
"""
TARGETS = """
INSERT INTO target (id, post_id, account_id, platform, position, status, attempts, retries, updated_at, due_at)
SELECT 'tgt_B' || substr(id, 7), id, {p}, 'x', 0, 'pending', 0, 0, {p}, scheduled_at FROM post WHERE id LIKE {p}
"""


def a_million(env: dict, count: int, workspace_id: str, account_id: str) -> None:
    with environment(env):
        from fanout.boot import boot
        from fanout.models import db
        from fanout.models.db import is_sqlite
        from fanout.settings import Settings
        from fanout.tasks import publishing

        rt = boot(Settings.from_env())
        now = rt.now()
        first, span = 60.0, dt.timedelta(days=365).total_seconds() - 60.0
        step = span / max(count - 1, 1)
        started = time.monotonic()
        with db.connection_context(), db.atomic():
            if is_sqlite():
                db.execute_sql(SQLITE_POSTS, (count, workspace_id, str(now), str(now), first, step))
                db.execute_sql(TARGETS.format(p="?"), (account_id, str(now), "post_B%"))
            else:
                db.execute_sql(POSTGRESQL_POSTS, (workspace_id, now, now, first, step, count))
                db.execute_sql(TARGETS.format(p="%s"), (account_id, now, "post_B%"))
        inserted = time.monotonic() - started
        if not is_sqlite():
            with db.connection_context():
                db.execute_sql("ANALYZE post; ANALYZE target")
        print(f"{count:,} scheduled posts (one target each, due from 1 minute to 365 days ahead) inserted in "
              f"{inserted:.1f} s", flush=True)
        rt.queue.flush()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.monotonic()
        swept = publishing.sweep(rt)
        took = time.monotonic() - started
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        queued = rt.queue.pending_count() + rt.queue.scheduled_count()
        print(f"one sweep: {took * 1000:.0f} ms; {len(swept['woken'])} wake-ups enqueued (those due within 5 "
              f"minutes); the queue holds {queued} task(s)")
        print(f"  this process's peak memory: {rss_before / 1024:.0f} MiB before the sweep, "
              f"{rss_after / 1024:.0f} MiB after")
        started = time.monotonic()
        again = publishing.sweep(rt)
        print(f"a second sweep: {(time.monotonic() - started) * 1000:.0f} ms, {len(again['woken'])} more; "
              f"the queue holds {rt.queue.pending_count() + rt.queue.scheduled_count()} task(s)", flush=True)
        db.close_all()
        rt.queue.storage.close()


# --- 3. lateness on fanout serve ---------------------------------------------------------------

def lateness(env: dict, fixtures: list[tuple[str, str, str]], rate: float, seconds: int, lead: float) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**env, "FANOUT_BASE_URL": base}
    count = int(rate * seconds)
    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=16))
    with serving(env, port):
        # Due from a little after the uploads can be done (at 40 a second, at worst).
        first = utc_now() + dt.timedelta(seconds=lead + count / 40)
        due = [first + dt.timedelta(seconds=i / rate) for i in range(count)]

        def upload(i: int) -> tuple[str, str]:
            _, key, account = fixtures[i % len(fixtures)]
            answer = session.post(f"{base}/v1/upload", timeout=30, headers={"Authorization": f"Bearer {key}"},
                                  json={"caption": f"due {i}", "account_ids": [account], "scheduled_at": iso(due[i])})
            answer.raise_for_status()
            return key, answer.json()["id"]

        with ThreadPoolExecutor(8) as pool:
            posts = list(pool.map(upload, range(count)))
        if utc_now() >= first:
            sys.exit("the uploads ended after the first post was due; the figures would be wrong")
        print(f"{count} posts scheduled, {rate:g} a second falling due for {seconds} s, from "
              f"{(first - utc_now()).total_seconds():.1f} s from now", flush=True)
        time.sleep(max((due[-1] - utc_now()).total_seconds(), 0))
        settled = time.monotonic() + SETTLE

        def late(item: tuple[str, str]) -> float | None:
            key, post_id = item
            post = session.get(f"{base}/v1/posts/{post_id}", timeout=30,
                               headers={"Authorization": f"Bearer {key}"}).json()
            published = post["targets"][0]["published_at"]
            return None if published is None else (parse(published) - parse(post["scheduled_at"])).total_seconds()

        # The last one due is read until it is published: reading them all meanwhile would
        # load the server while it publishes.
        while late(posts[-1]) is None and time.monotonic() < settled:
            time.sleep(0.1)
        found: dict[int, float | None] = {}
        left = list(range(count))
        while left:
            with ThreadPoolExecutor(8) as pool:
                found.update(zip(left, pool.map(late, [posts[i] for i in left])))
            left = [i for i in left if found[i] is None]
            if not left or time.monotonic() >= settled:
                break
            time.sleep(0.2)
    values = [v for v in found.values() if v is not None]
    ms = [v * 1000 for v in values]
    early = sum(1 for v in values if v < 0)
    print(f"lateness (published_at - scheduled_at): {len(values)} of {count} published, p50 "
          f"{statistics.median(ms):.0f} ms, p99 {percentile(ms, 99):.0f} ms, max {max(ms):.0f} ms; "
          f"{early} published before their time", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--million", type=int, default=1_000_000, help="scheduled posts inserted in bulk (0: none)")
    parser.add_argument("--rate", type=float, default=20.0, help="posts falling due a second")
    parser.add_argument("--seconds", type=int, default=30, help="seconds posts fall due for (0: no lateness run)")
    parser.add_argument("--lead", type=float, default=5.0,
                        help="seconds to spare, past the uploads' time at 40 a second, before the first falls due")
    args = parser.parse_args()
    if args.lead <= 0:
        parser.error("--lead is above 0")

    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as data:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")}
        env.update(FANOUT_DATA_DIR=data)
        if args.backend == "postgresql":
            database, queue = os.environ.get("FANOUT_DATABASE_URL", ""), os.environ.get("FANOUT_QUEUE_URL", "")
            if not database.startswith("postgresql://") or not queue.startswith("redis://"):
                parser.error("--backend postgresql needs FANOUT_DATABASE_URL=postgresql://... and FANOUT_QUEUE_URL=redis://...")
            name = urlsplit(database).path.lstrip("/")
            if "test" not in name and "bench" not in name:
                parser.error(f"the bench empties the database it runs on; {name!r} does not look like a scratch one")
            env.update(FANOUT_DATABASE_URL=database, FANOUT_QUEUE_URL=queue)
        fixtures = prepare(env, args.backend == "postgresql")
        print(f"backend: {args.backend}", flush=True)
        if args.million:
            workspace_id, _, account_id = fixtures[0]
            a_million(env, args.million, workspace_id, account_id)
        if args.seconds:
            lateness(env, fixtures, args.rate, args.seconds, args.lead)


if __name__ == "__main__":
    main()
