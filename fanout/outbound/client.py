"""The one way the service sends HTTP to destinations clients choose (webhooks, media URLs).

Every request goes through the same steps (docs/reliability.md#outbound-requests):

1. The URL passes `guard.parse_url` (https only, unless `insecure`; no user info).
2. The host is resolved once, with the injected resolver, and every address of the answer
   must pass `guard.is_public_address` (unless `insecure`, which allows private and
   loopback addresses but changes nothing else).
3. The connection goes to one of those addresses, pinned: urllib3 is handed the address,
   never the name, so no second DNS answer (rebinding) is ever used. TLS still sends the
   real name as SNI and verifies the certificate against it; `Host` carries the real name.
   The next address is tried only when the TCP connection itself fails.
4. No proxies or netrc from the environment (`trust_env = False`), `Accept-Encoding:
   identity` so nothing is decompressed. `post` and `get` never follow redirects (a
   webhook's outcome is the answer it gets). `stream` follows them itself, at most
   `max_redirects` hops, each hop a new request through steps 1-3: a redirect to a private
   address is refused before anything connects to it.
5. A total deadline per call, not per socket read: a watchdog shuts the socket down when it
   passes, so a server that trickles bytes is cut off like one that says nothing. For
   `stream` the deadline covers every hop together.
6. At most `max_body` bytes of the response body are read. `post` keeps the first
   `max_body` bytes and sets `truncated` (a webhook's outcome is its status; a receiver that
   answers 200 with a large page has still received the event). `get` and `stream` raise
   `too_large` (a media file cut short is useless), at once when Content-Length says so.
   `stream` writes a 2xx body to the caller's file in chunks as they arrive and never
   holds it whole; it does not read the body of any other answer.

Failures raise `OutboundError(kind, message)`. Messages name the host at most: never the
request headers or body (signatures live there), nor the URL's path or query (some
receivers put tokens there).
"""
from __future__ import annotations

import http.client
import ipaddress
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import BinaryIO, Callable, Literal, get_args
from urllib.parse import urljoin, urlsplit

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter
from requests.certs import where as default_ca_bundle
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util.ssl_match_hostname import CertificateError as HostnameMismatch

from . import guard
from .guard import Resolver, UnsafeURL

Kind = Literal["unsafe_url", "dns", "connect", "tls", "timeout", "too_large", "protocol", "too_many_redirects"]
KINDS: frozenset[str] = frozenset(get_args(Kind))

USER_AGENT = "Fanout-Webhooks/1"
MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_CHUNK = 16 * 1024
# What sending can raise, to be turned into an OutboundError. Anything else is a bug here
# and propagates as it is.
_FAILURES = (
    OSError, ValueError, http.client.HTTPException, requests.exceptions.RequestException,
    urllib3.exceptions.HTTPError,
)


# `timer(seconds, fire)` calls `fire` once `seconds` have passed, from another thread,
# unless the function it returns is called first (which then cancels it).
Timer = Callable[[float, Callable[[], None]], Callable[[], None]]


def real_timer(seconds: float, fire: Callable[[], None]) -> Callable[[], None]:
    """The watchdog's timer on real time: a daemon thread."""
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    return timer.cancel


