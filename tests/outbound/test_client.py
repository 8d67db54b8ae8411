"""The guarded outbound HTTP client (fanout/outbound/client.py), against real servers on loopback.

`network` records every TCP connect and every system DNS lookup the client makes, and can
route a public address to a loopback server, so the production path (public address,
https on 443, pinned) runs without leaving the machine. TLS certificates come from trustme.

The slow routes take their time on the receiver's `ManualTime`, which the deadline tests
hand the client as its clock and its watchdog's timer: a server "answering after 11 s" is
cut by the watchdog at the deadline on that time, and no test waits real seconds for it.
"""
from __future__ import annotations

import ipaddress
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
import io
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from fanout.outbound.client import Outbound, OutboundError

from ..conftest import PUBLIC_IP, LoopbackSite, Network, serving

ANOTHER_PUBLIC_IP = "93.184.216.35"
DEAD_LOOPBACK = "127.0.0.2"  # on loopback, but nothing listens there: connecting is refused
SECRET = "sha256=s3cr3t-signature"
SECRET_BODY = b'{"secret":"s3cr3t-body"}'


# -- servers -----------------------------------------------------------------------------


@dataclass
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class ManualTime:
    """Monotonic seconds that pass only when `advance` moves them, with the client's watchdog
    timers on them (`Outbound(clock=time, timer=time.timer)`): a timer goes off inside the
    `advance` that reaches its moment, in the advancing thread. Counted in whole
    milliseconds, so steps add up exactly."""

    def __init__(self) -> None:
        self._ms = 0
        self._timers: list[tuple[int, object]] = []  # (when in ms, fire)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self._ms / 1000

    def timer(self, seconds: float, fire):
        entry = (self._ms + round(seconds * 1000), fire)
        with self._lock:
            self._timers.append(entry)

        def cancel() -> None:
            with self._lock:
                self._timers = [other for other in self._timers if other is not entry]
        return cancel

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._ms += round(seconds * 1000)
            due = [entry for entry in self._timers if entry[0] <= self._ms]
            self._timers = [entry for entry in self._timers if entry[0] > self._ms]
        for _, fire in due:
            fire()


class _Handler(BaseHTTPRequestHandler):
    server: "Receiver"

    def log_message(self, *args) -> None:
        pass

    def take_time(self, seconds: float, step: float = 0.1) -> bool:
        """Let `seconds` pass on the receiver's time, a step at a time, as a slow server
        would; True as soon as the client has hung up (its watchdog fired)."""
        for _ in range(round(seconds / step)):
            self.server.time.advance(step)
            if self.client_gone():
                return True
        return False

    def client_gone(self) -> bool:
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.hits.append(Hit(self.command, self.path, dict(self.headers.items()), body))
        path = urlsplit(self.path).path
        route = ROUTES.get(path) or (
            _status if path.startswith("/status/") else _pause_then_redirect if path.startswith("/pause/") else _not_found)
        route(self)

    def reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
              sized: bool = True) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if sized:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _ok(h: _Handler) -> None:
    h.reply(200, b"ok")


def _status(h: _Handler) -> None:
    h.reply(int(h.path.rsplit("/", 1)[1]), b"status")


def _not_found(h: _Handler) -> None:
    h.reply(404)


def _redirect(h: _Handler) -> None:
    h.reply(302, headers={"Location": "/ok"})


def _big(h: _Handler) -> None:
    h.reply(200, b"x" * 200_000)


def _big_unsized(h: _Handler) -> None:
    h.reply(200, b"x" * 200_000, sized=False)  # HTTP/1.0: the body ends when the server closes


def _slow(h: _Handler) -> None:
    if h.take_time(11):  # answers after 11 s unless the client hangs up first
        return
    h.reply(200, b"late")


def _trickle_body(h: _Handler) -> None:
    h.send_response(200)
    h.send_header("Content-Length", "100")
    h.end_headers()
    for _ in range(100):
        if h.take_time(0.5):
            return
        h.wfile.write(b"x")
        h.wfile.flush()


