"""Requests per minute per workspace, exact across threads and processes
(docs/decisions.md#requests-per-minute).

Algorithm: a sliding-window log. A request is admitted iff fewer than `limit` admitted
requests lie in the last 60 s, i.e. iff the limit-th newest admitted one has left the
window, so a key needs only its last `limit` admitted timestamps. That makes the count
exact however long a burst takes (100 concurrent requests against 30 admit exactly 30; a
token bucket or GCRA would refill and let a 31st in if the burst lasts over 2 s) and there
is no boundary burst of 2N as with a fixed window. Memory is O(limit) per key, fine for
the plans' limits (at most 600). Refused requests are not recorded, so a client that keeps
retrying too early does not push its own recovery further out.

Each hit is one round trip: on SQLite one UPSERT ... RETURNING on the key's row, on Redis
one script (EVALSHA) on the key's list.

The `limits` library is not used: its storages read `time.time()` themselves, so the clock
cannot be injected (Retry-After exactness could not be tested without sleeping), and it has
no store shared by processes on one machine without a server, which the embedded default
(SQLite, no Redis) needs.

Timestamps are kept in whole milliseconds (the runtime clock's resolution), so window edges
compare exactly: a hit at t counts at every instant before t + 60 s and no longer at t + 60 s.
"""
from __future__ import annotations

import bisect
import datetime as _dt
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
        """Atomically: record one hit at `now` if fewer than `limit` lie in the window.

        Returns (admitted, hits in the window after this call, and when refused the hit whose
        leaving the window lets the next one in: the limit-th newest; None when admitted).
        """
        ...

    def count(self, key: str, now: float, window: float) -> int:
        """How many admitted hits lie in the window ending at `now`, recording nothing."""
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


# Stamps are epoch milliseconds written as 13 digits with no separator (up to the year 2286),
# so a key's log is one short string, `substr` finds its n-th newest stamp, and comparing
# stamps as text orders them as numbers.
_DIGITS = 13

# One statement per hit, atomic: SQLite takes the write lock before the statement reads.
# A hit is admitted iff fewer than `limit` stamps are kept or the limit-th newest has left
# the window; then its stamp is appended and only the newest `limit` are kept. What that
# drops is never needed again: sorted stamps older than one that left the window left it
# too, so every admitted hit still in the window is kept, whatever limits came before. A
# stamp is never older than the newest kept (a clock stepped back records the newest
# again), so the string stays sorted. `admitted` is a column because RETURNING sees only
# the new row; `expires` is a window after the key's last hit, when the row counts nothing.
_HIT_SQL = f"""
INSERT INTO ratelimit_log (key, expires, admitted, stamps) VALUES (:key, :expires, 1, :now)
ON CONFLICT (key) DO UPDATE SET
  stamps = iif(
    length(stamps) < {_DIGITS} * :limit OR substr(stamps, -{_DIGITS} * :limit, {_DIGITS}) <= :cutoff,
    substr(stamps || max(:now, substr(stamps, -{_DIGITS})), -{_DIGITS} * :limit),
    stamps),
  admitted =
    length(stamps) < {_DIGITS} * :limit OR substr(stamps, -{_DIGITS} * :limit, {_DIGITS}) <= :cutoff,
  expires = max(expires, excluded.expires)
RETURNING admitted, stamps
"""

_SCHEMA = (
    # The log of the store before this one (a row per hit). Dropped rather than converted:
    # its counts are lost once, so a key may get twice its limit in the minute of the
    # upgrade, and the file does not keep a table nothing reads any more.
    "DROP TABLE IF EXISTS ratelimit_hits",
    # `stamps` last: long logs overflow the page, `expires` stays in it for the sweep.
    (
        "CREATE TABLE IF NOT EXISTS ratelimit_log ("
        " key TEXT PRIMARY KEY, expires INTEGER NOT NULL, admitted INTEGER NOT NULL, stamps TEXT NOT NULL)"
    ),
    # A key that stops sending keeps its row until a new key arrives: then every row a window
    # past its last hit goes (a new row's stamps are its one stamp, now). So the table holds
    # the keys of about the last minute; the scan runs only on a key's first hit in a window.
    (
        "CREATE TRIGGER IF NOT EXISTS ratelimit_log_sweep AFTER INSERT ON ratelimit_log BEGIN"
        " DELETE FROM ratelimit_log WHERE expires <= CAST(NEW.stamps AS INTEGER); END"
    ),
)


def _stamp(ms: int) -> str:
    if not 0 <= ms < 10**_DIGITS:
        raise ValueError(f"time out of the limiter's range: {ms} ms since the epoch")
    return f"{ms:0{_DIGITS}d}"


