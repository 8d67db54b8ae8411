"""The bare reference bench/bench_api.py measures Fanout against: `POST /v1/upload` and
`GET /v1/posts/{id}` doing the reads and writes Fanout does, on Fanout's schema and data
folder, with nothing else (no ORM, no OpenAPI validation, no middleware, no access log).

Run: FANOUT_DATA_DIR=folder [FANOUT_DATABASE_URL=postgresql://...] python bench/reference_app.py --port 8001

The data folder is one `fanout migrate` made, its workspaces, keys and accounts made by
Fanout's own code (bench/bench_api.py does all that), so the key hashes are real. Per
request, what Fanout does (file by file below), in one thread-pool hop instead of several:

- the key check (fanout/models/api_key.py `find_key`): parse and checksum, one query for
  the key joined to its workspace, the salted hash compared;
- one rate-limit record and count (fanout/ratelimit.py `SqliteStore.hit`): its own
  SQLite file, one BEGIN IMMEDIATE with the same DELETE, COUNT and INSERT;
- upload (fanout/models/upload.py `create_post`, fanout/models/caps.py `count_post`): one
  write transaction (BEGIN IMMEDIATE on SQLite, BEGIN with the workspace row locked on
  PostgreSQL) that reads the workspace and the destination accounts, counts the month,
  and inserts the post, its targets and its post-platform rows; then one queue row per
  target, as Huey's SqliteStorage writes it (fanout/tasks/__init__.py `make_queue`);
- get (fanout/models/post.py `get_post`): the post, then its targets in position order.

Bodies have the shapes of fanout/views.py `post_view` and errors that of fanout/http/errors.py.
Only what the bench sends is handled: `caption` and `account_ids` (no media, platforms,
idempotency keys); anything else is not checked. The pure helpers of key strings, ids and
times come from the fanout package: they cost the same in both, so only the layers around
them differ.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import pickle
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from fanout.security import apikeys
from fanout.ids import is_id, new_id
from fanout.plans import PLANS
from fanout.ratelimit import Limiter, SqliteStore, headers
from fanout.times import isoformat, utcnow

# Where fanout/settings.py puts them when only FANOUT_DATA_DIR (and for PostgreSQL
# FANOUT_DATABASE_URL) is set, which is all bench/bench_api.py sets.
DATA_DIR = Path(os.environ.get("FANOUT_DATA_DIR") or "./var").expanduser().resolve()
DATABASE_URL = os.environ.get("FANOUT_DATABASE_URL") or f"sqlite:///{DATA_DIR / 'fanout.db'}"
SQLITE = DATABASE_URL.startswith("sqlite:")
QUEUE_PATH = DATA_DIR / "queue.db"
LIMITER_PATH = DATA_DIR / "limiter.db"
QUEUE_NAME = "fanout"  # fanout/tasks/__init__.py NAME

_local = threading.local()


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


# --- connections: one of each per thread, as Peewee's pool hands each thread one --------


class _Pg:
    """A psycopg2 connection in autocommit (as Peewee runs it) taking `?` placeholders."""

    def __init__(self, url: str) -> None:
        import psycopg2

        self.conn = psycopg2.connect(url)
        self.conn.autocommit = True
        self.cursor = self.conn.cursor()

    def execute(self, sql: str, params=()):
        self.cursor.execute(sql.replace("?", "%s"), params)
        return self.cursor


def _sqlite(path: Path, pragmas: tuple[str, ...]):
    import sqlite3

    conn = sqlite3.connect(str(path), timeout=10, isolation_level=None, check_same_thread=False)
    for pragma in pragmas:
        conn.execute(pragma)
    return conn


def database():
    conn = getattr(_local, "db", None)
    if conn is None:
        if SQLITE:
            # fanout/models/db.py SQLITE_PRAGMAS.
            conn = _sqlite(Path(DATABASE_URL.removeprefix("sqlite:///")), (
                "PRAGMA journal_mode = wal", "PRAGMA foreign_keys = 1", "PRAGMA busy_timeout = 10000",
                "PRAGMA synchronous = normal"))
        else:
            conn = _Pg(DATABASE_URL)
        _local.db = conn
    return conn


# The same store `fanout api` counts with (its cost is the same in both, as the key
# strings' parsing is); the reference only skips the framework around it.
_LIMITER = Limiter(SqliteStore(str(LIMITER_PATH)), clock=utcnow)


# Huey's SqliteStorage keeps one connection per process behind a lock, WAL, an 8 MB cache
# and (fanout/tasks/__init__.py QueueStorage) synchronous NORMAL, and writes each task in a
# BEGIN EXCLUSIVE.
_queue_lock = threading.Lock()
_queue = None


def enqueue(target_id: str) -> None:
    global _queue
    # The fields of huey.registry.Message, pickled as Huey's serializer does.
    message = (uuid.uuid4().hex, "publish_target", None, 0, 0, None, (target_id,), {}, None, None, None, None)
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    with _queue_lock:
        if _queue is None:
            _queue = _sqlite(QUEUE_PATH, ("PRAGMA journal_mode = wal", "PRAGMA cache_size = -8000",
                                          "PRAGMA synchronous = normal"))
        _queue.execute("BEGIN EXCLUSIVE")
        try:
            _queue.execute("INSERT INTO task (queue, data, priority) VALUES (?, ?, ?)", (QUEUE_NAME, data, 0.0))
            _queue.execute("COMMIT")
        except BaseException:
            _queue.execute("ROLLBACK")
            raise


@contextmanager
def write_transaction(conn):
    """fanout/models/db.py `write_transaction`: BEGIN IMMEDIATE on SQLite, BEGIN on PostgreSQL."""
    conn.execute("BEGIN IMMEDIATE" if SQLITE else "BEGIN")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# --- the work of every authenticated request -------------------------------------------


def authenticate(authorization: str | None) -> tuple[str, str, str]:
    """(workspace id, key mode, plan) of a valid key, else Refused 401 (find_key)."""
    token = authorization[7:] if authorization and authorization[:7].lower() == "bearer " else ""
    parts = apikeys.parse(token)
    if parts is not None:
        row = database().execute(
            "SELECT k.id, k.workspace_id, k.mode, k.lookup, k.salt, k.secret_hash, k.created_at, k.revoked_at,"
            " w.id, w.name, w.plan, w.created_at FROM api_key k JOIN workspace w ON w.id = k.workspace_id"
            " WHERE k.lookup = ? AND k.revoked_at IS NULL LIMIT 1", (parts.lookup,)).fetchone()
        if row is None or row[2] != parts.mode:
            apikeys.secret_matches(os.urandom(16), parts.secret, "0" * 64)
        elif apikeys.secret_matches(bytes.fromhex(row[4]), parts.secret, row[5]):
            return row[1], row[2], row[10]
    raise Refused(401, "unauthorized", "a valid API key is required")


def rate_limit(workspace_id: str, plan: str) -> dict:
    """One hit of fanout/ratelimit.py's SQLite store (its one UPSERT); headers, or Refused 429."""
    limit = PLANS[plan].requests_per_minute
    decision = _LIMITER.hit(workspace_id, limit)
    if not decision.allowed:
        raise Refused(429, "rate_limited", f"the {plan} plan allows {limit} requests per minute",
                      {**headers(decision), "Retry-After": str(decision.retry_after)})
    return headers(decision)


