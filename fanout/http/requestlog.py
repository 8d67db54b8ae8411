"""Request ids, the access log and the log format.

Every response carries `X-Request-Id`; every log line written while serving a request
carries the same id. The access log names the path without its query string, so connect
session tokens never reach the logs, and cut to LOGGED_PATH_LIMIT characters.

Each record is one line, whatever a client put in it: the text format escapes control
characters (a `%0A` in a path cannot start a forged line, a `%E2%80%AE` cannot reverse
the rest of one) and indents the lines of a traceback under its record; the json format
(FANOUT_LOG_FORMAT=json) writes one JSON object a line.
"""
from __future__ import annotations

import contextvars
import copy
import datetime as _dt
import json
import logging
import random
import time

from ..ids import CROCKFORD
from ..times import isoformat

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
access_log = logging.getLogger("fanout.access")

SCOPE_KEY = "fanout.request_id"

# C0 and C1 controls, DEL, the Unicode line and paragraph separators, the bidirectional
# controls (Unicode's Bidi_Control: a U+202E would show the rest of a line reversed in a
# terminal or viewer, so a path could pass for another), and the backslash itself, so an
# escaped line reads back unambiguously.
BIDI_CONTROLS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_ESCAPES = {code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]}
_ESCAPES.update({code: f"\\u{code:04x}" for code in (0x2028, 0x2029, *BIDI_CONTROLS)})
_ESCAPES.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord("\\"): "\\\\"})

# Characters of a path an access line keeps (the request head may be 64 KiB): enough for
# any path of the spec, with ids, and a line stays short whatever a client sends.
LOGGED_PATH_LIMIT = 1024


def escape(text: str) -> str:
    """`text` on one line: control characters written as escapes."""
    return text.translate(_ESCAPES)


def logged_path(path: str | None) -> str | None:
    """`path` as an access line records it: at most LOGGED_PATH_LIMIT characters, and a
    cut path says how long it was."""
    if path is None or len(path) <= LOGGED_PATH_LIMIT:
        return path
    return f"{path[:LOGGED_PATH_LIMIT]}… ({len(path)} characters)"


def request_id_of(scope) -> str:
    return scope.get(SCOPE_KEY, "-")



# Every pair of Crockford characters, by the 10 bits they stand for.
_PAIRS = [a + b for a in CROCKFORD for b in CROCKFORD]


