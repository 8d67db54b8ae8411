"""What every platform emulator shares: a threaded HTTP server on loopback, its own clock,
a log of calls, and a control API (tests/emulators/README.md).

The control API exists twice: as methods (`fail`, `garble`, `drop`, `delay`, `advance`,
`reset`, `calls`) for tests in the same process, and as HTTP under `/_emulator/` for a server run
on its own (`python -m tests.emulators`): `POST /_emulator/<control>` with the method's
keyword arguments as a JSON object, `GET /_emulator/<view>` for what a view returns.
Control calls are neither logged nor subject to rules.
"""
from __future__ import annotations

import dataclasses
import json
import datetime as dt
import re
import sys
import threading
import traceback
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from .clock import EmulatorClock, as_utc
from .wire import Refusal, Request, Response, mask, parse_request

__all__ = ["Call", "EmulatorClock", "EmulatorServer", "Refusal", "Request", "Response", "Rule"]

Handler = Callable[..., Response]


@dataclass(frozen=True)
class Call:
    """One call the emulator received. `status` is None when it was dropped unanswered."""

    method: str
    path: str
    query: dict
    body: Any
    status: int | None
    at: dt.datetime
    dropped: bool = False


@dataclass
class Rule:
    """What to do with the next `times` calls matching `method` and `path` (a regex searched
    in the path, query excluded; `method` None matches any). `times` None: every call."""

    action: str  # "fail" | "garble" | "drop" | "delay"
    method: str | None
    path: str
    times: int | None = 1
    status: int = 500
    body: Any = None
    headers: dict | None = None
    seconds: float = 0.0
    after_effect: bool = True

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method.upper() == method) and re.search(self.path, path) is not None


class EmulatorServer:
    """Base of the emulators. Subclasses register routes in `__init__` with `route`, may add
    controls and views, and reset their platform state in `_reset_state`."""

    name = "emulator"

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, clock: EmulatorClock | None = None):
        self.clock = clock or EmulatorClock()
        self.host, self.port = host, port
        self.lock = threading.RLock()  # guards the log, the rules and the platform's state
        self.errors: list[str] = []  # tracebacks of handler bugs, answered with 500
        self._rules: list[Rule] = []
        self._calls: list[Call] = []
        self._routes: list[tuple[str, re.Pattern, Handler]] = []
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.controls: dict[str, Callable[..., Any]] = {
            "fail": self.fail, "garble": self.garble, "drop": self.drop, "delay": self.delay, "advance": self.advance,
            "set_clock": self.set_clock, "reset": self.reset,
        }
        self.views: dict[str, Callable[[], Any]] = {"calls": lambda: self.calls, "clock": self.clock.now}

    # --- life -------------------------------------------------------------------------------

    def start(self) -> "EmulatorServer":
        self._stopping.clear()
        self._httpd = _Server((self.host, self.port), _Handler)
        self._httpd.emulator = self
        self.port = self._httpd.server_address[1]
        # A short poll interval: stop() waits for the loop to see it.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), name=f"{self.name}-emulator",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes delayed answers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # --- routes -----------------------------------------------------------------------------

    def route(self, method: str, pattern: str, handler: Handler) -> None:
        """`handler(request, **named groups of pattern)` answers `method` on paths fully
        matching `pattern`."""
        self._routes.append((method.upper(), re.compile(pattern), handler))

    def not_found(self, request: Request) -> Response:
        return Response.json(404, {"error": f"no route for {request.method} {request.path}"})

    def _dispatch(self, request: Request) -> Response:
        for method, pattern, handler in self._routes:
            m = pattern.fullmatch(request.path)
            if m and method == request.method:
                try:
                    return handler(request, **m.groupdict())
                except Refusal as refusal:
                    return refusal.response
        return self.not_found(request)

    # --- control API --------------------------------------------------------------------------

    def fail(self, method: str | None, path: str, status: int, body: Any = None, *, times: int | None = 1,
             headers: dict | None = None) -> Rule:
        """The next `times` matching calls have no effect and answer `status` with `body`
        (JSON; a str is sent as text)."""
        return self._add(Rule("fail", method, path, times, status=status, body=body, headers=headers))

    def garble(self, method: str | None, path: str, status: int, body: Any = None, *, times: int | None = 1,
               headers: dict | None = None) -> Rule:
        """The next `times` matching calls do what they do, then answer `status` with `body`
        (as `fail` sends it) in place of their own answer: a platform that acts and answers
        what its documentation does not promise."""
        return self._add(Rule("garble", method, path, times, status=status, body=body, headers=headers))

    def drop(self, method: str | None, path: str, *, times: int | None = 1, after_effect: bool = True) -> Rule:
        """The next `times` matching calls get no answer: the connection is closed. With
        `after_effect` (the default) the call does what it does first: the ambiguous point."""
        return self._add(Rule("drop", method, path, times, after_effect=after_effect))

    def delay(self, method: str | None, path: str, seconds: float, *, times: int | None = 1,
              after_effect: bool = True) -> Rule:
        """The next `times` matching calls are answered `seconds` late (real seconds: this is
        for client timeouts); the effect happens before the wait unless `after_effect` is False."""
        return self._add(Rule("delay", method, path, times, seconds=seconds, after_effect=after_effect))

    def _add(self, rule: Rule) -> Rule:
        re.compile(rule.path)  # a bad pattern fails here, not in the server thread
        with self.lock:
            self._rules.append(rule)
        return rule

    def configure(self, **settings) -> dict:
        """Change any of the constructor's settings (a public attribute that is no method)
        from now; an emulator that offers it registers it among its controls."""
        for name, value in settings.items():
            if name.startswith("_") or not hasattr(self, name) or callable(getattr(self, name)):
                raise KeyError(f"no setting {name}")
            setattr(self, name, value)
        return settings

    def advance(self, seconds: float) -> dt.datetime:
        return self.clock.advance(seconds)

    def set_clock(self, now: dt.datetime | str) -> dt.datetime:
        return self.clock.set(now)

    @property
    def calls(self) -> list[Call]:
        with self.lock:
            return list(self._calls)

    def calls_to(self, method: str | None = None, path: str = "") -> list[Call]:
        """The calls matching `method` (None: any) and the regex `path` (searched)."""
        return [c for c in self.calls if (method is None or c.method == method.upper()) and re.search(path, c.path)]

    def reset(self) -> None:
        """Forget rules, calls and the platform's state (tokens, containers, posts); the
        configuration (app credentials, users) and the clock stay."""
        with self.lock:
            self._rules.clear()
            self._calls.clear()
            self.errors.clear()
            self._reset_state()

    def _reset_state(self) -> None:
        """Subclasses put their platform state back as constructed."""

    def read_body(self, method: str, target: str, headers, rfile) -> bytes | None:
        """A request's body as a subclass reads it itself from `rfile` (an upload it stalls,
        or cuts off part way), or None for the server to read it whole. Raising
        ConnectionError closes the connection without an answer."""
        return None

    # --- serving ------------------------------------------------------------------------------

    def _take_rule(self, method: str, path: str) -> Rule | None:
        with self.lock:
            for rule in self._rules:
                if rule.matches(method, path):
                    if rule.times is not None:
                        rule.times -= 1
                        if rule.times <= 0:
                            self._rules.remove(rule)
                    return rule
        return None

    def _log(self, request: Request, status: int | None, at: dt.datetime, dropped: bool = False) -> None:
        with self.lock:
            self._calls.append(Call(request.method, request.path, mask(dict(request.query)),
                                    request.logged_body(), status, at, dropped))

    def _answer(self, request: Request) -> Response | None:
        """The answer to send, or None to close the connection without one."""
        if request.path.startswith("/_emulator/"):
            return self._control(request)
        at = self.clock.now()
        rule = self._take_rule(request.method, request.path)
        if rule is not None and rule.action == "fail":
            response = _rule_response(rule)
            self._log(request, response.status, at)
            return response
        if rule is not None and not rule.after_effect:
            if rule.action == "drop":
                self._log(request, None, at, dropped=True)
                return None
            self._stopping.wait(rule.seconds)
        response = self._run(request)
        if rule is not None and rule.action == "garble":
            response = _rule_response(rule)
        if rule is not None and rule.action == "drop":
            self._log(request, None, at, dropped=True)
            return None
        self._log(request, response.status, at)
        if rule is not None and rule.after_effect:  # a delay after the effect
            self._stopping.wait(rule.seconds)
        return response

    def _run(self, request: Request) -> Response:
        try:
            return self._dispatch(request)
        except Exception:
            self.errors.append(traceback.format_exc())
            return Response.json(500, {"error": {"message": "emulator bug, see EmulatorServer.errors"}})

    def _control(self, request: Request) -> Response:
        name = request.path[len("/_emulator/"):].strip("/")
        try:
            if request.method == "GET" and name in self.views:
                return Response.json(200, jsonable(self.views[name]()))
            if request.method == "POST" and name in self.controls:
                kwargs = _control_arguments(request)
                return Response.json(200, {"result": jsonable(self.controls[name](**kwargs))})
        except (TypeError, ValueError, KeyError) as e:
            return Response.json(400, {"error": f"{type(e).__name__}: {e}"})
        return Response.json(404, {"error": f"no control {request.method} {name}",
                                   "controls": sorted(self.controls), "views": sorted(self.views)})


