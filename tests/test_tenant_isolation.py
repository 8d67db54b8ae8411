"""One workspace's hanging webhook endpoints slow nobody else's publishing or deliveries."""
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from .conftest import bearer, connect_on_server, wait_for


class Receiver(ThreadingHTTPServer):
    """Loopback endpoints: /hang/... answers after 10 s, anything else at once (and is noted)."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()
        self.hanging = 0
        self.arrived: dict[str, float] = {}
        self.lock = threading.Lock()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server: Receiver = self.server
        if self.path.startswith("/hang/"):
            with server.lock:
                server.hanging += 1
            server.release.wait(10)
        else:
            with server.lock:
                server.arrived.setdefault(self.path, time.monotonic())
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    server = Receiver()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()  # refuse new attempts at once rather than leave them to hang


def workspace_on(server, cli) -> dict:
    ws = cli.json("workspace", "create", "Tenant", "--plan", "PRO")
    headers = bearer(cli.json("key", "create", ws["id"], "--mode", "sandbox")["key"])
    connect_on_server(server.url, headers, "x")
    return headers


def register(server, headers, url):
    answer = requests.post(f"{server.url}/v1/webhooks", headers=headers, timeout=10,
                           json={"url": url, "events": ["post.completed", "post.failed"]})
    assert answer.status_code == 201, answer.text


def upload(server, headers, caption):
    answer = requests.post(f"{server.url}/v1/upload", headers=headers, timeout=10,
                           json={"caption": caption, "platforms": ["x"]})
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_workspace_with_ten_hanging_endpoints_does_not_delay_another_workspaces_post_or_webhook(
        cli, servers, insecure_env, receiver):
    server = servers("serve", insecure_env)  # default worker settings
    noisy, quiet = workspace_on(server, cli), workspace_on(server, cli)
    for n in range(10):
        register(server, noisy, receiver.url(f"/hang/{n}"))
    register(server, quiet, receiver.url("/quiet"))
    for n in range(20):
        upload(server, noisy, f"noisy {n}")
    wait_for(lambda: receiver.hanging >= 2, 10, "the noisy workspace's deliveries to hang")

    sent = time.monotonic()
    post = upload(server, quiet, "quiet")

    def published():
        got = requests.get(f"{server.url}/v1/posts/{post['id']}", headers=quiet, timeout=10).json()
        return got["status"] == "completed"

    wait_for(published, 3, "the quiet workspace's post to publish")
    wait_for(lambda: "/quiet" in receiver.arrived, 3 - (time.monotonic() - sent),
             "the quiet workspace's webhook")
    assert receiver.arrived["/quiet"] - sent < 3
