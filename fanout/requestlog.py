"""Request ids and the access log.

Every response carries `X-Request-Id`; every log line written while serving a request
carries the same id. The access log names the path without its query string, so connect
session tokens never reach the logs.
"""
from __future__ import annotations

import contextvars
import logging
import os
import time

from .ids import new_id
from .times import utcnow

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
access_log = logging.getLogger("fanout.access")

SCOPE_KEY = "fanout.request_id"


def request_id_of(scope) -> str:
    return scope.get(SCOPE_KEY, "-")


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


class RequestIdMiddleware:
    """Assigns the request id, sends it back, and writes one access line per request."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_id("req", utcnow(), os.urandom)
        scope[SCOPE_KEY] = request_id
        token = request_id_var.set(request_id)
        started = time.monotonic()
        status = 500

        async def send_with_id(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            access_log.info(
                "%s %s %s %.1fms",
                scope.get("method"),
                scope.get("path"),
                status,
                (time.monotonic() - started) * 1000,
            )
            request_id_var.reset(token)


def configure_logging(level: str = "INFO") -> None:
    """Log lines to stderr, each with the request id it belongs to."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
