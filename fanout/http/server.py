"""The HTTP/1.1 protocol `fanout api` and `fanout serve` run: uvicorn's h11 protocol, with
the request head bounded to 64 KiB and its refusals in the error envelope.

Why h11 and not httptools (uvicorn's default when installed): llhttp has no limit on a
request head, and httptools gathers a header value that arrives in pieces by
concatenating them, so a 200 MB header is held whole and parsed for most of a minute
before the app sees anything. h11 keeps unparsed bytes in one bounded buffer and refuses
a head still incomplete past its limit, so the limit holds however slowly or quickly the
bytes come. It is pure Python, and slower per request than httptools, which is small
beside what a request does with the database.
"""
from __future__ import annotations

import http
from typing import Callable

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..problems import HeadersTooLarge, InvalidRequest
from .errors import error_body
from .requestlog import log_access, new_request_id

MAX_HEAD_BYTES = 64 * 1024


def _head_size(request: h11.Request) -> int:
    """Bytes of the request line and headers, as sent but for optional whitespace."""
    line = len(request.method) + len(request.target) + len(b" HTTP/1.1\r\n") + 1
    return line + sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items()) + 2


class _BoundedConnection(h11.Connection):
    """An h11 server connection that refuses a request head over MAX_HEAD_BYTES.

    h11 only measures a head it is still waiting for; one that arrives complete in a single
    read is measured here. `refusal` keeps the last error for the response.
    """

    def __init__(self) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.refusal: h11.RemoteProtocolError | None = None

    def next_event(self):
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as e:
            self.refusal = e
            raise
        if isinstance(event, h11.Request) and _head_size(event) > MAX_HEAD_BYTES:
            self.refusal = h11.RemoteProtocolError("request head too large", error_status_hint=431)
            raise self.refusal
        return event


class FanoutH11Protocol(H11Protocol):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _BoundedConnection()

    def send_400_response(self, msg: str) -> None:
        """Called by uvicorn for a request h11 refused: answered in the error envelope."""
        refusal = self.conn.refusal
        if refusal is not None and refusal.error_status_hint == 431:
            problem = HeadersTooLarge(f"the request line and headers are over {MAX_HEAD_BYTES // 1024} KiB in total; send less")
        else:
            problem = InvalidRequest("the request is not valid HTTP/1.1")
        status = problem.status
        request_id = new_request_id()
        body = error_body(problem)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            (b"x-request-id", request_id.encode()),
        ]
        for event in (h11.Response(status_code=status, headers=headers, reason=http.HTTPStatus(status).phrase),
                      h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()
        log_access(request_id, method=None, path=None, route=None, status=status, duration_ms=0.0)


class ListeningServer(uvicorn.Server):
    """uvicorn's server, calling `when_listening` once its socket listens and not before:
    whoever reads the line it logs (a person at the quickstart, tests/test_quickstart.py)
    may send a request at once."""

    def __init__(self, config: uvicorn.Config, when_listening: Callable[[], None]) -> None:
        super().__init__(config)
        self.when_listening = when_listening

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self.when_listening()