def _trickle_headers(h: _Handler) -> None:
    # Every socket read gets a byte in time: only a total deadline stops this.
    for byte in b"HTTP/1.0 200 OK\r\nX-Slow: " + b"y" * 100:
        if h.take_time(0.5):
            return
        h.wfile.write(bytes([byte]))
        h.wfile.flush()


def _garbage(h: _Handler) -> None:
    h.wfile.write(b"this is not HTTP\r\n\r\n")


def _redirect_to(h: _Handler) -> None:
    # /redirect-to?u=TARGET[&status=307]
    query = parse_qs(urlsplit(h.path).query)
    h.reply(int(query.get("status", ["302"])[0]), b"moved", headers={"Location": query["u"][0]})


def _loop(h: _Handler) -> None:
    h.reply(302, headers={"Location": "/loop"})


def _pause_then_redirect(h: _Handler) -> None:
    # /pause/N takes 0.4 s, then redirects to /pause/N-1; /pause/0 answers.
    left = int(h.path.rsplit("/", 1)[1])
    if h.take_time(0.4):
        return
    h.reply(302, headers={"Location": f"/pause/{left - 1}"}) if left else _ok(h)


ROUTES = {
    "/ok": _ok, "/redirect": _redirect, "/big": _big, "/big-unsized": _big_unsized,
    "/slow": _slow, "/trickle-body": _trickle_body, "/trickle-headers": _trickle_headers,
    "/garbage": _garbage, "/redirect-to": _redirect_to, "/loop": _loop,
}


class Receiver(LoopbackSite):
    """A loopback HTTP(S) server that records each request it gets, and the SNI sent; its
    slow routes take their time on `time`."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(_Handler, tls)
        self.time = ManualTime()
        self.hits: list[Hit] = []
        self.server_names: list[str | None] = []  # SNI sent by clients
        if tls is not None:
            tls.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)


@pytest.fixture
def receiver():
    yield from serving(Receiver())


@pytest.fixture
def tls_receiver(ca):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("hooks.example.com", "cdn.example.com").configure_cert(context)
    yield from serving(Receiver(context))


class Resolver:
    """DNS under test control; each name answers its lists in turn (the last one repeats),
    so a second lookup would see a different answer."""

    def __init__(self, names: dict[str, list[str] | list[list[str]]] | None = None) -> None:
        self.names = {
            name: answers if answers and isinstance(answers[0], list) else [answers]
            for name, answers in (names or {}).items()
        }
        self.calls: list[str] = []

    def __call__(self, host: str) -> list[str]:
        answers = self.names.get(host.lower(), [[]])
        answer = answers[min(sum(1 for c in self.calls if c == host.lower()), len(answers) - 1)]
        self.calls.append(host.lower())
        return list(answer)


def loopback_client(**kwargs) -> Outbound:
    return Outbound(resolve=kwargs.pop("resolve", Resolver()), insecure=True, **kwargs)


def on_receiver_time(receiver: Receiver, **kwargs) -> Outbound:
    """A loopback client whose clock and watchdog run on the receiver's time."""
    return loopback_client(clock=receiver.time, timer=receiver.time.timer, **kwargs)


def only_addresses_dialled(net: Network) -> bool:
    """No name went to the system resolver: every lookup was of an address already."""
    def is_address(host) -> bool:
        try:
            ipaddress.ip_address(host.decode() if isinstance(host, bytes) else host)
            return True
        except ValueError:
            return False
    return all(is_address(host) for host in net.lookups)


# -- responses ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", [200, 201, 204, 400, 404, 410, 429, 500, 503])
def test_any_status_is_returned_as_a_response(receiver, status):
    response = loopback_client().post(receiver.url(f"/status/{status}"), b"{}", {})
    assert response.status == status


def test_response_carries_body_headers_and_elapsed(receiver):
    response = loopback_client().post(receiver.url("/ok"), b"{}", {})
    assert response.body == b"ok"
    assert response.headers["content-length"] == "2"
    assert not response.truncated
    assert 0 <= response.elapsed < 10