def _time(value) -> str | None:
    # SQLite hands back the text Peewee stored; psycopg2 a datetime.
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value)
    return isoformat(value)


def _post_view(post: tuple, targets: list[tuple]) -> dict:
    """fanout/views.py post_view from rows (id, status, sandbox, caption, media, created_at)
    and (id, account_id, platform, status, external_url, published_at, error_code, error_message,
    first_comment_error). Its posts have no per-platform content: each target's caption and
    media are null."""
    return {
        "id": post[0], "status": post[1], "sandbox": bool(post[2]), "caption": post[3],
        "media": json.loads(post[4]),
        "targets": [{"id": t[0], "account_id": t[1], "platform": t[2], "status": t[3], "external_url": t[4],
                     "published_at": _time(t[5]), "error_code": t[6], "error_message": t[7], "caption": None,
                     "media": None, "first_comment_error": t[8]} for t in targets],
        "created_at": _time(post[5]), "scheduled_at": None,
    }


def create_post(authorization: str | None, body: dict) -> tuple[dict, dict]:
    workspace_id, mode, plan = authenticate(authorization)
    headers = rate_limit(workspace_id, plan)
    caption, account_ids = body["caption"], body["account_ids"]
    sandbox = mode == "sandbox"
    now = utcnow()
    month = now.strftime("%Y-%m")
    conn = database()
    with write_transaction(conn):
        # lock_workspace: a plain read under SQLite's IMMEDIATE lock, FOR UPDATE on PostgreSQL.
        workspace = conn.execute("SELECT id, name, plan, created_at FROM workspace WHERE id = ? LIMIT 1"
                                 + ("" if SQLITE else " FOR UPDATE"), (workspace_id,)).fetchone()
        marks = ", ".join("?" * len(account_ids))
        found = {row[0]: row for row in conn.execute(
            "SELECT id, workspace_id, platform, sandbox, username, platform_user_id, status, access_token,"
            " refresh_token, token_expires_at, connected_at, created_at, refresh_at, refresh_claimed_until"
            f" FROM account WHERE workspace_id = ? AND id IN ({marks})", (workspace_id, *account_ids))}
        for account_id in account_ids:
            account = found.get(account_id)
            if account is None or account[6] != "active" or bool(account[3]) != sandbox:
                raise Refused(422, "account_not_connected", f"account {account_id!r} cannot take this post")
        # caps.count_post: a conditional increment the database refuses past the cap.
        conn.execute("INSERT INTO monthly_usage (workspace_id, month, posts) VALUES (?, ?, 0) ON CONFLICT DO NOTHING",
                     (workspace_id, month))
        limit = PLANS[workspace[2]].posts_per_month
        if not conn.execute("UPDATE monthly_usage SET posts = posts + 1 WHERE workspace_id = ? AND month = ?"
                            " AND posts < ?", (workspace_id, month, limit)).rowcount:
            raise Refused(403, "plan_limit_exceeded", f"the {workspace[2]} plan allows {limit} posts per month")
        post = (new_id("post", now), "pending", sandbox, caption, "[]", now)
        conn.execute("INSERT INTO post (id, workspace_id, sandbox, caption, media, simulate_error, status, created_at)"
                     " VALUES (?, ?, ?, ?, ?, NULL, ?, ?)", (post[0], workspace_id, sandbox, caption, "[]", "pending", now))
        targets = []
        for position, account_id in enumerate(account_ids):
            target = (new_id("tgt", now), account_id, found[account_id][2], "pending", None, None, None, None, None)
            conn.execute("INSERT INTO target (id, post_id, account_id, platform, position, status, updated_at, attempts)"
                         " VALUES (?, ?, ?, ?, ?, 'pending', ?, 0)", (target[0], post[0], account_id, target[2], position, now))
            targets.append(target)
        for platform in dict.fromkeys(t[2] for t in targets):
            conn.execute("INSERT INTO post_platform (post_id, workspace_id, platform, created_at) VALUES (?, ?, ?, ?)",
                         (post[0], workspace_id, platform, now))
    for target in targets:  # after the commit, as handlers/posts.py `_wake_publishers`
        enqueue(target[0])
    return _post_view(post, targets), headers


