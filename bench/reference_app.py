"""The bare reference bench/bench_api.py measures Fanout against: `POST /v1/upload` and
`GET /v1/posts/{id}` written straight on Starlette and a database driver, sharing no code
with Fanout (it imports nothing from the `fanout` package), doing the same work per request.

Run: python bench/reference_app.py --database DB --queue QUEUE [--port 8001]

DB is the file of a SQLite database or a postgresql:// URL, QUEUE a SQLite file or a
redis:// URL. The database is one `fanout migrate` made, filled by Fanout's own code
(bench/bench_api.py does that), so keys, workspaces and accounts are real; the reference
adds a table of its own for its rate limits on SQLite. Per request:

- the key: prefix, length, alphabet and CRC-32 checksum of the string, one query for the key
  joined to its workspace, the salted HMAC-SHA256 of its secret compared in constant time;
- the rate limit: one UPSERT of the workspace's row in a table of the reference's own
  (`reference_ratelimit`, a sliding-window counter), in autocommit; on PostgreSQL + Redis
  one Redis script call;
- upload: the body parsed and its two fields checked, then one write transaction (BEGIN
  IMMEDIATE on SQLite; on PostgreSQL BEGIN with the workspace row FOR UPDATE) that reads
  the workspace and the destination accounts, counts the month in `monthly_usage`
  (insert-or-ignore, then an increment refused past the plan's cap) and inserts the post,
  its targets and its post-platform rows; after the commit, one queue row per target: an
  INSERT into a second SQLite file, or an LPUSH on Redis;
- get: the post, then its targets in position order.

Bodies have the shapes Fanout answers with (openapi.yaml's `Post`), with the RateLimit
headers. On SQLite the work runs on the event loop (statements of microseconds, on local
files); on PostgreSQL in the thread pool, one trip a request, each thread taking a
connection from psycopg's pool, as a request there waits on the network. Only what the bench
sends is handled: `caption` and `account_ids`.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import hmac
import json
import os
import sqlite3
import string
import zlib

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

# The plans' posts per month and requests per minute (docs/decisions.md#plans).
PLANS = {"FREE": (30, 30), "STARTER": (300, 120), "PRO": (2000, 300), "BUSINESS": (20000, 600)}
WINDOW_MS = 60_000

# --- key strings and ids -------------------------------------------------------------------

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
BASE62_SET = frozenset(BASE62)
KEY_PREFIXES = (("svc_live_", "live"), ("svc_sandbox_", "sandbox"))
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CROCKFORD_SET = frozenset(CROCKFORD)


def _base62_crc(text: str) -> str:
    value, chars = zlib.crc32(text.encode()), []
    for _ in range(6):
        value, digit = divmod(value, 62)
        chars.append(BASE62[digit])
    return "".join(reversed(chars))


def parse_key(token: str) -> tuple[str, str, str] | None:
    """(mode, lookup, secret) of a well-formed key string, else None."""
    for prefix, mode in KEY_PREFIXES:
        if token.startswith(prefix):
            rest = token[len(prefix):]
            if len(rest) != 50 or not BASE62_SET.issuperset(rest):
                return None
            if not hmac.compare_digest(_base62_crc(prefix + rest[:44]), rest[44:]):
                return None
            return mode, rest[:12], rest[12:44]
    return None


def secret_matches(salt_hex: str, secret: str, stored: str) -> bool:
    digest = hmac.new(bytes.fromhex(salt_hex), secret.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(digest, stored)


def new_id(prefix: str, now_ms: int) -> str:
    value = (now_ms << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(CROCKFORD[value & 31])
        value >>= 5
    return prefix + "_" + "".join(reversed(chars))


def is_post_id(value: str) -> bool:
    return len(value) == 31 and value.startswith("post_") and CROCKFORD_SET.issuperset(value[5:])


def now_utc() -> tuple[dt.datetime, int]:
    """Naive UTC now to the millisecond, and the same in epoch milliseconds."""
    now = dt.datetime.now(dt.timezone.utc)
    ms = int(now.timestamp() * 1000)
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).replace(tzinfo=None), ms


def rfc3339(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):  # SQLite hands back the text the row was written with
        value = dt.datetime.fromisoformat(value)
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


UNAUTHORIZED = Refused(401, "unauthorized", "a valid API key is required")
NOT_FOUND = Refused(404, "not_found", "no such post in this workspace")


def rate_headers(limit: int, count: int) -> dict:
    return {"RateLimit-Policy": f'"default";q={limit};w=60', "RateLimit": f'"default";r={max(limit - count, 0)};t=60'}


def rate_refused(plan: str, limit: int) -> Refused:
    return Refused(429, "rate_limited", f"the {plan} plan allows {limit} requests per minute",
                   {**rate_headers(limit, limit), "Retry-After": "1"})


def post_body(post: tuple, targets: list) -> dict:
    """openapi.yaml's `Post` from (id, status, sandbox, caption, media, created_at) and targets'
    (id, account_id, platform, status, external_url, published_at, error_code, error_message,
    first_comment_error). Its posts have no per-platform content: no overrides, and each
    target's caption, media and published_parts are null."""
    return {
        "id": post[0], "status": post[1], "sandbox": bool(post[2]), "caption": post[3], "media": json.loads(post[4]),
        "overrides": {},
        "targets": [{"id": t[0], "account_id": t[1], "platform": t[2], "status": t[3], "external_url": t[4],
                     "published_at": rfc3339(t[5]), "error_code": t[6], "error_message": t[7], "caption": None,
                     "media": None, "first_comment_error": t[8], "published_parts": None, "warnings": []}
                    for t in targets],
        "created_at": rfc3339(post[5]), "scheduled_at": None,
    }