def test_redirect_is_returned_not_followed(receiver):
    response = loopback_client().post(receiver.url("/redirect"), b"{}", {})
    assert response.status == 302
    assert response.headers["location"] == "/ok"
    assert [hit.path for hit in receiver.hits] == ["/redirect"]


def test_body_and_caller_headers_arrive_unchanged(receiver):
    loopback_client().post(receiver.url("/ok"), SECRET_BODY, {"X-Service-Signature": SECRET, "Content-Type": "application/json"})
    (hit,) = receiver.hits
    assert hit.method == "POST"
    assert hit.body == SECRET_BODY
    assert hit.headers["X-Service-Signature"] == SECRET
    assert hit.headers["Content-Type"] == "application/json"


def test_requests_identify_the_service_and_refuse_compression(receiver):
    loopback_client().post(receiver.url("/ok"), b"{}", {"Accept-Encoding": "gzip"})
    (hit,) = receiver.hits
    assert hit.headers["User-Agent"] == "Fanout-Webhooks/1"
    assert hit.headers["Accept-Encoding"] == "identity"


def test_get_sends_no_body(receiver):
    response = loopback_client().get(receiver.url("/ok"))
    assert response.status == 200
    assert receiver.hits[0].method == "GET" and receiver.hits[0].body == b""


# -- size --------------------------------------------------------------------------------


def test_post_keeps_only_max_body_bytes_of_a_large_answer(receiver):
    response = loopback_client().post(receiver.url("/big"), b"{}", {})
    assert response.status == 200
    assert response.body == b"x" * (64 * 1024)
    assert response.truncated


def test_post_truncates_an_answer_without_content_length_too(receiver):
    response = loopback_client(max_body=1000).post(receiver.url("/big-unsized"), b"{}", {})
    assert len(response.body) == 1000 and response.truncated


@pytest.mark.parametrize("route", ["/big", "/big-unsized"], ids=["declared larger", "undeclared, read past the cap"])
def test_get_refuses_a_body_larger_than_max_body(receiver, route):
    with pytest.raises(OutboundError) as caught:
        loopback_client().get(receiver.url(route), max_body=1000)
    assert caught.value.kind == "too_large"


# -- deadline ----------------------------------------------------------------------------


def _timed_failure(call, clock=time.monotonic) -> tuple[OutboundError, float]:
    began = clock()
    with pytest.raises(OutboundError) as caught:
        call()
    return caught.value, clock() - began


def test_default_deadline_cuts_a_server_that_answers_after_11_seconds(receiver):
    client = on_receiver_time(receiver)  # no deadline given: the default
    error, took = _timed_failure(lambda: client.post(receiver.url("/slow"), b"{}", {}), receiver.time)
    assert error.kind == "timeout"
    assert 9.5 <= took < 10.9


@pytest.mark.parametrize(
    "route", ["/slow", "/trickle-body", "/trickle-headers"],
    ids=["server sends no headers", "body trickles in", "headers trickle in"],
)
def test_the_deadline_cuts_a_slow_answer_whatever_part_is_slow(receiver, route):
    client = on_receiver_time(receiver, deadline=1.0)
    error, took = _timed_failure(lambda: client.post(receiver.url(route), b"{}", {}), receiver.time)
    assert error.kind == "timeout"
    assert 0.9 <= took < 2


# -- connecting --------------------------------------------------------------------------


