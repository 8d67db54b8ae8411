"""Request bodies over FANOUT_MAX_BODY_BYTES are 413 `payload_too_large`, never read whole.

A declared Content-Length over the limit is answered at once, before the key is checked
and before a byte of the body is read. A body without one (chunked) is counted as it
arrives and refused the moment it passes the limit: whoever reads the body (the JSON
validator) gets the 413 instead of the next chunk. Applies to every request.
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
        if declared is not None and declared > self.max_bytes:
            refusal = _too_large(self.max_bytes)
            headers = {"content-type": "application/json", **{k.lower(): v for k, v in refusal.headers.items()}}
            await send({"type": "http.response.start", "status": refusal.status,
                        "headers": [(k.encode(), v.encode()) for k, v in headers.items()]})
            await send({"type": "http.response.body", "body": error_body(refusal)})
            return
        received = 0

        async def counted_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _too_large(self.max_bytes)
            return message

        await self.app(scope, counted_receive, send)


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"the request body is over {limit} bytes; send less")


def _content_length(scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            digits = value.strip()
            if not digits.isdigit():
                return None
            # int() of thousands of digits raises; that many is over any limit anyway.
            return int(digits) if len(digits) <= 20 else 10**20
    return None