def checked_upload(body) -> tuple[str, list[str]]:
    if (not isinstance(body, dict) or not isinstance(body.get("caption"), str)
            or not isinstance(body.get("account_ids"), list) or not body["account_ids"]
            or not all(isinstance(a, str) for a in body["account_ids"])):
        raise Refused(400, "validation_error", "caption and account_ids are required")
    return body["caption"], list(dict.fromkeys(body["account_ids"]))


KEY_SQL = ("SELECT k.workspace_id, k.mode, k.salt, k.secret_hash, w.plan FROM api_key k"
           " JOIN workspace w ON w.id = k.workspace_id WHERE k.lookup = {p} AND k.revoked_at IS NULL")
POST_SQL = "SELECT id, status, sandbox, caption, media, created_at FROM post WHERE id = {p} AND workspace_id = {p}"
TARGETS_SQL = ("SELECT id, account_id, platform, status, external_url, published_at, error_code, error_message,"
               " first_comment_error FROM target WHERE post_id = {p} ORDER BY position")
ACCOUNTS_SQL = "SELECT id, platform, status, sandbox FROM account WHERE workspace_id = {p} AND id IN ({marks})"
NEW_MONTH_SQL = "INSERT INTO monthly_usage (workspace_id, month, posts) VALUES ({p}, {p}, 0) ON CONFLICT DO NOTHING"
COUNT_SQL = "UPDATE monthly_usage SET posts = posts + 1 WHERE workspace_id = {p} AND month = {p} AND posts < {p}"
INSERT_POST_SQL = ("INSERT INTO post (id, workspace_id, sandbox, caption, media, simulate_error, status, created_at)"
                   " VALUES ({p}, {p}, {p}, {p}, '[]', NULL, 'pending', {p})")
INSERT_TARGET_SQL = ("INSERT INTO target (id, post_id, account_id, platform, position, status, attempts, retries,"
                     " updated_at) VALUES ({p}, {p}, {p}, {p}, {p}, 'pending', 0, 0, {p})")
INSERT_POST_PLATFORM_SQL = ("INSERT INTO post_platform (post_id, workspace_id, platform, created_at)"
                            " VALUES ({p}, {p}, {p}, {p})")


def sql(template: str, placeholder: str, count: int = 0) -> str:
    return template.format(p=placeholder, marks=", ".join([placeholder] * count))


