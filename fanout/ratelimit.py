"""Requests per minute per workspace, exact across threads and processes
(docs/decisions.md#requests-per-minute).

Algorithm: a sliding-window log. Every admitted request's timestamp is kept for the window,
and a request is admitted iff fewer than `limit` admitted requests lie in the last 60 s.
That makes the count exact however long a burst takes (100 concurrent requests against 30
admit exactly 30; a token bucket or GCRA would refill and let a 31st in if the burst lasts
over 2 s) and there is no boundary burst of 2N as with a fixed window. Memory is O(limit)
per key, fine for the plans' limits (at most 600). Refused requests are not recorded, so a
client that keeps retrying too early does not push its own recovery further out.

The `limits` library is not used: its storages read `time.time()` themselves, so the clock
cannot be injected (Retry-After exactness could not be tested without sleeping), and it has
no store shared by processes on one machine without a server, which the embedded default
(SQLite, no Redis) needs.

Timestamps are kept in whole milliseconds (the runtime clock's resolution), so window edges
compare exactly: a hit at t counts at every instant before t + 60 s and no longer at t + 60 s.
"""
from __future__ import annotations

import datetime as _dt
import random
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Callable, Protocol
from urllib.parse import urlsplit, urlunsplit

from .datadir import private_file
from .settings import sqlite_path
from .times import to_epoch_ms, utcnow

WINDOW = 60  # seconds: the plans count requests per minute
POLICY = "default"


class LimiterUnavailable(RuntimeError):
    """The store could not answer (Redis down, SQLite locked past its timeout).

    The caller decides whether to fail open or closed. The message never holds a password.
    """


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    # Whole seconds >= 1 when refused: waiting exactly this long is enough. 0 when allowed.
    retry_after: int

    @property
    def reset(self) -> int:
        """Whole seconds until the window holds no hit, so the whole quota is back.

        After an admitted hit the newest hit is now, so that is exactly one window. After a
        refusal the newest hit is at most one window old, so a window is the upper bound.
        """
        return WINDOW


class Store(Protocol):
    def hit(self, key: str, now: float, window: float, limit: int) -> tuple[bool, int, float | None]:
        """Atomically: forget hits older than the window, record one if fewer than `limit` remain.

        Returns (admitted, hits in the window after this call, oldest hit in the window or None).
        """
        ...

    def ping(self) -> None:
        """Raise LimiterUnavailable unless the store answers now (for /readyz)."""
        ...

    def close(self) -> None: ...


def _ms(seconds: float) -> int:
    # Callers pass epoch milliseconds / 1000; rounding gets the exact integer back.
    return round(seconds * 1000)


