"""The events log and webhook management through HTTP on `fanout serve`, with a receiver on
loopback that goes down and comes back: catching up with `after`, a secret rotated
mid-stream, a failed delivery sent again (docs/decisions.md#the-events-log,
#secret-rotation, #redelivery)."""
from __future__ import annotations

import datetime as dt
import json
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from fanout.models import db
from fanout.models.workspace import create_workspace
from fanout.security.signing import service_signature_problem, standard_webhook_problem

from .conftest import bearer, connect_on_server, free_port, make_key, wait_for


class _Recording(BaseHTTPRequestHandler):
    server: "Receiver"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(self.server.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


class Receiver(ThreadingHTTPServer):
    """A webhook endpoint on a loopback port that records every delivery and answers `status`."""

    daemon_threads = True

    def __init__(self, port: int, status: int = 204) -> None:
        super().__init__(("127.0.0.1", port), _Recording)
        self.status = status
        self.received: list[tuple[dict, bytes]] = []

    def events(self) -> list[dict]:
        return [json.loads(body) for _, body in self.received]


@contextmanager
def receiving(port: int, status: int = 204):
    """A receiver up on `port` for the block; down (connections refused) before and after."""
    receiver = Receiver(port, status)
    thread = threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.shutdown()
        receiver.server_close()
        thread.join(5)


def signed_by(secret: str, headers: dict, body: bytes, entry: int | None = None) -> bool:
    """Whether `webhook-signature` (or its `entry`-th signature) verifies with `secret`, as a
    receiver checks it when the delivery arrives (its own timestamp)."""
    if entry is not None:
        entries = headers["webhook-signature"].split(" ")
        if entry >= len(entries):
            return False
        headers = {**headers, "webhook-signature": entries[entry]}
    return standard_webhook_problem(secret, body, headers, int(headers["webhook-timestamp"])) is None


def fully_signed_by(secret: str, headers: dict, body: bytes) -> bool:
    return (service_signature_problem(secret, body, headers.get("x-service-signature")) is None
            and signed_by(secret, headers, body))


@pytest.fixture
def sandbox_server(rt, servers, insecure_env):
    """A `fanout serve` that takes loopback receivers, a BUSINESS workspace's sandbox key on it
    (made in this test's database, which the server shares) and one sandbox account on x and
    on threads."""
    def start(**env) -> tuple:
        server = servers("serve", env={**insecure_env, **env})
        with db.connection_context():
            workspace = create_workspace(rt, "Receivers", "BUSINESS")
        key = make_key(rt, workspace.id, "sandbox")
        for platform in ("x", "threads"):
            connect_on_server(server.url, bearer(key), platform)
        return server, key
    return start


def call(server, key: str, method: str, path: str, **kwargs) -> requests.Response:
    return requests.request(method, f"{server.url}{path}", headers=bearer(key), timeout=15, **kwargs)


def register(server, key: str, port: int, events=("post.completed", "post.failed")) -> dict:
    answer = call(server, key, "POST", "/v1/webhooks", json={"url": f"http://127.0.0.1:{port}/hook", "events": list(events)})
    assert answer.status_code == 201, answer.text
    return answer.json()


def post(server, key: str, platforms: list[str]) -> dict:
    answer = call(server, key, "POST", "/v1/upload", json={"caption": "hello", "platforms": platforms})
    assert answer.status_code == 201, answer.text
    return answer.json()


def resolved(server, key: str, post_ids: list[str]) -> bool:
    answer = call(server, key, "GET", "/v1/posts", params={"limit": 100})
    statuses = {p["id"]: p["status"] for p in answer.json()["data"]}
    return all(statuses.get(i) in ("completed", "failed", "partial") for i in post_ids)


def test_a_receiver_down_while_30_targets_resolve_catches_up_with_after_exactly_once_in_order(sandbox_server):
    """A real process: its deliveries meet a receiver that is really down (connection
    refused) while its worker resolves the targets."""
    server, key = sandbox_server()
    port = free_port()
    register(server, key, port)
    with receiving(port) as receiver:
        post(server, key, ["x"])
        [handled] = wait_for(lambda: receiver.events(), what="the first delivery")
    last_handled = handled["id"]

    # Down: 15 posts of two targets each resolve, their deliveries find nobody.
    posts = [post(server, key, ["x", "threads"]) for _ in range(15)]
    wait_for(lambda: resolved(server, key, [p["id"] for p in posts]), 60, "the 30 targets to resolve")

    # Up again: everything after the last event handled, oldest first, seven a page.
    caught_up, params = [], {"after": last_handled, "limit": 7}
    while True:
        page = call(server, key, "GET", "/v1/events", params=params).json()
        caught_up += page["data"]
        if not page["has_more"]:
            break
        params = {"cursor": page["next_cursor"], "limit": 7}
    ids = [e["id"] for e in caught_up]
    assert len(ids) == len(set(ids)) == 30
    assert {e["target"]["id"] for e in caught_up} == {t["id"] for p in posts for t in p["targets"]}
    assert all(e["event"] == "post.completed" for e in caught_up)
    timestamps = [e["timestamp"] for e in caught_up]
    assert timestamps == sorted(timestamps)
    # The same order as the log's own, newest first, read backwards.
    newest_first = call(server, key, "GET", "/v1/events", params={"type": "post.completed", "limit": 100}).json()
    assert [e["id"] for e in newest_first["data"]][:30][::-1] == ids
    # Passing the last id as `after` again finds nothing more.
    assert call(server, key, "GET", "/v1/events", params={"after": ids[-1]}).json()["data"] == []


def test_a_secret_rotated_mid_stream_signs_with_both_until_the_overlap_ends_and_never_after(sandbox_server):
    """A real process: its worker signs each delivery with what the API's rotation left, by
    the server's own clock as it sends (the rule on a test clock:
    tests/test_webhook_management.py). The overlap is a few seconds, waited out."""
    server, key = sandbox_server()
    port = free_port()
    hook = register(server, key, port)
    old = hook["secret"]
    with receiving(port) as receiver:
        post(server, key, ["x"])
        wait_for(lambda: len(receiver.received) == 1, what="the delivery before the rotation")
        overlap = 3  # the two deliveries below take well under a second on a busy machine
        rotated = call(server, key, "POST", f"/v1/webhooks/{hook['id']}/rotate-secret",
                       json={"expire_after_seconds": overlap})
        assert rotated.status_code == 200, rotated.text
        new = rotated.json()["secret"]
        ends = dt.datetime.fromisoformat(rotated.json()["previous_secret_expires_at"].replace("Z", "+00:00"))
        post(server, key, ["x", "threads"])
        wait_for(lambda: len(receiver.received) == 3, what="the deliveries during the overlap")
        time.sleep(max(0.0, (ends - dt.datetime.now(dt.timezone.utc)).total_seconds()) + 1.1)
        post(server, key, ["x"])
        wait_for(lambda: len(receiver.received) == 4, what="the delivery after the overlap")

    before, *after_rotation = receiver.received
    assert fully_signed_by(old, *before)
    during = [d for d in after_rotation if int(d[0]["webhook-timestamp"]) < ends.timestamp()]
    past = [d for d in after_rotation if int(d[0]["webhook-timestamp"]) >= ends.timestamp()]
    assert len(during) == 2 and len(past) == 1
    for headers, body in after_rotation:
        assert fully_signed_by(new, headers, body)  # X-Service-Signature too: the new secret's
        assert signed_by(new, headers, body, entry=0)  # new first
    for headers, body in during:
        assert signed_by(old, headers, body, entry=1)
    for headers, body in past:
        assert not signed_by(old, headers, body) and len(headers["webhook-signature"].split(" ")) == 1


def test_a_redelivered_failed_delivery_arrives_with_the_same_event_id_and_a_valid_signature(sandbox_server):
    """A real process: its queue runs the retry a second later and the redelivery the API
    enqueues (the rules in-process: tests/test_webhook_management.py)."""
    server, key = sandbox_server(FANOUT_WEBHOOK_RETRY_SCHEDULE="1")  # two attempts, a second apart
    port = free_port()
    hook = register(server, key, port)
    deliveries = lambda: call(server, key, "GET", f"/v1/webhooks/{hook['id']}/deliveries").json()["data"]  # noqa: E731
    with receiving(port, status=500) as receiver:
        post(server, key, ["x"])
        [failed] = wait_for(lambda: [d for d in deliveries() if d["status"] == "failed"], what="the delivery to fail")
        assert [a["status_code"] for a in failed["attempts"]] == [500, 500]
        ping = call(server, key, "POST", f"/v1/webhooks/{hook['id']}/test").json()
        assert (ping["succeeded"], ping["status_code"]) == (False, 500)
        receiver.status = 204  # the endpoint is fixed
        answer = call(server, key, "POST", f"/v1/webhooks/{hook['id']}/deliveries/{failed['id']}/redeliver")
        assert answer.status_code == 202, answer.text
        wait_for(lambda: len(receiver.received) == 4, what="the redelivery")  # two attempts, the ping, this
    (first_headers, first_body), *_, (headers, body) = receiver.received
    assert body == first_body and headers["webhook-id"] == first_headers["webhook-id"] == failed["event_id"]
    assert json.loads(body)["id"] == failed["event_id"]
    assert fully_signed_by(hook["secret"], headers, body)
    [succeeded] = wait_for(lambda: [d for d in deliveries() if d["status"] == "succeeded"], what="the delivery to succeed")
    assert [(a["status_code"], a["redelivery"]) for a in succeeded["attempts"]] == [(500, False), (500, False), (204, True)]