class Store:
    """The work of each request on one backend: `authenticate`, `upload`, `read`."""

    def authenticate(self, authorization: str | None) -> tuple[str, str, str]:
        """(workspace id, key mode, plan) of a valid bearer key, else Refused 401."""
        if not authorization or authorization[:7].lower() != "bearer ":
            raise UNAUTHORIZED
        parts = parse_key(authorization[7:])
        if parts is None:
            raise UNAUTHORIZED
        mode, lookup, secret = parts
        row = self.key_row(lookup)
        if row is None or row[1] != mode:
            secret_matches("00" * 16, secret, "0" * 64)  # the same cost as a wrong secret
            raise UNAUTHORIZED
        if not secret_matches(row[2], secret, row[3]):
            raise UNAUTHORIZED
        return row[0], row[1], row[4]

    def request(self, authorization: str | None) -> tuple[str, str, str, dict]:
        workspace_id, mode, plan = self.authenticate(authorization)
        limit = PLANS[plan][1]
        count = self.hit(workspace_id, limit)
        if count is None:
            raise rate_refused(plan, limit)
        return workspace_id, mode, plan, rate_headers(limit, count)

    def upload(self, authorization: str | None, body) -> tuple[dict, dict]:
        workspace_id, mode, _, headers = self.request(authorization)
        caption, account_ids = checked_upload(body)
        return self.create_post(workspace_id, mode == "sandbox", caption, account_ids), headers

    def read(self, authorization: str | None, post_id: str) -> tuple[dict, dict]:
        workspace_id, _, _, headers = self.request(authorization)
        if not is_post_id(post_id):
            raise NOT_FOUND
        return self.read_post(workspace_id, post_id), headers

    @staticmethod
    def check_accounts(found: dict, account_ids: list[str], sandbox: bool) -> None:
        for account_id in account_ids:
            account = found.get(account_id)
            if account is None or account[2] != "active" or bool(account[3]) != sandbox:
                raise Refused(422, "account_not_connected", f"account {account_id!r} cannot take this post")

    @staticmethod
    def over_cap(plan: str) -> Refused:
        return Refused(403, "plan_limit_exceeded", f"the {plan} plan allows {PLANS[plan][0]} posts per month")


# --- SQLite -------------------------------------------------------------------------------

# A sliding-window counter per workspace: this minute's count and the last one's, the last
# weighted by how much of it the window still covers. Admitted iff under the limit; the
# count is taken only when admitted.
SQLITE_RATELIMIT_TABLE = ("CREATE TABLE IF NOT EXISTS reference_ratelimit (workspace_id TEXT PRIMARY KEY,"
                          " minute INTEGER NOT NULL, count INTEGER NOT NULL, previous INTEGER NOT NULL,"
                          " admitted INTEGER NOT NULL)")
# Every expression of an UPDATE reads the row as it was.
_CURRENT = "(CASE WHEN minute = :minute THEN count ELSE 0 END)"
_PREVIOUS = "(CASE WHEN minute = :minute THEN previous WHEN minute = :minute - 1 THEN count ELSE 0 END)"
SQLITE_HIT = f"""
INSERT INTO reference_ratelimit (workspace_id, minute, count, previous, admitted) VALUES (:ws, :minute, 1, 0, 1)
ON CONFLICT (workspace_id) DO UPDATE SET
  count = {_CURRENT} + ({_CURRENT} + {_PREVIOUS} * :weight < :limit),
  previous = {_PREVIOUS},
  admitted = {_CURRENT} + {_PREVIOUS} * :weight < :limit,
  minute = :minute
RETURNING admitted, count + previous * :weight
"""