def _redact(url: str) -> str:
    """The URL with its password replaced, for messages."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        netloc = f"{parts.username or ''}:***@{host}"
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "<unparseable URL>"


class SqliteStore:
    """Hits in a SQLite file of their own, shared by every process on one machine.

    Uses the stdlib `sqlite3` directly, not the app's Peewee database, with one connection
    per thread. Each hit is one `BEGIN IMMEDIATE` transaction, which takes the write lock
    before reading, so two processes can never both count 29 and both insert.
    """

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        if not path or ":memory:" in path:
            # A database in memory would not be shared between processes.
            raise ValueError("SqliteStore needs a file path, not an in-memory database")
        self.path = path
        self.timeout = timeout
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._prepared = False

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        # check_same_thread=False only so close() may run on another thread; each thread
        # still uses its own connection.
        # `timeout` is SQLite's busy timeout: how long a hit waits for another's write lock.
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA synchronous = NORMAL")
            with self._lock:
                if not self._prepared:
                    self._prepare(conn)
                    self._prepared = True
        except BaseException:
            conn.close()
            raise
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """WAL and the table, once per process; another process may be doing the same."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                # Switching to WAL answers "locked" at once, without the busy timeout, while
                # another connection has the file open; so switch only if needed, and retry.
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("CREATE TABLE IF NOT EXISTS ratelimit_hits (key TEXT NOT NULL, ts INTEGER NOT NULL)")
                conn.execute("CREATE INDEX IF NOT EXISTS ratelimit_hits_key_ts ON ratelimit_hits (key, ts)")
                conn.execute("COMMIT")
                return
            except sqlite3.OperationalError as e:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if "locked" not in str(e) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def hit(self, key: str, now: float, window: float, limit: int) -> tuple[bool, int, float | None]:
        now_ms, cutoff = _ms(now), _ms(now) - _ms(window)
        try:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("DELETE FROM ratelimit_hits WHERE key = ? AND ts <= ?", (key, cutoff))
                if random.random() < 0.001:
                    # Keys that stopped sending would otherwise keep their last hits forever.
                    conn.execute("DELETE FROM ratelimit_hits WHERE ts <= ?", (cutoff,))
                count, oldest = conn.execute(
                    "SELECT COUNT(*), MIN(ts) FROM ratelimit_hits WHERE key = ?", (key,)
                ).fetchone()
                admitted = count < limit
                if admitted:
                    conn.execute("INSERT INTO ratelimit_hits (key, ts) VALUES (?, ?)", (key, now_ms))
                    count += 1
                    oldest = now_ms if oldest is None else min(oldest, now_ms)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise LimiterUnavailable(f"rate limit store {self.path} unavailable: {e}") from e
        return admitted, count, None if oldest is None else oldest / 1000

    def ping(self) -> None:
        # A connection of its own, closed at once: the per-thread ones live as long as their
        # thread, and each readiness check runs on a new one.
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            try:
                conn.execute("SELECT 1").fetchone()
            finally:
                conn.close()
        except sqlite3.Error as e:
            raise LimiterUnavailable(f"rate limit store {self.path} unavailable: {e}") from e

    def close(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()


# One round trip, atomic: Redis runs a script with nothing interleaved. Scores are epoch ms.
_HIT = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local admitted = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  admitted = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {admitted, count, oldest[2] or false}
"""


class RedisStore:
    """Hits in one sorted set per key, for API processes on several machines."""

    def __init__(self, url: str, prefix: str = "fanout:ratelimit:", timeout: float = 1.0) -> None:
        import redis

        self._errors = (redis.RedisError,)
        self._where = _redact(url)
        self.prefix = prefix
        self._redis = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._script = self._redis.register_script(_HIT)

    def _unavailable(self, e: Exception) -> LimiterUnavailable:
        # redis-py's messages name host and port, not the password; redact anyway in case.
        message = str(e)
        password = self._redis.connection_pool.connection_kwargs.get("password")
        if password:
            message = message.replace(str(password), "***")
        return LimiterUnavailable(f"rate limit store {self._where} unavailable: {message}")

    def hit(self, key: str, now: float, window: float, limit: int) -> tuple[bool, int, float | None]:
        now_ms = _ms(now)
        # Members must differ even for hits in the same millisecond, or ZADD would merge them.
        member = f"{now_ms}-{secrets.token_hex(8)}"
        try:
            admitted, count, oldest = self._script(
                keys=[self.prefix + key], args=[now_ms, _ms(window), limit, member]
            )
        except self._errors as e:
            raise self._unavailable(e) from e
        return bool(admitted), int(count), None if oldest is None else int(float(oldest)) / 1000

    def ping(self) -> None:
        try:
            self._redis.ping()
        except self._errors as e:
            raise self._unavailable(e) from e

    def close(self) -> None:
        self._redis.close()


def open_store(url: str) -> Store:
    """`sqlite:///path/to/ratelimit.db` or `redis://` / `rediss://`; ValueError otherwise."""
    if url.startswith("sqlite:///") and url != "sqlite:///":
        store = SqliteStore(str(sqlite_path(url)))
        private_file(sqlite_path(url))  # before the store's first connection would create it
        return store
    if url.startswith(("redis://", "rediss://")):
        return RedisStore(url)
    raise ValueError(f"rate limit store must be sqlite:///path or redis://host:6379/0, not {_redact(url)!r}")


def _ceil_seconds(ms: int) -> int:
    return -(-ms // 1000)


class Limiter:
    """`limit` requests per key per sliding 60 s, with the time read from `clock`.

    `clock` is the runtime's: naive UTC datetimes (fanout.times.utcnow by default).
    """

    def __init__(self, store: Store, clock: Callable[[], _dt.datetime] = utcnow) -> None:
        self.store = store
        self.clock = clock

    def hit(self, key: str, limit: int) -> Decision:
        """Count one request for `key` if it is under `limit`; refused requests are not counted."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        now_ms = to_epoch_ms(self.clock())
        admitted, count, oldest = self.store.hit(key, now_ms / 1000, WINDOW, limit)
        if admitted:
            # The hit just recorded is the newest, so the window empties a full window from now.
            return Decision(True, limit, max(limit - count, 0), 0)
        # Refused means `limit` hits lie in the window; the oldest leaving frees one unit.
        wait_ms = _ms(oldest) + WINDOW * 1000 - now_ms if oldest is not None else 0
        return Decision(False, limit, 0, max(1, _ceil_seconds(wait_ms)))


def policy(limit: int) -> str:
    """The `RateLimit-Policy` value: `limit` requests per sliding window."""
    return f'"{POLICY}";q={limit};w={WINDOW}'


def headers(decision: Decision) -> dict[str, str]:
    """The draft-ietf-httpapi-ratelimit-headers fields (RFC 9651 structured), plus Retry-After.

    `t` is the seconds until quota comes back: on a refusal Retry-After (when one unit frees
    up); otherwise the seconds until the window is empty and the whole quota is back, which
    after an admitted request is always the window.
    """
    t = decision.retry_after if not decision.allowed else decision.reset
    fields = {
        "RateLimit-Policy": policy(decision.limit),
        "RateLimit": f'"{POLICY}";r={decision.remaining};t={t}',
    }
    if not decision.allowed:
        fields["Retry-After"] = str(decision.retry_after)
    return fields