class OutboundError(Exception):
    """A request that produced no usable response; `kind` is one of KINDS."""

    def __init__(self, kind: Kind, message: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown outbound error kind {kind!r}")
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class OutboundResponse:
    """What came back. Header names are lower-cased; `body` holds at most `max_body` bytes."""

    status: int
    headers: dict[str, str]
    body: bytes  # empty for `stream`, which writes the body to the caller's file
    elapsed: float  # seconds from the call to the end of the body, resolution included
    truncated: bool = False  # the body was longer than max_body (post only; get raises)
    redirects: int = 0  # redirects followed to get here (stream only)


class Outbound:
    """Guarded HTTP client. One instance serves any number of threads: calls share nothing.

    `deadline` is the total time of one call in seconds; `clock` measures it and `elapsed`,
    and `timer` runs the watchdog that cuts a blocked read at the deadline, on the same time
    as `clock` (tests/outbound/test_client.py passes both, so a slow server's seconds pass
    without waiting for them). `ca_bundle` is a PEM file of trusted CAs (default: certifi's,
    as requests uses); verification cannot be turned off.
    """

    def __init__(
        self,
        resolve: Resolver,
        insecure: bool = False,
        deadline: float = 10.0,
        max_body: int = 64 * 1024,
        clock: Callable[[], float] = time.monotonic,
        ca_bundle: str | None = None,
        user_agent: str = USER_AGENT,
        timer: "Timer | None" = None,
    ) -> None:
        if deadline <= 0 or max_body < 0:
            raise ValueError("deadline must be positive and max_body not negative")
        if ca_bundle is not None and not os.path.isfile(ca_bundle):
            raise ValueError(f"CA bundle {ca_bundle!r} is not a file")
        self.resolve = resolve
        self.insecure = insecure
        self.deadline = deadline
        self.max_body = max_body
        self.clock = clock
        self.ca_bundle = ca_bundle or default_ca_bundle()
        self.user_agent = user_agent
        self.timer = timer or real_timer

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> OutboundResponse:
        """POST `body`; a longer response body than `max_body` is truncated."""
        return self._send("POST", url, body, headers, self.max_body, truncate=True)

    def get(self, url: str, headers: dict[str, str] | None = None, max_body: int | None = None) -> OutboundResponse:
        """GET; a response body longer than `max_body` (default: the instance's) is `too_large`."""
        limit = self.max_body if max_body is None else max_body
        return self._send("GET", url, None, headers or {}, limit, truncate=False)

    def stream(self, url: str, sink: BinaryIO, max_body: int, headers: dict[str, str] | None = None,
               max_redirects: int = MAX_REDIRECTS) -> OutboundResponse:
        """GET into `sink`, following redirects; the response returned has an empty body.

        A 2xx body goes to `sink.write` chunk by chunk; more than `max_body` bytes is
        `too_large`. Any other final status is returned with its body unread. More than
        `max_redirects` redirects is `too_many_redirects`. Whatever `sink.write` raises
        propagates as it is. `headers` go only to hosts of the first URL's origin.
        """
        start = self.clock()
        headers = dict(headers or {})
        origin = _origin(url)
        for hop in range(max_redirects + 1):
            try:
                response = self._send("GET", url, None, headers, max_body, truncate=False, start=start, sink=sink)
            except OutboundError as e:
                if hop:  # say that the failing host is not the one the caller named
                    raise OutboundError(e.kind, f"after {_count(hop, 'redirect')}: {e.message}") from None
                raise
            except _SinkFailed as e:
                error = e.__cause__
                assert error is not None
                raise error from error.__cause__
            location = response.headers.get("location")
            if response.status not in REDIRECT_STATUSES or not location:
                return OutboundResponse(response.status, response.headers, b"", response.elapsed, redirects=hop)
            try:
                url = urljoin(url, location)
            except ValueError:
                raise OutboundError("unsafe_url", f"after {_count(hop + 1, 'redirect')}: the redirect is not a valid URL") from None
            if _origin(url) != origin:
                headers = {}  # never hand the caller's headers to a host it did not name
        raise OutboundError("too_many_redirects", f"more than {_count(max_redirects, 'redirect')}")

    # -- one call ----------------------------------------------------------------------

    def _send(self, method: str, url: str, body: bytes | None, headers: dict[str, str],
              max_body: int, *, truncate: bool, start: float | None = None,
              sink: BinaryIO | None = None) -> OutboundResponse:
        start = self.clock() if start is None else start
        try:
            parts = guard.parse_url(url, insecure=self.insecure)
        except UnsafeURL as e:
            raise OutboundError("unsafe_url", f"url {e}") from None
        host = _ascii_host(parts.hostname)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        request = self._prepare(method, url, body, headers, host, parts.port)
        addresses = self._addresses(host)

        last_error: OutboundError | None = None
        for index, address in enumerate(addresses):
            remaining = self.deadline - (self.clock() - start)
            if remaining <= 0:
                break
            # Each address left gets an equal share of the time for its TCP connect, so one
            # black-holed address cannot use up the whole deadline.
            connect_timeout = remaining / (len(addresses) - index)
            attempt = _Attempt(remaining, self.timer)
            try:
                return self._exchange(request, parts.scheme, host, str(address), port, attempt,
                                      connect_timeout, remaining, start, max_body, truncate, sink)
            except (OutboundError, *_FAILURES) as e:
                error = _classify(e, attempt, host)
                if attempt.connected or attempt.fired or error.kind != "connect":
                    raise error from None
                last_error = error
            finally:
                attempt.close()
        if last_error is not None and self.clock() - start < self.deadline:
            raise last_error
        raise OutboundError("timeout", f"no response from {host} within {self.deadline:g} s")

    def _prepare(self, method: str, url: str, body: bytes | None, headers: dict[str, str],
                 host: str, port: int | None) -> requests.PreparedRequest:
        merged = {"User-Agent": self.user_agent, "Connection": "close", **headers}
        # Not overridable: the pinned connection is to an address, so Host must name the
        # real host; and a compressed answer could expand without bound.
        merged["Host"] = (f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
        merged["Accept-Encoding"] = "identity"
        try:
            return requests.Request(method, url, headers=merged, data=body).prepare()
        except requests.exceptions.InvalidHeader:
            # requests' message quotes the header value, which may be a secret.
            raise OutboundError("protocol", "a request header name or value is invalid") from None
        except (requests.exceptions.RequestException, ValueError):
            raise OutboundError("unsafe_url", "url is not a valid URL") from None

    def _addresses(self, host: str) -> list[guard.IPAddress]:
        """The one resolution of `host`, every address checked unless `insecure`."""
        try:
            # One call to the resolver (none for an address literal), parsed by the guard's
            # own helper so the rules stay in one place (it is private there for now).
            addresses = guard.addresses_of(host, self.resolve)
        except (OSError, ValueError):
            addresses = []
        if not addresses:
            raise OutboundError("dns", f"host {host!r} does not resolve")
        if not self.insecure and not all(guard.is_public_address(ip) for ip in addresses):
            raise OutboundError("unsafe_url", f"host {host!r} resolves to a non-public address")
        return addresses

    def _exchange(self, request: requests.PreparedRequest, scheme: str, host: str, address: str,
                  port: int, attempt: _Attempt, connect_timeout: float, read_timeout: float,
                  start: float, max_body: int, truncate: bool, sink: BinaryIO | None) -> OutboundResponse:
        pool: HTTPConnectionPool
        if scheme == "https":
            pool = _PinnedHTTPSPool(
                address, port, attempt=attempt, maxsize=1, cert_reqs="CERT_REQUIRED",
                ca_certs=self.ca_bundle, server_hostname=host, assert_hostname=host,
            )
        else:
            pool = _PinnedHTTPPool(address, port, attempt=attempt, maxsize=1)
        with requests.Session() as session:
            session.trust_env = False  # no proxies, netrc or CA bundle from the environment
            session.mount("https://", _PinnedAdapter(pool))
            session.mount("http://", _PinnedAdapter(pool))
            attempt.start()
            response = session.send(
                request, stream=True, allow_redirects=False, proxies={},
                timeout=(connect_timeout, read_timeout),
            )
            with response:
                if sink is None:
                    body, truncated = self._read_body(response, start, max_body, truncate, host)
                elif 200 <= response.status_code < 300:
                    body, truncated = self._read_body(response, start, max_body, False, host, sink)
                else:
                    body, truncated = b"", False  # a redirect's or an error's page: unread
            attempt.stop()
            if attempt.fired:
                # The watchdog may end a body that has no length: it would look complete.
                raise OutboundError("timeout", f"no complete response from {host} within {self.deadline:g} s")
        return OutboundResponse(
            status=response.status_code,
            headers={name.lower(): value for name, value in response.headers.items()},
            body=body,
            elapsed=self.clock() - start,
            truncated=truncated,
        )

    def _read_body(self, response: requests.Response, start: float, max_body: int,
                   truncate: bool, host: str, sink: BinaryIO | None = None) -> tuple[bytes, bool]:
        """The body, or with a `sink` each chunk written to it and nothing kept."""
        declared = response.headers.get("Content-Length", "")
        if not truncate and declared.isdigit() and int(declared) > max_body:
            raise OutboundError("too_large", f"response from {host} declares {declared} bytes, over {max_body}")
        chunks: list[bytes] = []
        size = 0
        # Bounded: every pass but the last adds at least one byte, and we stop past max_body.
        for _ in range(max_body + 2):
            chunk = response.raw.read(min(_CHUNK, max_body + 1 - size), decode_content=False)
            if not chunk:
                break
            size += len(chunk)
            if self.clock() - start > self.deadline:
                raise OutboundError("timeout", f"response from {host} not complete within {self.deadline:g} s")
            if size > max_body:
                if not truncate:
                    raise OutboundError("too_large", f"response from {host} is over {max_body} bytes")
                return b"".join(chunks + [chunk])[:max_body], True
            if sink is None:
                chunks.append(chunk)
                continue
            try:
                sink.write(chunk)
            except Exception as e:
                # The caller's failure, not the exchange's: _send must not classify it.
                raise _SinkFailed() from e
        return b"".join(chunks), False


class _SinkFailed(Exception):
    """`sink.write` raised (its error is the cause); `stream` re-raises that error."""


def _origin(url: str) -> tuple[str, str, int | None]:
    try:
        parts = urlsplit(url)
        return parts.scheme, (parts.hostname or "").lower(), parts.port
    except ValueError:
        return "", "", None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _ascii_host(hostname: str) -> str:
    """The name as DNS, SNI and Host see it (IDNA), or the address literal as is."""
    if ":" in hostname:
        return hostname
    try:
        return hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise OutboundError("unsafe_url", "url has an invalid host name") from None


def _classify(error: Exception, attempt: _Attempt, host: str) -> OutboundError:
    """Our error for whatever requests, urllib3, http.client or ssl raised. Messages are
    written here, never copied: the library ones can quote URLs and header values."""
    if isinstance(error, OutboundError):
        return error
    if attempt.fired:
        return OutboundError("timeout", f"no complete response from {host} within the deadline")
    if not attempt.connected:
        return OutboundError("connect", f"could not connect to {host}: {_connect_reason(error)}")
    if _find(error, (requests.exceptions.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)):
        return OutboundError("timeout", f"no complete response from {host} within the deadline")
    if _find(error, (requests.exceptions.SSLError, urllib3.exceptions.SSLError, ssl.SSLError)):
        return OutboundError("tls", f"TLS with {host} failed: {_tls_reason(error)}")
    return OutboundError("protocol", f"{host} broke the HTTP exchange ({type(_chain(error)[-1]).__name__})")


def _chain(error: BaseException) -> list[BaseException]:
    """`error` and what it wraps, outermost first: requests wraps urllib3, which wraps
    http.client, ssl and socket errors, in `reason`, `args[0]` or the cause."""
    chain = [error]
    for _ in range(10):  # a few levels deep in practice; never follow a cycle forever
        seen = chain[-1]
        reason = getattr(seen, "reason", None)
        wrapped = seen.args[0] if seen.args else None
        inner = next(
            (e for e in (reason, wrapped, seen.__cause__, seen.__context__)
             if isinstance(e, BaseException) and e not in chain),
            None,
        )
        if inner is None:
            break
        chain.append(inner)
    return chain


def _find(error: BaseException, kind: type[BaseException] | tuple[type[BaseException], ...]) -> BaseException | None:
    return next((e for e in _chain(error) if isinstance(e, kind)), None)


def _connect_reason(error: BaseException) -> str:
    """Why the connection failed, from the system's error number alone (its text can quote
    an address the library put in; the number's words cannot)."""
    found = next((e for e in _chain(error) if isinstance(e, OSError) and e.errno), None)
    if found is None:
        return "no connection"
    return os.strerror(found.errno).lower()


def _tls_reason(error: BaseException) -> str:
    # OpenSSL's failures carry verify_message; urllib3's own name check raises its own
    # CertificateError with only a string ("hostname 'a' doesn't match 'b'").
    verify = _find(error, (ssl.SSLCertVerificationError, HostnameMismatch))
    if verify is not None:
        detail = getattr(verify, "verify_message", None) or (
            verify.args[0] if verify.args and isinstance(verify.args[0], str) else "")
        return f"certificate verify failed: {detail}" if detail else "certificate verify failed"
    found = _find(error, ssl.SSLError)
    return getattr(found, "reason", None) or "handshake failed"


class _Attempt:
    """One connection attempt: whether TCP connected, and the watchdog that enforces the
    total deadline by shutting the socket down (a blocked read then returns at once)."""

    def __init__(self, seconds: float, timer: "Timer") -> None:
        self.connected = False
        self.fired = False
        self._seconds = seconds
        self._timer = timer
        self._cancel: Callable[[], None] | None = None
        self._stopped = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []

    def start(self) -> None:
        self._cancel = self._timer(self._seconds, self._fire)

    def watch(self, sock: socket.socket) -> None:
        # A duplicate descriptor of the same socket: shutdown() acts on the socket itself,
        # and this one survives the TLS wrapper detaching the original.
        with self._lock:
            self.connected = True
            self._sockets.append(sock.dup())
            if self.fired:
                self._shutdown_all()

    def _fire(self) -> None:
        with self._lock:
            if self._stopped:
                return  # stopped while the timer was going off: too late to count
            self.fired = True
            self._shutdown_all()

    def _shutdown_all(self) -> None:
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the peer or by us

    def stop(self) -> None:
        """No more firing; `fired` is final from here on."""
        if self._cancel is not None:
            self._cancel()
        with self._lock:
            self._stopped = True

    def close(self) -> None:
        self.stop()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


class _Watched:
    """Hands every new socket to the attempt, whose timer enforces the total deadline."""

    attempt: _Attempt

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        self.attempt.watch(sock)
        return sock


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _Pinned:
    """A pool whose host is the checked address, never a name urllib3 would resolve."""

    def __init__(self, address: str, port: int, *, attempt: _Attempt, **kwargs) -> None:
        ipaddress.ip_address(address.partition("%")[0])  # a name here would be resolved again
        super().__init__(address, port, **kwargs)
        self.attempt = attempt

    def _new_conn(self) -> HTTPConnection:
        conn = super()._new_conn()
        conn.attempt = self.attempt  # type: ignore[attr-defined]
        return conn


class _PinnedHTTPPool(_Pinned, HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _PinnedHTTPSPool(_Pinned, HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class _PinnedAdapter(HTTPAdapter):
    """requests' adapter, sending through one pinned pool whatever the URL's host says."""

    def __init__(self, pool: HTTPConnectionPool) -> None:
        super().__init__()
        self._pool = pool

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):  # type: ignore[override]
        return self._pool

    def cert_verify(self, conn, url, verify, cert) -> None:  # type: ignore[override]
        pass  # verification is configured on the pool, and cannot be turned off

    def close(self) -> None:
        super().close()
        self._pool.close()