class SqliteStore(Store):
    """One connection to the database and one to the queue's file, used on the event loop."""

    def __init__(self, database: str, queue: str) -> None:
        self.db = self._connect(database)
        self.db.execute("PRAGMA foreign_keys = 1")
        self.db.execute(SQLITE_RATELIMIT_TABLE)
        self.queue = self._connect(queue)
        self.queue.execute("CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                           " payload TEXT NOT NULL, enqueued_at INTEGER NOT NULL)")
        self.sql = {name: sql(value, "?") for name, value in globals().items() if name.endswith("_SQL")}

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        for pragma in ("journal_mode = wal", "synchronous = normal", "busy_timeout = 10000"):
            conn.execute("PRAGMA " + pragma)
        return conn

    def key_row(self, lookup: str):
        return self.db.execute(self.sql["KEY_SQL"], (lookup,)).fetchone()

    def hit(self, workspace_id: str, limit: int) -> int | None:
        now_ms = int(dt.datetime.now(dt.timezone.utc).timestamp() * 1000)
        minute, into = divmod(now_ms, WINDOW_MS)
        weight = 1 - into / WINDOW_MS
        admitted, count = self.db.execute(SQLITE_HIT, {"ws": workspace_id, "minute": minute, "weight": weight,
                                                       "limit": limit}).fetchone()
        return int(count) if admitted else None

    def create_post(self, workspace_id: str, sandbox: bool, caption: str, account_ids: list[str]) -> dict:
        now, now_ms = now_utc()
        stamp, month = now.isoformat(" "), now.strftime("%Y-%m")
        q, db = self.sql, self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            plan = db.execute("SELECT plan FROM workspace WHERE id = ?", (workspace_id,)).fetchone()[0]
            found = {row[0]: row for row in db.execute(sql(ACCOUNTS_SQL, "?", len(account_ids)),
                                                       (workspace_id, *account_ids))}
            self.check_accounts(found, account_ids, sandbox)
            db.execute(q["NEW_MONTH_SQL"], (workspace_id, month))
            if not db.execute(q["COUNT_SQL"], (workspace_id, month, PLANS[plan][0])).rowcount:
                raise self.over_cap(plan)
            post = (new_id("post", now_ms), "pending", sandbox, caption, "[]", now)
            db.execute(q["INSERT_POST_SQL"], (post[0], workspace_id, sandbox, caption, stamp))
            targets = []
            for position, account_id in enumerate(account_ids):
                target = (new_id("tgt", now_ms), account_id, found[account_id][1], "pending", None, None, None, None, None)
                db.execute(q["INSERT_TARGET_SQL"], (target[0], post[0], account_id, target[2], position, stamp))
                targets.append(target)
            for platform in dict.fromkeys(t[2] for t in targets):
                db.execute(q["INSERT_POST_PLATFORM_SQL"], (post[0], workspace_id, platform, stamp))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        for target in targets:
            self.queue.execute("INSERT INTO queue (name, payload, enqueued_at) VALUES ('publish', ?, ?)",
                               (json.dumps({"target_id": target[0]}), now_ms))
        return post_body(post, targets)

    def read_post(self, workspace_id: str, post_id: str) -> dict:
        post = self.db.execute(self.sql["POST_SQL"], (post_id, workspace_id)).fetchone()
        if post is None:
            raise NOT_FOUND
        return post_body(post, self.db.execute(self.sql["TARGETS_SQL"], (post_id,)).fetchall())


# --- PostgreSQL + Redis ---------------------------------------------------------------------

# The same sliding-window counter as SQLite's, in one script call.
REDIS_HIT = """
local minute, weight, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = tonumber(redis.call('HGET', KEYS[1], minute) or '0')
local before = tonumber(redis.call('HGET', KEYS[1], minute - 1) or '0')
local count = now + before * weight
if count >= limit then return {0, tostring(count)} end
redis.call('HINCRBY', KEYS[1], minute, 1)
redis.call('PEXPIRE', KEYS[1], 120000)
return {1, tostring(count + 1)}
"""
REDIS_PREFIX = "reference:"