def new_request_id() -> str:
    """The id of one request, as `X-Request-Id` and every log line of it show it: a `req_`
    id as fanout/ids.py `new_id` makes them (48 bits of milliseconds, 80 random bits),
    written two characters at a time. The random bits tell requests of one millisecond
    apart; nothing secret rests on them, so they come from `random` (reseeded in each
    forked process), not a system call."""
    value = (time.time_ns() // 1_000_000) << 80 | random.getrandbits(80)
    pairs = _PAIRS
    return "req_" + "".join([pairs[(value >> shift) & 1023] for shift in range(120, -1, -10)])

class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


def log_access(request_id: str, *, method: str | None, path: str | None, route: str | None, status: int,
               duration_ms: float, workspace_id: str | None = None) -> None:
    """The access line of one request (also of one refused before it reached the app)."""
    if not access_log.isEnabledFor(logging.INFO):
        return
    token = request_id_var.set(request_id)
    path = logged_path(path)
    try:
        # The record `access_log.info` would make, less the look for the caller's file and
        # line up the stack, which no format shows: one line a request adds up.
        access_log.handle(access_log.makeRecord(
            access_log.name, logging.INFO, "(unknown file)", 0, "%s %s %s %.1fms",
            (method or "-", path or "-", status, duration_ms), None,
            extra={"access": {
                "method": method, "route": route, "path": path, "status": status,
                "duration_ms": round(duration_ms, 1), "workspace_id": workspace_id,
            }},
        ))
    finally:
        request_id_var.reset(token)


class RequestIdMiddleware:
    """Assigns the request id, sends it back, and writes one access line per request.

    `routes` (routes.RouteTable) names the spec path a request was for; `metrics`
    (fanout.ops.metrics.Metrics) counts the request with the same route, status and duration.
    """

    def __init__(self, app, routes=None, metrics=None, connection=None):
        """`connection`: a context manager factory held around each request (the database
        connection of the event loop's thread, when the stores are local files)."""
        self.app = app
        self.routes = routes
        self.metrics = metrics
        self.connection = connection

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        scope[SCOPE_KEY] = request_id
        # Connexion copies the scope for the operation; a dict that is already here is
        # shared with the copy, so the key's token info it records is seen below.
        extensions = scope.setdefault("extensions", {})
        token = request_id_var.set(request_id)
        started = time.monotonic()
        status = 500
        if self.metrics is not None:
            self.metrics.request_started()

        done = False

        def finish() -> None:
            nonlocal done
            done = True
            token_info = (extensions.get("connexion_context") or {}).get("token_info") or {}
            raw_path = scope.get("raw_path")
            route = self.routes.route_of(raw_path.decode("latin-1")) if self.routes and raw_path else None
            seconds = time.monotonic() - started
            log_access(
                request_id,
                method=scope.get("method"),
                path=scope.get("path"),
                route=route,
                status=status,
                duration_ms=seconds * 1000,
                workspace_id=token_info.get("workspace_id"),
            )
            if self.metrics is not None:
                self.metrics.request_finished(scope.get("method") or "-", route, status, seconds)

        async def send_with_id(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                _add_request_id(message, request_id)
            elif message["type"] == "http.response.body" and not message.get("more_body") and not done:
                # Counted before the last byte goes: a client that has its answer finds the
                # request in the log and the metrics already (a scrape right after it too).
                finish()
            await send(message)

        try:
            if self.connection is None:
                await self.app(scope, receive, send_with_id)
            else:
                with self.connection():
                    await self.app(scope, receive, send_with_id)
        finally:
            if not done:
                finish()
            request_id_var.reset(token)


def _add_request_id(message: dict, request_id: str) -> None:
    headers = list(message.get("headers", []))
    if not any(name.lower() == b"x-request-id" for name, _ in headers):
        headers.append((b"x-request-id", request_id.encode()))
    message["headers"] = headers


class RequestIdHeader:
    """Puts the request's id on a handler's response, innermost, so Connexion's response
    validation sees the header the spec requires (installed only when responses are
    validated); `RequestIdMiddleware` adds it to the rest."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or SCOPE_KEY not in scope:
            await self.app(scope, receive, send)
            return

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                _add_request_id(message, scope[SCOPE_KEY])
            await send(message)

        await self.app(scope, receive, send_with_id)


class TextFormatter(logging.Formatter):
    """`time level logger [request id] message`, one line; a traceback follows indented."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
        self._second: tuple[int | None, str] = (None, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        # The access log writes a line a request: a second's date and time are formatted
        # once (one tuple, so threads swapping it never pair a second with another's text).
        second, text = self._second
        if int(record.created) != second:
            second = int(record.created)
            text = time.strftime(self.default_time_format, self.converter(second))
            self._second = (second, text)
        return self.default_msec_format % (text, record.msecs)

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info is None and record.stack_info is None and record.exc_text is None:
            # A record of one line (every access line): the format's fields joined directly.
            message = escape(record.getMessage())
            if "\n" not in message:  # escape() leaves none; a subclass might
                return (f"{self.formatTime(record)} {record.levelname} {record.name} "
                        f"[{getattr(record, 'request_id', '-')}] {message}")
        record = copy.copy(record)
        record.msg, record.args = escape(record.getMessage()), None
        first, *rest = super().format(record).split("\n")
        return "\n".join([first, *("    " + escape(line) for line in rest)])


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, request_id, message, and the access
    fields on access lines, the exception text on records that have one."""

    def format(self, record: logging.LogRecord) -> str:
        request_id = getattr(record, "request_id", "-")
        entry = {
            "time": isoformat(_dt.datetime.fromtimestamp(record.created, _dt.timezone.utc)),
            "level": record.levelname,
            "logger": record.name,
            "request_id": None if request_id == "-" else request_id,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "access", None) or {})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str)


def configure_logging(level: str = "INFO", log_format: str = "text") -> None:
    """Log records to stderr, each with the request id it belongs to, in `log_format`."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Warnings become records too, so they take the format (and a json log stays json).
    logging.captureWarnings(True)
