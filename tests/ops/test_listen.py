"""`fanout listen`, the developers' webhook receiver, as a process on loopback: what it
answers and prints for signed, unsigned and tampered deliveries, how it stops, and a real
`fanout serve` delivering to it. Tests that only send to it share one process (`listener`);
those that stop it or start it otherwise start their own (`listening`)."""
from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import requests

from fanout.security.signing import service_signature, signature_headers, standard_webhook_headers

from ..conftest import bearer, connect_on_server, free_port, loopback_guarded, run_cli, wait_for

SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
OTHER_SECRET = "whsec_" + base64.b64encode(bytes(32)).decode()


def event(status: str = "published", **target) -> dict:
    """A webhook event as Fanout sends it."""
    outcome = ({"external_url": "http://127.0.0.1:8000/sandbox/x/tgt_01"} if status == "published"
               else {"error_code": "caption_too_long", "error_message": "Caption is 301 characters; x allows 280."})
    return {
        "id": "evt_01", "event": "post.completed" if status == "published" else "post.failed", "post_id": "post_01",
        "target": {"id": "tgt_01", "account_id": "acc_01", "platform": "x", "status": status, **outcome, **target},
        "timestamp": "2026-11-22T10:04:05.123Z",
    }


def signed(body: bytes, secret: str = SECRET, timestamp: int | None = None, message_id: str = "evt_01") -> dict:
    """The headers Fanout sends with `body`, both schemes signed with `secret`."""
    return {
        "Content-Type": "application/json",
        "X-Service-Signature": service_signature(secret, body),
        **standard_webhook_headers(secret, message_id, int(time.time()) if timestamp is None else timestamp, body),
    }


@dataclass
class Listening:
    proc: subprocess.Popen
    url: str
    out: Path
    err: Path
    # Blocks printed before this test's turn, on a listener tests share (`listener`).
    earlier: int = 0

    def output(self) -> str:
        return self.out.read_text()

    def post(self, body: bytes, headers: dict) -> requests.Response:
        return requests.post(f"{self.url}/fanout", data=body, headers=headers, timeout=10)

    def blocks(self) -> list[str]:
        """The deliveries printed so far (text mode), oldest first; each block ends with a
        blank line, so one still being written is left for the next call."""
        after_banner = self.output().partition("\n")[2]
        return after_banner.split("\n\n")[:-1][self.earlier:]

    def wait_for_blocks(self, count: int) -> list[str]:
        return wait_for(lambda: len(self.blocks()) >= count and self.blocks(), what=f"{count} printed deliveries")

    def stop(self, signum: int = signal.SIGINT) -> int:
        self.proc.send_signal(signum)
        return self.proc.wait(10)