class PostgresStore(Store):
    """psycopg 3 connections from its pool, in autocommit; Redis for the limit and the queue."""

    def __init__(self, database: str, queue: str) -> None:
        import redis
        from psycopg_pool import ConnectionPool

        self.pool = ConnectionPool(database, min_size=4, max_size=40, kwargs={"autocommit": True}, open=True)
        self.pool.wait()
        self.redis = redis.Redis.from_url(queue)
        self.script = self.redis.register_script(REDIS_HIT)
        self.sql = {name: sql(value, "%s") for name, value in globals().items() if name.endswith("_SQL")}

    def key_row(self, lookup: str):
        with self.pool.connection() as conn:
            return conn.execute(self.sql["KEY_SQL"], (lookup,)).fetchone()

    def hit(self, workspace_id: str, limit: int) -> int | None:
        minute, into = divmod(int(dt.datetime.now(dt.timezone.utc).timestamp() * 1000), WINDOW_MS)
        admitted, count = self.script(keys=[REDIS_PREFIX + "ratelimit:" + workspace_id],
                                      args=[minute, 1 - into / WINDOW_MS, limit])
        return int(float(count)) if admitted else None

    def create_post(self, workspace_id: str, sandbox: bool, caption: str, account_ids: list[str]) -> dict:
        now, now_ms = now_utc()
        month = now.strftime("%Y-%m")
        q = self.sql
        with self.pool.connection() as conn, conn.transaction():
            plan = conn.execute("SELECT plan FROM workspace WHERE id = %s FOR UPDATE", (workspace_id,)).fetchone()[0]
            found = {row[0]: row for row in conn.execute(sql(ACCOUNTS_SQL, "%s", len(account_ids)),
                                                         (workspace_id, *account_ids))}
            self.check_accounts(found, account_ids, sandbox)
            conn.execute(q["NEW_MONTH_SQL"], (workspace_id, month))
            if not conn.execute(q["COUNT_SQL"], (workspace_id, month, PLANS[plan][0])).rowcount:
                raise self.over_cap(plan)
            post = (new_id("post", now_ms), "pending", sandbox, caption, "[]", now)
            conn.execute(q["INSERT_POST_SQL"], (post[0], workspace_id, sandbox, caption, now))
            targets = []
            for position, account_id in enumerate(account_ids):
                target = (new_id("tgt", now_ms), account_id, found[account_id][1], "pending", None, None, None, None, None)
                conn.execute(q["INSERT_TARGET_SQL"], (target[0], post[0], account_id, target[2], position, now))
                targets.append(target)
            for platform in dict.fromkeys(t[2] for t in targets):
                conn.execute(q["INSERT_POST_PLATFORM_SQL"], (post[0], workspace_id, platform, now))
        for target in targets:
            self.redis.lpush(REDIS_PREFIX + "queue", json.dumps({"target_id": target[0], "enqueued_at": now_ms}))
        return post_body(post, targets)

    def read_post(self, workspace_id: str, post_id: str) -> dict:
        with self.pool.connection() as conn:
            post = conn.execute(self.sql["POST_SQL"], (post_id, workspace_id)).fetchone()
            if post is None:
                raise NOT_FOUND
            return post_body(post, conn.execute(self.sql["TARGETS_SQL"], (post_id,)).fetchall())


# --- HTTP -----------------------------------------------------------------------------------


def make_app(store: Store) -> Starlette:
    run = (lambda work, *args: _inline(work, *args)) if isinstance(store, SqliteStore) else run_in_threadpool

    async def answer(work, *args, status: int = 200) -> Response:
        try:
            body, headers = await run(work, *args)
        except Refused as e:
            return JSONResponse({"error": {"code": e.code, "message": e.message}}, e.status, e.headers)
        return JSONResponse(body, status, headers)

    async def upload(request):
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": {"code": "validation_error", "message": "the body is not JSON"}}, 400)
        return await answer(store.upload, request.headers.get("authorization"), body, status=201)

    async def read_post(request):
        return await answer(store.read, request.headers.get("authorization"), request.path_params["id"])

    async def healthz(request):
        return JSONResponse({"status": "ok"})

    return Starlette(routes=[
        Route("/v1/upload", upload, methods=["POST"]),
        Route("/v1/posts/{id}", read_post, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
    ])


async def _inline(work, *args):
    return work(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="a SQLite file, or a postgresql:// URL")
    parser.add_argument("--queue", required=True, help="a SQLite file, or a redis:// URL")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args()
    if args.database.startswith("postgresql://"):
        store: Store = PostgresStore(args.database, args.queue)
    else:
        store = SqliteStore(args.database, args.queue)
    # uvicorn's h11 protocol, as `fanout api` serves (for its bounded request head), and
    # its default event loop.
    uvicorn.run(make_app(store), host=args.host, port=args.port, http="h11", access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
