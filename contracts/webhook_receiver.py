"""A webhook receiver on loopback, for fuzzing runs: every POST is answered 204 and printed.

    python contracts/webhook_receiver.py [--port 8001]

A contract run registers its webhooks here (FANOUT_CONTRACT_WEBHOOK_URL, see
contracts/schemathesis.toml) against a server started with FANOUT_INSECURE_URLS=1, so the
deliveries its posts cause stay on this machine. contracts/test_st_run.py runs the same
receiver in a thread.
"""
from __future__ import annotations

import argparse
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Delivery:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> dict:
        return json.loads(self.body)


class _Handler(BaseHTTPRequestHandler):
    server: "WebhookReceiver"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.record(Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass  # `record` prints one line a delivery instead


class WebhookReceiver(ThreadingHTTPServer):
    """Listens on 127.0.0.1 only; `deliveries` holds what arrived, oldest first."""

    daemon_threads = True

    def __init__(self, port: int = 0, echo: bool = False) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.deliveries: list[Delivery] = []
        self.echo = echo
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/fanout"

    def record(self, delivery: Delivery) -> None:
        with self._lock:
            self.deliveries.append(delivery)
        if self.echo:
            print(delivery.headers.get("webhook-id", "-"), delivery.body[:200].decode(errors="replace"), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8001)
    port = parser.parse_args().port
    receiver = WebhookReceiver(port, echo=True)
    print(f"receiving webhooks at {receiver.url}", flush=True)
    try:
        receiver.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        receiver.server_close()


if __name__ == "__main__":
    main()