def start_listen(tmp_path: Path, *args: str, port: int = 0, secret: str = SECRET) -> Listening:
    """`fanout listen` started as a user would, waiting for the line saying where it listens."""
    out, err = tmp_path / f"listen-{port}.out", tmp_path / f"listen-{port}.err"
    env = loopback_guarded({k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")})
    proc = subprocess.Popen(
        [sys.executable, "-m", "fanout", "listen", "--port", str(port), "--secret", secret, *args],
        stdout=open(out, "wb"), stderr=open(err, "wb"), env={**env, "PYTHONUNBUFFERED": "1"},
    )

    def banner():
        if proc.poll() is not None:
            raise AssertionError(f"fanout listen exited {proc.returncode}: {err.read_text()}")
        return re.search(r"listening on (http://\S+)", out.read_text() + err.read_text())

    return Listening(proc, wait_for(banner, what="fanout listen to start").group(1), out, err)


@pytest.fixture
def listening(tmp_path):
    started: list[Listening] = []

    def start(*args: str, **kwargs) -> Listening:
        started.append(start_listen(tmp_path, *args, **kwargs))
        return started[-1]

    yield start
    for listener in started:
        if listener.proc.poll() is None:
            listener.proc.kill()
            listener.proc.wait()


@pytest.fixture(scope="module")
def _shared_listener(tmp_path_factory):
    """One `fanout listen` (SECRET, any free port) for the tests that only send to it and read
    what it printed: a process per test cost a second each of Python start-up."""
    started = start_listen(tmp_path_factory.mktemp("listen"))
    yield started
    started.proc.kill()
    started.proc.wait()


@pytest.fixture
def listener(_shared_listener) -> Listening:
    """The module's listener, showing this test only what it printed since the test began
    (a delivery is printed before it is answered, so nothing of an earlier test comes late)."""
    assert _shared_listener.proc.poll() is None, _shared_listener.err.read_text()
    return replace(_shared_listener, earlier=len(_shared_listener.blocks()))


BODY = json.dumps(event()).encode()


def test_a_signed_delivery_is_answered_204_and_shown_as_a_block(listener):
    assert listener.post(BODY, signed(BODY)).status_code == 204
    [block] = listener.wait_for_blocks(1)
    lines = block.splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  post\.completed  POST /fanout  -> 204", lines[0])
    assert lines[1:] == [
        "  id         evt_01",
        "  post       post_01",
        "  target     tgt_01  x  published",
        "  url        http://127.0.0.1:8000/sandbox/x/tgt_01",
        "  X-Service-Signature  ok",
        "  webhook-signature    ok",
    ]


def test_a_failed_target_shows_its_error_code_and_message(listener):
    body = json.dumps(event("failed")).encode()
    assert listener.post(body, signed(body)).status_code == 204
    [block] = listener.wait_for_blocks(1)
    assert "post.failed" in block.splitlines()[0]
    assert "  error      caption_too_long: Caption is 301 characters; x allows 280." in block.splitlines()
    assert "url" not in block


def test_an_unsigned_delivery_is_401_naming_both_missing_signatures(listener):
    answer = listener.post(BODY, {"Content-Type": "application/json"})
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "invalid_signature"
    [block] = listener.wait_for_blocks(1)
    assert "  X-Service-Signature  FAILED: no X-Service-Signature header" in block
    assert "  webhook-signature    FAILED: no webhook-id, webhook-timestamp, webhook-signature headers" in block


def test_a_tampered_body_fails_both_signatures(listener):
    tampered = BODY.replace(b"published", b"failed")
    answer = listener.post(tampered, signed(BODY))
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == (
        "X-Service-Signature: does not match the body under this secret; "
        "webhook-signature: does not match the id, timestamp and body under this secret"
    )
    [block] = listener.wait_for_blocks(1)
    assert "-> 401" in block.splitlines()[0]


def test_it_says_which_signature_failed_when_only_one_does(listener):
    headers = {**signed(BODY), "X-Service-Signature": service_signature(OTHER_SECRET, BODY)}
    assert listener.post(BODY, headers).status_code == 401
    [block] = listener.wait_for_blocks(1)
    assert "  X-Service-Signature  FAILED: does not match the body under this secret" in block
    assert "  webhook-signature    ok" in block


def test_a_delivery_signed_more_than_five_minutes_ago_is_refused_as_a_replay(listener):
    answer = listener.post(BODY, signed(BODY, timestamp=int(time.time()) - 400))
    assert answer.status_code == 401
    [block] = listener.wait_for_blocks(1)
    assert "  X-Service-Signature  ok" in block
    assert re.search(r"webhook-signature    FAILED: webhook-timestamp is \d+ s old, past the 300 s tolerance", block)


def test_a_signed_body_that_is_not_a_json_object_is_400(listener):
    body = b"[1, 2]"
    answer = listener.post(body, signed(body))
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"
    [block] = listener.wait_for_blocks(1)
    assert "  body       the body is not a JSON object" in block


def test_control_characters_from_the_body_are_shown_escaped(listener):
    body = json.dumps(event(platform="x\x1b[2J\nforged line")).encode()
    assert listener.post(body, signed(body)).status_code == 204
    [block] = listener.wait_for_blocks(1)
    assert "  target     tgt_01  x\\x1b[2J\\nforged line  published" in block


def test_only_post_is_received(listener):
    answer = requests.get(f"{listener.url}/fanout", timeout=10)
    assert answer.status_code == 405
    assert answer.headers["Allow"] == "POST"


def test_json_prints_one_object_a_line_and_keeps_the_banner_off_stdout(listening):
    listener = listening("--json")
    listener.post(BODY, signed(BODY))
    listener.post(BODY, {})
    lines = wait_for(lambda: len(listener.output().splitlines()) >= 2 and listener.output().splitlines(),
                     what="two JSON lines")
    first, second = map(json.loads, lines)
    assert first["valid"] is True and first["answer"] == 204
    assert first["event"] == event() and first["webhook_id"] == "evt_01" and first["path"] == "/fanout"
    assert first["service_signature"] is None and first["standard_webhooks"] is None
    assert second["valid"] is False and second["answer"] == 401
    assert second["service_signature"] == "no X-Service-Signature header"
    assert "listening on" in listener.err.read_text()


def test_it_listens_on_loopback_by_default(listener):
    assert listener.url.startswith("http://127.0.0.1:")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_ends_it_cleanly_with_exit_0(listening, signum):
    listener = listening()  # its own, as it stops
    listener.post(BODY, signed(BODY))
    listener.wait_for_blocks(1)
    assert listener.stop(signum) == 0
    assert "Traceback" not in listener.err.read_text()


def test_a_port_in_use_fails_with_exit_1_and_a_reason(listener, tmp_path):
    port = listener.url.rsplit(":", 1)[1]
    env = loopback_guarded({k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")})
    done = subprocess.run([sys.executable, "-m", "fanout", "listen", "--port", port, "--secret", SECRET],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


THIRD_SECRET = "whsec_" + base64.b64encode(bytes(range(32, 64))).decode()


def rotated(body: bytes, new: str, old: str) -> dict:
    """The headers Fanout sends during a rotation's overlap (fanout/security/signing.py)."""
    return {"Content-Type": "application/json", **signature_headers([new, old], "evt_01", int(time.time()), body)}


def test_several_secrets_take_a_delivery_signed_with_any_of_them(listening):
    listener = listening("--secret", OTHER_SECRET)  # SECRET, and OTHER_SECRET
    assert "any of these 2 secrets" in listener.output().splitlines()[0]
    assert listener.post(BODY, signed(BODY, secret=OTHER_SECRET)).status_code == 204
    assert listener.post(BODY, signed(BODY, secret=SECRET)).status_code == 204
    refused = listener.post(BODY, signed(BODY, secret=THIRD_SECRET))
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == (
        "X-Service-Signature: does not match the body under any of the 2 secrets; "
        "webhook-signature: does not match the id, timestamp and body under any of the 2 secrets"
    )


def test_during_a_rotation_the_old_secret_alone_fails_and_both_pass(listening):
    """X-Service-Signature has room for the new secret's signature only: a receiver still on
    the old secret must be given the new one too (`--secret NEW --secret OLD`)."""
    body = json.dumps(event()).encode()
    old_only = listening(secret=SECRET)
    answer = old_only.post(body, rotated(body, new=OTHER_SECRET, old=SECRET))
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == "X-Service-Signature: does not match the body under this secret"
    both = listening("--secret", SECRET, secret=OTHER_SECRET, port=free_port())
    assert both.post(body, rotated(body, new=OTHER_SECRET, old=SECRET)).status_code == 204


def test_account_and_registration_events_are_shown_by_their_subject(listener):
    account = {"id": "evt_02", "event": "account.expired", "timestamp": "2026-11-22T10:04:05.123Z", "reason": "refused",
               "account": {"id": "acc_01", "platform": "threads", "username": "ada", "status": "expired",
                           "connected_at": "2026-11-22T10:00:00.000Z", "sandbox": False}}
    disabled = {"id": "evt_03", "event": "webhook.disabled", "timestamp": "2026-11-22T10:04:05.123Z",
                "webhook": {"id": "wh_01", "url": "https://hooks.example.com/x", "events": ["post.failed"],
                            "enabled": False, "disabled_reason": "every delivery attempt failed", "created_at": "x",
                            "previous_secret_expires_at": None}}
    for payload in (account, disabled):
        body = json.dumps(payload).encode()
        assert listener.post(body, signed(body, message_id=payload["id"])).status_code == 204
    first, second = listener.wait_for_blocks(2)
    assert "  account    acc_01  threads  ada  expired" in first.splitlines()
    assert "  reason     refused" in first.splitlines() and "post " not in first
    assert "  webhook    wh_01  https://hooks.example.com/x" in second.splitlines()
    assert "  disabled   every delivery attempt failed" in second.splitlines()


@pytest.mark.parametrize("secret", ["s3cret", "whsec_", "whsec_***"])
def test_a_secret_not_in_fanouts_form_is_a_usage_error(secret):
    """The command's `main` in this process: it stops at parsing, before it would listen."""
    done = run_cli(["listen", "--secret", secret], {k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")})
    assert done.returncode == 2
    assert "--secret" in done.stderr


# --- a real server delivering to it ----------------------------------------------------------


def upload(server_url: str, key: str) -> str:
    connect_on_server(server_url, bearer(key), "x")
    posted = requests.post(f"{server_url}/v1/upload", headers=bearer(key), timeout=10,
                           json={"caption": "Hello from Fanout", "platforms": ["x"]})
    assert posted.status_code == 201, posted.text
    return posted.json()["id"]


def deliveries(server_url: str, key: str, hook_id: str) -> list[dict]:
    answer = requests.get(f"{server_url}/v1/webhooks/{hook_id}/deliveries", headers=bearer(key), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


@pytest.fixture
def sandbox_server(cli, servers, insecure_env):
    """A `fanout serve` that accepts loopback receivers, and a sandbox key on it."""
    server = servers("serve", env=insecure_env)
    workspace = cli.json("workspace", "create", "Listen", "--plan", "PRO")
    return server, cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"]


def test_fanout_serve_delivers_to_fanout_listen_and_both_signatures_verify(sandbox_server, listening):
    server, key = sandbox_server
    port = free_port()
    hook = requests.post(f"{server.url}/v1/webhooks", headers=bearer(key), timeout=10,
                         json={"url": f"http://127.0.0.1:{port}/fanout", "events": ["post.completed"]}).json()
    listener = listening(port=port, secret=hook["secret"])
    post_id = upload(server.url, key)

    [block] = listener.wait_for_blocks(1)
    assert "post.completed  POST /fanout  -> 204" in block.splitlines()[0]
    assert f"  post       {post_id}" in block
    assert re.search(r"  target     tgt_\w+  x  published", block)
    assert f"  url        {server.url}/" in block
    assert "X-Service-Signature  ok" in block and "webhook-signature    ok" in block
    [delivery] = wait_for(lambda: [d for d in deliveries(server.url, key, hook["id"]) if d["status"] == "succeeded"],
                          what="the delivery to succeed")
    assert f"  id         {delivery['event_id']}" in block
    assert delivery["post_id"] == post_id and [a["status_code"] for a in delivery["attempts"]] == [204]


def test_a_listener_with_the_wrong_secret_answers_401_and_fanout_will_retry(sandbox_server, listening):
    server, key = sandbox_server
    port = free_port()
    hook = requests.post(f"{server.url}/v1/webhooks", headers=bearer(key), timeout=10,
                         json={"url": f"http://127.0.0.1:{port}/fanout", "events": ["post.completed"]}).json()
    listener = listening(port=port, secret=OTHER_SECRET)
    upload(server.url, key)

    [block] = listener.wait_for_blocks(1)
    assert "-> 401" in block.splitlines()[0]
    assert "X-Service-Signature  FAILED: does not match the body under this secret" in block
    [delivery] = wait_for(lambda: [d for d in deliveries(server.url, key, hook["id"]) if d["attempts"]],
                          what="the attempt to be recorded")
    assert delivery["status"] == "pending" and delivery["next_attempt_at"] is not None
    assert [a["status_code"] for a in delivery["attempts"]] == [401]