def get_post(authorization: str | None, post_id: str) -> tuple[dict, dict]:
    workspace_id, _, plan = authenticate(authorization)
    headers = rate_limit(workspace_id, plan)
    if not is_id(post_id, "post"):
        raise Refused(404, "not_found", "no such post in this workspace")
    conn = database()
    post = conn.execute("SELECT id, status, sandbox, caption, media, created_at, workspace_id, simulate_error,"
                        " overrides FROM post"
                        " WHERE id = ? AND workspace_id = ? LIMIT 1", (post_id, workspace_id)).fetchone()
    if post is None:
        raise Refused(404, "not_found", "no such post in this workspace")
    targets = conn.execute(
        "SELECT id, account_id, platform, status, external_url, published_at, error_code, error_message,"
        " first_comment_error, post_id, position, updated_at, attempts, lease_expires_at, state, next_check_at"
        " FROM target WHERE post_id IN (?)"
        " ORDER BY post_id, position", (post_id,)).fetchall()
    return _post_view(post, targets), headers


# --- HTTP -------------------------------------------------------------------------------


async def _answer(work, *args, status: int = 200) -> JSONResponse:
    try:
        # One hop to the thread pool for all the blocking work of the request.
        body, headers = await run_in_threadpool(work, *args)
    except Refused as e:
        return JSONResponse({"error": {"code": e.code, "message": e.message}}, e.status, e.headers)
    return JSONResponse(body, status, headers)


async def upload(request):
    try:
        body = await request.json()
    except ValueError:
        return JSONResponse({"error": {"code": "validation_error", "message": "the body is not JSON"}}, 400)
    return await _answer(create_post, request.headers.get("authorization"), body, status=201)


async def read_post(request):
    return await _answer(get_post, request.headers.get("authorization"), request.path_params["id"])


async def healthz(request):
    return JSONResponse({"status": "ok"})


app = Starlette(routes=[
    Route("/v1/upload", upload, methods=["POST"]),
    Route("/v1/posts/{id}", read_post, methods=["GET"]),
    Route("/healthz", healthz, methods=["GET"]),
])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args()
    # h11, as `fanout api` serves (fanout/http/server.py), so both parse HTTP alike.
    uvicorn.run(app, host=args.host, port=args.port, http="h11", access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