class SqliteStore:
    """Hits in a SQLite file of their own, shared by every process on one machine.

    Uses the stdlib `sqlite3` directly, not the app's Peewee database, with one connection
    per thread. A key is one row holding its last `limit` admitted stamps, and a hit is one
    UPSERT ... RETURNING in autocommit, so two processes can never both count 29 and both
    insert.
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
        self._writer = threading.Lock()
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
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute("COMMIT")
                return
            except sqlite3.OperationalError as e:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if "locked" not in str(e) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def hit(self, key: str, now: float, window: float, limit: int) -> tuple[bool, int, float | None]:
        now_ms, window_ms = _ms(now), _ms(window)
        cutoff = _stamp(now_ms - window_ms)
        params = {"key": key, "now": _stamp(now_ms), "cutoff": cutoff, "limit": limit, "expires": now_ms + window_ms}
        try:
            conn = self._connection()
            # One writer of this file at a time in the process: a thread finding SQLite's
            # lock taken would sleep in its busy handler (1 ms, then 2, 5... up to 100 ms);
            # queued here it writes the moment the last one is done. Other processes still
            # queue on SQLite's lock. fetchall: the statement commits once its RETURNING
            # rows are all read.
            with self._writer:
                [(admitted, stamps)] = conn.execute(_HIT_SQL, params).fetchall()
        except sqlite3.Error as e:
            raise LimiterUnavailable(f"rate limit store {self.path} unavailable: {e}") from e
        # The row keeps every admitted hit in the window and maybe older ones before them.
        kept = len(stamps) // _DIGITS
        gone = bisect.bisect_right(range(kept), cutoff, key=lambda i: stamps[i * _DIGITS:(i + 1) * _DIGITS])
        if admitted:
            return True, kept - gone, None
        frees = (kept - limit) * _DIGITS  # the limit-th newest: refused, so it is in the window
        return False, kept - gone, int(stamps[frees:frees + _DIGITS]) / 1000

    def count(self, key: str, now: float, window: float) -> int:
        cutoff = _stamp(_ms(now) - _ms(window))
        try:
            row = self._connection().execute("SELECT stamps FROM ratelimit_log WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as e:
            raise LimiterUnavailable(f"rate limit store {self.path} unavailable: {e}") from e
        stamps = row[0] if row else ""
        return sum(stamps[i:i + _DIGITS] > cutoff for i in range(0, len(stamps), _DIGITS))

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


# One round trip (EVALSHA), atomic: Redis runs a script with nothing interleaved. A key is a
# list of its admitted stamps in the window, epoch ms, oldest first. Stamps that left the
# window are popped from the front, each once, so a hit costs O(1) however long the list;
# the list never holds more than the limit, and it expires a window after the last admitted
# hit. A stamp is never older than the newest kept (API machines' clocks differ a little),
# so the list stays sorted.
_HIT = """
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local head = redis.call('LINDEX', KEYS[1], 0)
while head and tonumber(head) <= now - window do
  redis.call('LPOP', KEYS[1])
  head = redis.call('LINDEX', KEYS[1], 0)
end
local count = redis.call('LLEN', KEYS[1])
if count >= limit then
  return {0, count, redis.call('LINDEX', KEYS[1], -limit)}
end
local stamp, newest = ARGV[1], redis.call('LINDEX', KEYS[1], -1)
if newest and tonumber(newest) > now then
  stamp = newest
end
redis.call('RPUSH', KEYS[1], stamp)
redis.call('PEXPIRE', KEYS[1], window)
return {1, count + 1, false}
"""


class RedisStore:
    """Hits in one list per key, for API processes on several machines."""

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
        try:
            admitted, count, frees = self._script(keys=[self.prefix + key], args=[_ms(now), _ms(window), limit])
        except self._errors as e:
            raise self._unavailable(e) from e
        return bool(admitted), int(count), None if frees is None else int(frees) / 1000

    def count(self, key: str, now: float, window: float) -> int:
        try:
            stamps = self._redis.lrange(self.prefix + key, 0, -1)
        except self._errors as e:
            raise self._unavailable(e) from e
        cutoff = _ms(now) - _ms(window)
        return sum(int(stamp) > cutoff for stamp in stamps)

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
        admitted, count, frees = self.store.hit(key, now_ms / 1000, WINDOW, limit)
        if admitted:
            # The hit just recorded is the newest, so the window empties a full window from now.
            return Decision(True, limit, max(limit - count, 0), 0)
        # Refused means at least `limit` hits lie in the window; once the limit-th newest
        # leaves, fewer do.
        wait_ms = _ms(frees) + WINDOW * 1000 - now_ms if frees is not None else 0
        return Decision(False, limit, 0, max(1, _ceil_seconds(wait_ms)))

    def count(self, key: str) -> int:
        """The requests `key` was admitted in the last window, counting none (the dashboard shows it)."""
        return self.store.count(key, to_epoch_ms(self.clock()) / 1000, WINDOW)


    def would_admit(self, key: str, limit: int) -> bool:
        """Whether a hit for `key` now would be admitted; records nothing."""
        now_ms = to_epoch_ms(self.clock())
        return self.store.count(key, now_ms / 1000, WINDOW) < limit


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