def _rule_response(rule: Rule) -> Response:
    if isinstance(rule.body, str):
        return Response(rule.status, rule.body.encode("utf-8"), {"Content-Type": "text/plain", **(rule.headers or {})})
    return Response.json(rule.status, rule.body if rule.body is not None else {}, rule.headers)


def _control_arguments(request: Request) -> dict:
    """The JSON object of a control call, whatever its Content-Type says: `curl -d '{...}'`
    sends JSON labelled as a form (tests/emulators/README.md's examples do just that)."""
    if isinstance(request.json, dict):
        return request.json
    try:
        value = json.loads(request.raw_body) if request.raw_body.strip() else {}
    except ValueError:
        raise ValueError("a control's arguments are a JSON object") from None
    if not isinstance(value, dict):
        raise ValueError("a control's arguments are a JSON object")
    return value


def jsonable(value: Any) -> Any:
    """Dataclasses, datetimes, tuples and mappings as JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.repr}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if isinstance(value, dt.datetime):
        return as_utc(value).isoformat()
    return value


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a burst of workers must not wait on a full backlog
    emulator: EmulatorServer

    def handle_error(self, request, client_address) -> None:
        # A client that went away mid-answer is normal here (timeouts are tested on purpose);
        # anything else is a bug of the emulator, kept where tests look.
        error = sys.exc_info()[1]
        if not isinstance(error, (ConnectionError, TimeoutError)):
            self.emulator.errors.append(traceback.format_exc())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FanoutEmulator/1"
    server: _Server

    def _serve(self) -> None:
        body = self._read_body()
        request = parse_request(self.command, self.path, self.headers, body)
        response = self.server.emulator._answer(request)
        if response is None:
            self.close_connection = True
            return
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _serve

    def _read_body(self) -> bytes:
        own = self.server.emulator.read_body(self.command, self.path, self.headers, self.rfile)
        if own is not None:
            return own
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def log_message(self, format: str, *args) -> None:
        pass  # the call log is the record
