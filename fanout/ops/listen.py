"""`fanout listen`: a webhook receiver for developers, to watch deliveries arrive.

Every POST is checked against both signature schemes of fanout/security/signing.py and shown as a
block of text (or one JSON object a line). The answer tells Fanout what happened: 204 when
both signatures are valid and the body is a JSON object, 401 when a signature is missing,
wrong or out of its time window, 400 when the body cannot be read as an event. Fanout
retries anything but a 2xx, so a wrong `--secret` shows up as retries in
`GET /v1/webhooks/{id}/deliveries`.

Several `--secret`s are for a secret rotation (docs/decisions.md#secret-rotation): a
signature is valid when any of them makes it, so the listener takes deliveries signed with
the new secret, the old one, or both, while the registration's overlap lasts.
"""
from __future__ import annotations

import datetime as dt
import json
import socket
import threading
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from ..security.signing import SERVICE_SIGNATURE_HEADER, service_signature_problem, standard_webhook_problem
from ..times import isoformat

# Fanout's events are a few hundred bytes; anything near this is not one of them.
MAX_BODY = 1 << 20


@dataclass(frozen=True)
class Received:
    """One request to the listener, judged: what arrived and what it was answered."""

    received_at: str
    path: str
    answer: int
    webhook_id: str | None
    event: dict | None
    # Why each scheme failed, or None where it passed.
    service_signature: str | None
    standard_webhooks: str | None
    body_problem: str | None

    @property
    def valid(self) -> bool:
        return self.answer < 300


def _any_of(secrets: list[str], problem_with) -> str | None:
    """None when one of `secrets` passes; else the first one's problem, said of them all."""
    problems = [problem_with(secret) for secret in secrets]
    if None in problems:
        return None
    if len(secrets) > 1:
        return problems[0].replace("under this secret", f"under any of the {len(secrets)} secrets")
    return problems[0]


def judge(secrets: list[str], path: str, headers: dict[str, str], body: bytes | None, now: float,
          body_problem: str | None = None) -> Received:
    """The verdict on one delivery: `headers` with lower-case names, `body` None when it
    could not be read (`body_problem` says why). Each scheme passes when one of `secrets`
    makes its signature."""
    service = standard = None
    event = None
    if body is not None:
        header = headers.get(SERVICE_SIGNATURE_HEADER.lower())
        service = _any_of(secrets, lambda secret: service_signature_problem(secret, body, header))
        standard = _any_of(secrets, lambda secret: standard_webhook_problem(secret, body, headers, int(now)))
        try:
            event = json.loads(body)
        except ValueError:
            body_problem = "the body is not JSON"
        else:
            if not isinstance(event, dict):
                event, body_problem = None, "the body is not a JSON object"
    if service or standard:
        answer = 401
    elif body_problem:
        answer = 400
    else:
        answer = 204
    return Received(
        received_at=isoformat(dt.datetime.fromtimestamp(now, dt.timezone.utc)),
        path=path, answer=answer, webhook_id=headers.get("webhook-id"), event=event,
        service_signature=service, standard_webhooks=standard, body_problem=body_problem,
    )


def as_json(received: Received) -> str:
    """One line: the verdict's fields, `valid` and the event as it arrived."""
    return json.dumps({**asdict(received), "valid": received.valid})


def as_text(received: Received) -> str:
    """A block a person reads at a glance: what happened to which target (or account, or
    registration), and whether the delivery was genuine."""
    event = received.event or {}
    target = event.get("target") if isinstance(event.get("target"), dict) else {}
    lines = [
        f"{received.received_at}  {_shown(event.get('event', '?'))}  POST {_shown(received.path)}  -> {received.answer}",
        f"  id         {_shown(received.webhook_id or '-')}",
    ]
    if isinstance(event.get("account"), dict):
        account = event["account"]
        lines.append(f"  account    {_shown(account.get('id', '-'))}  {_shown(account.get('platform', '-'))}"
                     f"  {_shown(account.get('username', '-'))}  {_shown(account.get('status', '-'))}")
        if event.get("reason"):
            lines.append(f"  reason     {_shown(event['reason'])}")
    elif isinstance(event.get("webhook"), dict):
        webhook = event["webhook"]
        lines.append(f"  webhook    {_shown(webhook.get('id', '-'))}  {_shown(webhook.get('url', '-'))}")
        if webhook.get("disabled_reason"):
            lines.append(f"  disabled   {_shown(webhook['disabled_reason'])}")
    elif received.event is not None:
        lines.append(f"  post       {_shown(event.get('post_id', '-'))}")
        lines.append(f"  target     {_shown(target.get('id', '-'))}  {_shown(target.get('platform', '-'))}"
                     f"  {_shown(target.get('status', '-'))}")
        if target.get("external_url"):
            lines.append(f"  url        {_shown(target['external_url'])}")
        if target.get("error_code"):
            lines.append(f"  error      {_shown(target['error_code'])}: {_shown(target.get('error_message') or '')}")
    if received.body_problem:
        lines.append(f"  body       {received.body_problem}")
    lines.append(f"  {SERVICE_SIGNATURE_HEADER:<20} {_verdict(received.service_signature)}")
    lines.append(f"  {'webhook-signature':<20} {_verdict(received.standard_webhooks)}")
    return "\n".join(lines)


def _verdict(problem: str | None) -> str:
    return "ok" if problem is None else f"FAILED: {problem}"


def _shown(value, limit: int = 300) -> str:
    """A value from the request, on one line: control characters escaped, cut at `limit`."""
    text = value if isinstance(value, str) else json.dumps(value)
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


class _Handler(BaseHTTPRequestHandler):
    server: "Listener"
    timeout = 15  # seconds a connection may stay silent; Fanout itself gives up after 10

    def do_POST(self) -> None:
        body, problem = self._read_body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        received = judge(self.server.secrets, self.path, headers, body, self.server.clock(), problem)
        self.server.show(received)
        if received.valid:
            self.send_response(received.answer)
            self.end_headers()
            return
        reason = "; ".join(f"{name}: {problem}" for name, problem in (
            (SERVICE_SIGNATURE_HEADER, received.service_signature), ("webhook-signature", received.standard_webhooks),
        ) if problem) or received.body_problem
        code = "validation_error" if received.answer == 400 else "invalid_signature"
        self._answer(received.answer, {"error": {"code": code, "message": reason}})

    def _read_body(self) -> tuple[bytes | None, str | None]:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            return None, "no Content-Length (Fanout always sends one)"
        if int(length) > MAX_BODY:
            return None, f"{length} bytes, more than the {MAX_BODY} an event could be"
        return self.rfile.read(int(length)), None

    def do_GET(self) -> None:
        self._answer(405, {"error": {"code": "method_not_allowed", "message": "fanout listen receives POSTed webhooks"}},
                     Allow="POST")

    do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    def _answer(self, status: int, value: dict, **headers: str) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        for name, content in {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}.items():
            self.send_header(name, content)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass  # each delivery is shown by `show` instead


class Listener(ThreadingHTTPServer):
    """Receives on (`host`, `port`) and hands every judged POST to `show`, one at a time."""

    daemon_threads = True
    block_on_close = False  # stopping never waits for a client that keeps its connection open

    def __init__(self, host: str, port: int, secrets: list[str], show: Callable[[Received], None],
                 clock: Callable[[], float]) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), _Handler)
        self.secrets = list(secrets)
        self.clock = clock
        self._show = show
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"

    def show(self, received: Received) -> None:
        with self._lock:  # blocks from concurrent deliveries never interleave
            self._show(received)
