"""Request bodies over FANOUT_MAX_BODY_BYTES are 413 `payload_too_large`, never read whole.

A declared Content-Length over the limit is answered at once, before the key is checked
and before a byte of the body is read. A body without one (chunked) is read here, before
the operation runs, and refused the moment it passes the limit; one within the limit is
handed on as it came. Reading it here, not where the operation reads it, is what makes the
limit hold for an operation that reads no body (a DELETE, a GET): it would otherwise run
with the body unread and unchecked (tests/http/test_request_limits.py). Applies to every
request.
"""
from __future__ import annotations

from ..problems import PayloadTooLarge
from .errors import error_body


class BodyLimitMiddleware:
    def __init__(self, app, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None:
            if declared > self.max_bytes:
                await _refuse(send, self.max_bytes)
                return
            # The server delivers no more than the declared length.
            await self.app(scope, receive, send)
            return
        if not _has_header(scope, b"transfer-encoding"):
            await self.app(scope, receive, send)
            return
        read, received = [], 0
        while True:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":
                break  # the client went away; the app hears it as it would have
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                await _refuse(send, self.max_bytes)
                return
            if not message.get("more_body", False):
                break

        async def replay():
            return read.pop(0) if read else await receive()

        await self.app(scope, replay, send)


async def _refuse(send, limit: int) -> None:
    refusal = PayloadTooLarge(f"the request body is over {limit} bytes; send less")
    headers = {"content-type": "application/json", **{k.lower(): v for k, v in refusal.headers.items()}}
    await send({"type": "http.response.start", "status": refusal.status,
                "headers": [(k.encode(), v.encode()) for k, v in headers.items()]})
    await send({"type": "http.response.body", "body": error_body(refusal)})


def _has_header(scope, name: bytes) -> bool:
    return any(key.lower() == name for key, _ in scope.get("headers", []))


def _content_length(scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            digits = value.strip()
            if not digits.isdigit():
                return None
            # int() of thousands of digits raises; that many is over any limit anyway.
            return int(digits) if len(digits) <= 20 else 10**20
    return None