def test_environment_proxies_are_ignored(receiver, network, monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    response = loopback_client().post(receiver.url("/ok"), b"{}", {})
    assert response.status == 200
    assert network.connects == [("127.0.0.1", receiver.port)]


def test_netrc_credentials_are_not_sent(receiver, monkeypatch, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login user password hunter2\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    loopback_client().post(receiver.url("/ok"), b"{}", {})
    assert "Authorization" not in receiver.hits[0].headers


def test_the_resolver_is_asked_once_per_request(receiver):
    resolve = Resolver({"hooks.example.com": ["127.0.0.1"]})
    client = loopback_client(resolve=resolve)
    client.post(receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    client.post(receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert resolve.calls == ["hooks.example.com", "hooks.example.com"]


def test_insecure_mode_still_pins_the_first_answer(receiver, network):
    # A second lookup would answer an address where nothing listens.
    resolve = Resolver({"hooks.example.com": [["127.0.0.1"], [DEAD_LOOPBACK]]})
    response = loopback_client(resolve=resolve).post(receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert response.status == 200
    assert resolve.calls == ["hooks.example.com"]
    assert network.connects == [("127.0.0.1", receiver.port)]
    assert only_addresses_dialled(network)


def test_host_header_names_the_real_host_not_the_address(receiver):
    resolve = Resolver({"hooks.example.com": ["127.0.0.1"]})
    loopback_client(resolve=resolve).post(receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert receiver.hits[0].headers["Host"] == f"hooks.example.com:{receiver.port}"


def test_next_address_is_tried_when_connecting_fails(receiver, network):
    resolve = Resolver({"hooks.example.com": [DEAD_LOOPBACK, "127.0.0.1"]})
    response = loopback_client(resolve=resolve).post(receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert response.status == 200
    assert network.connects == [(DEAD_LOOPBACK, receiver.port), ("127.0.0.1", receiver.port)]


def test_no_address_accepting_the_connection_is_a_connect_error(receiver, network):
    resolve = Resolver({"hooks.example.com": [DEAD_LOOPBACK, "127.0.0.3"]})
    with pytest.raises(OutboundError) as caught:
        loopback_client(resolve=resolve).post(receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert caught.value.kind == "connect"
    assert len(network.connects) == 2


def test_a_bad_answer_is_not_retried_at_another_address(receiver, network):
    resolve = Resolver({"hooks.example.com": ["127.0.0.1", "127.0.0.1"]})
    with pytest.raises(OutboundError) as caught:
        loopback_client(resolve=resolve).post(receiver.url("/garbage", host="hooks.example.com"), b"{}", {})
    assert caught.value.kind == "protocol"
    assert network.connects == [("127.0.0.1", receiver.port)]


def test_error_messages_hold_no_headers_body_or_query(receiver):
    client = on_receiver_time(receiver, deadline=1.0)
    failures = [
        lambda: client.post(receiver.url("/slow?token=s3cr3t-query"), SECRET_BODY, {"X-Service-Signature": SECRET}),
        lambda: client.post(f"http://{DEAD_LOOPBACK}:{receiver.port}/?token=s3cr3t-query", SECRET_BODY, {"X-Service-Signature": SECRET}),
        lambda: client.post(receiver.url("/ok"), SECRET_BODY, {"X-Service-Signature": SECRET + "\n"}),
    ]
    for failure in failures:
        error, _ = _timed_failure(failure)
        assert "s3cr3t" not in f"{error} {error.message!r} {error!r}"


# -- TLS through the pin -----------------------------------------------------------------


def test_tls_verifies_the_real_name_through_the_pinned_address(tls_receiver, ca_bundle, network):
    resolve = Resolver({"hooks.example.com": ["127.0.0.1"]})
    client = loopback_client(resolve=resolve, ca_bundle=ca_bundle)
    response = client.post(tls_receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert response.status == 200
    assert tls_receiver.server_names == ["hooks.example.com"]
    assert tls_receiver.hits[0].headers["Host"] == f"hooks.example.com:{tls_receiver.port}"
    assert network.connects == [("127.0.0.1", tls_receiver.port)]


def test_certificate_for_another_name_is_a_tls_error(tls_receiver, ca_bundle):
    resolve = Resolver({"other.example.com": ["127.0.0.1"]})
    client = loopback_client(resolve=resolve, ca_bundle=ca_bundle)
    with pytest.raises(OutboundError) as caught:
        client.post(tls_receiver.url("/ok", host="other.example.com"), b"{}", {})
    assert caught.value.kind == "tls"
    assert "certificate verify failed" in caught.value.message
    assert tls_receiver.hits == []


def test_certificate_from_an_untrusted_ca_is_a_tls_error(tls_receiver):
    resolve = Resolver({"hooks.example.com": ["127.0.0.1"]})
    with pytest.raises(OutboundError) as caught:
        loopback_client(resolve=resolve).post(tls_receiver.url("/ok", host="hooks.example.com"), b"{}", {})
    assert caught.value.kind == "tls"
    assert tls_receiver.hits == []


def test_public_https_destination_is_reached_at_the_checked_address(tls_receiver, ca_bundle, network):
    # The production path: not insecure, port 443, a public answer (routed to loopback here).
    network.routes[(PUBLIC_IP, 443)] = ("127.0.0.1", tls_receiver.port)
    resolve = Resolver({"hooks.example.com": [[PUBLIC_IP], ["127.0.0.1"]]})  # then rebinds
    client = Outbound(resolve=resolve, ca_bundle=ca_bundle)
    response = client.post("https://hooks.example.com/ok", b"{}", {})
    assert response.status == 200
    assert resolve.calls == ["hooks.example.com"]
    assert network.connects == [(PUBLIC_IP, 443)]
    assert only_addresses_dialled(network)
    assert tls_receiver.server_names == ["hooks.example.com"]
    assert tls_receiver.hits[0].headers["Host"] == "hooks.example.com"


# -- SSRF: refused before any connection (docs/reliability.md#outbound-requests) ----------

NON_PUBLIC = [
    "127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
    "100.100.100.200", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1",
    "fc00::1", "fec0::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2001::1", "2001:db8::1",
]

UNSAFE = [
    *[pytest.param("https://hooks.example.com/", {"hooks.example.com": [ip]}, id=f"resolves-{ip}") for ip in NON_PUBLIC],
    pytest.param("https://127.0.0.1/", {}, id="literal-127.0.0.1"),
    pytest.param("https://[::1]/", {}, id="literal-::1"),
    pytest.param("https://[::ffff:127.0.0.1]/", {}, id="literal-mapped"),
    pytest.param("https://169.254.169.254/latest/meta-data/", {}, id="literal-metadata"),
    # Not address literals to `ipaddress`, but getaddrinfo answers 127.0.0.1 (or 0.0.0.0).
    pytest.param("https://0x7f.1/", {"0x7f.1": ["127.0.0.1"]}, id="hex"),
    pytest.param("https://2130706433/", {"2130706433": ["127.0.0.1"]}, id="dword"),
    pytest.param("https://0177.0.0.1/", {"0177.0.0.1": ["127.0.0.1"]}, id="octal"),
    pytest.param("https://127.1/", {"127.1": ["127.0.0.1"]}, id="short"),
    pytest.param("https://0/", {"0": ["0.0.0.0"]}, id="zero"),
    pytest.param("https://evil.com@127.0.0.1/", {"evil.com": [PUBLIC_IP]}, id="userinfo"),
    pytest.param("https://127.0.0.1#@evil.com/", {"evil.com": [PUBLIC_IP]}, id="fragment-at"),
    pytest.param("https://evil.com\\@127.0.0.1/", {"evil.com": [PUBLIC_IP]}, id="backslash-at"),
    pytest.param("https://hooks.example.com/", {"hooks.example.com": [PUBLIC_IP, "10.0.0.7"]}, id="one-private-of-two"),
    pytest.param("https://hooks.example.com/", {"hooks.example.com": ["10.0.0.7", PUBLIC_IP]}, id="private-first"),
    pytest.param("http://hooks.example.com/", {"hooks.example.com": [PUBLIC_IP]}, id="plain-http"),
    pytest.param("https://hooks.example.com:8080/", {"hooks.example.com": [PUBLIC_IP]}, id="other-port"),
    pytest.param("file:///etc/passwd", {}, id="file"),
    pytest.param("ftp://hooks.example.com/", {"hooks.example.com": [PUBLIC_IP]}, id="ftp"),
]


@pytest.mark.parametrize("url, names", UNSAFE)
def test_unsafe_destination_is_refused_before_connecting(url, names, network):
    resolve = Resolver(names)
    with pytest.raises(OutboundError) as caught:
        Outbound(resolve=resolve).post(url, SECRET_BODY, {"X-Service-Signature": SECRET})
    assert caught.value.kind == "unsafe_url"
    assert network.connects == [] and network.lookups == []
    assert len(resolve.calls) <= 1


def test_get_is_guarded_like_post(network):
    with pytest.raises(OutboundError) as caught:
        Outbound(resolve=Resolver({"media.example.com": ["169.254.169.254"]})).get("https://media.example.com/a.jpg")
    assert caught.value.kind == "unsafe_url"
    assert network.connects == []


def test_name_that_does_not_resolve_is_a_dns_error(network):
    with pytest.raises(OutboundError) as caught:
        Outbound(resolve=Resolver()).post("https://nowhere.example.com/", b"{}", {})
    assert caught.value.kind == "dns"
    assert network.connects == []


def test_resolver_failure_is_a_dns_error(network):
    def broken(host: str) -> list[str]:
        raise OSError("resolver unreachable")

    with pytest.raises(OutboundError) as caught:
        Outbound(resolve=broken).post("https://hooks.example.com/", b"{}", {})
    assert caught.value.kind == "dns"
    assert network.connects == []


# -- stream: GET into a file, redirects followed by the guard -----------------------------


def redirect_to(target: str, status: int = 302) -> str:
    return "/redirect-to?" + urlencode({"u": target, "status": status})


def test_stream_writes_the_body_to_the_sink_not_the_response(receiver):
    sink = io.BytesIO()
    response = loopback_client().stream(receiver.url("/big"), sink, max_body=300_000)
    assert response.status == 200
    assert sink.getvalue() == b"x" * 200_000
    assert response.body == b""


@pytest.mark.parametrize("route", ["/big", "/big-unsized"], ids=["declared larger", "undeclared, read past the cap"])
def test_stream_refuses_a_body_larger_than_max_body(receiver, route):
    sink = io.BytesIO()
    with pytest.raises(OutboundError) as caught:
        loopback_client().stream(receiver.url(route), sink, max_body=1000)
    assert caught.value.kind == "too_large"
    assert len(sink.getvalue()) <= 1000


def test_stream_does_not_write_an_error_page_to_the_sink(receiver):
    sink = io.BytesIO()
    response = loopback_client().stream(receiver.url("/status/404"), sink, max_body=1000)
    assert response.status == 404
    assert sink.getvalue() == b""


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_stream_follows_a_redirect(receiver, status):
    sink = io.BytesIO()
    response = loopback_client().stream(receiver.url(redirect_to("/ok", status)), sink, max_body=1000)
    assert (response.status, response.redirects, sink.getvalue()) == (200, 1, b"ok")
    assert [urlsplit(hit.path).path for hit in receiver.hits] == ["/redirect-to", "/ok"]


def test_stream_gives_up_after_five_redirects(receiver):
    with pytest.raises(OutboundError) as caught:
        loopback_client().stream(receiver.url("/loop"), io.BytesIO(), max_body=1000)
    assert caught.value.kind == "too_many_redirects"
    assert len(receiver.hits) == 6  # the request and five redirects followed


def test_stream_deadline_covers_all_hops_together(receiver):
    # Four hops of 0.4 s each: every one is within the deadline, all four are not.
    with pytest.raises(OutboundError) as caught:
        on_receiver_time(receiver, deadline=1.0).stream(receiver.url("/pause/3"), io.BytesIO(), max_body=1000)
    assert caught.value.kind == "timeout"
    assert "after" in caught.value.message and "redirect" in caught.value.message


def test_stream_sends_caller_headers_only_to_the_origin_named(receiver):
    resolve = Resolver({"cdn.example.com": ["127.0.0.1"]})
    elsewhere = receiver.url("/ok", host="cdn.example.com")
    loopback_client(resolve=resolve).stream(
        receiver.url(redirect_to(receiver.url(redirect_to(elsewhere)))), io.BytesIO(), 1000,
        headers={"X-Token": SECRET})
    assert [("X-Token" in hit.headers) for hit in receiver.hits] == [True, True, False]


def test_stream_raises_what_the_sink_raises(receiver):
    class Full(Exception):
        pass

    class FullSink:
        def write(self, chunk: bytes) -> int:
            raise Full("no room")

    with pytest.raises(Full):
        loopback_client().stream(receiver.url("/big"), FullSink(), max_body=300_000)


def test_stream_follows_a_redirect_to_another_public_host(tls_receiver, ca_bundle, network):
    network.routes[(PUBLIC_IP, 443)] = ("127.0.0.1", tls_receiver.port)
    network.routes[(ANOTHER_PUBLIC_IP, 443)] = ("127.0.0.1", tls_receiver.port)
    resolve = Resolver({"hooks.example.com": [PUBLIC_IP], "cdn.example.com": [ANOTHER_PUBLIC_IP]})
    sink = io.BytesIO()
    url = "https://hooks.example.com" + redirect_to("https://cdn.example.com/ok")
    response = Outbound(resolve=resolve, ca_bundle=ca_bundle).stream(url, sink, max_body=1000)
    assert (response.status, sink.getvalue()) == (200, b"ok")
    assert network.connects == [(PUBLIC_IP, 443), (ANOTHER_PUBLIC_IP, 443)]
    assert tls_receiver.server_names == ["hooks.example.com", "cdn.example.com"]
    assert only_addresses_dialled(network)


@pytest.fixture
def private_receiver():
    """A server standing for something on the private network: it must never be reached."""
    yield from serving(Receiver())


PRIVATE_TARGETS = [
    pytest.param("https://internal.example.com/ok", id="name-resolving-to-loopback"),
    pytest.param("https://intranet.example.com/ok", id="name-resolving-to-10.0.0.7"),
    pytest.param("https://127.0.0.1/ok", id="literal-loopback"),
    pytest.param("https://169.254.169.254/latest/meta-data/", id="literal-metadata"),
    pytest.param("https://[::ffff:169.254.169.254]/ok", id="literal-mapped"),
    pytest.param("http://hooks.example.com/ok", id="downgrade-to-http"),
    pytest.param("https://hooks.example.com:8080/ok", id="other-port"),
    pytest.param("https://user:pw@hooks.example.com/ok", id="userinfo"),
]


@pytest.mark.parametrize("target", PRIVATE_TARGETS)
def test_stream_refuses_a_redirect_to_a_private_address_before_connecting(
        tls_receiver, ca_bundle, network, private_receiver, target):
    network.routes[(PUBLIC_IP, 443)] = ("127.0.0.1", tls_receiver.port)
    # Were the guard to let the redirect through, these would reach the private server.
    for address in ("127.0.0.1", "10.0.0.7", "169.254.169.254"):
        network.routes[(address, 443)] = ("127.0.0.1", private_receiver.port)
    for port in (80, 8080):
        network.routes[(PUBLIC_IP, port)] = ("127.0.0.1", private_receiver.port)
    resolve = Resolver({"hooks.example.com": [PUBLIC_IP], "internal.example.com": ["127.0.0.1"],
                        "intranet.example.com": ["10.0.0.7"]})
    sink = io.BytesIO()
    with pytest.raises(OutboundError) as caught:
        Outbound(resolve=resolve, ca_bundle=ca_bundle).stream("https://hooks.example.com" + redirect_to(target), sink, 1000)
    assert caught.value.kind == "unsafe_url"
    assert "after 1 redirect" in caught.value.message
    assert network.connects == [(PUBLIC_IP, 443)]
    assert private_receiver.connections == [] and sink.getvalue() == b""
