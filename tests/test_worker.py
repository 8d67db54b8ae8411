"""The queue worker as a real process: end to end, killed mid-flight, stopped gracefully."""
import json
import signal
import time

import pytest
import requests
from standardwebhooks.webhooks import Webhook as StandardWebhook

from fanout.models import Delivery, Event, Target, db
from fanout.security.signing import verify_service_signature

from .conftest import IMAGE, bearer, connect_on_server, connect_sandbox_account, start_worker, wait_for


def target_row(target_id):
    with db.connection_context():
        return Target.get_by_id(target_id)


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the webhook receiver is an http endpoint on loopback


@pytest.fixture
def hook(client, auth, httpserver):
    httpserver.expect_request("/hook").respond_with_data("ok")
    answer = client.post("/v1/webhooks", headers=auth,
                         json={"url": httpserver.url_for("/hook"), "events": ["post.completed", "post.failed"]})
    assert answer.status_code == 201
    return answer.json()


def test_a_worker_killed_mid_publish_leaves_a_target_that_is_published_exactly_once(
        client, auth, hook, httpserver, real_queue, insecure_env, tmp_path):
    connect_sandbox_account(client, auth, "x")
    post = client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]}).json()
    target_id = post["targets"][0]["id"]
    real_queue.publish(target_id)

    slow = start_worker({**insecure_env, "FANOUT_SANDBOX_LATENCY": "30", "FANOUT_PUBLISH_LEASE": "2"}, tmp_path / "w1.log")
    try:
        wait_for(lambda: target_row(target_id).status == "processing", what="the target to be in flight")
    finally:
        slow.send_signal(signal.SIGKILL)
        slow.wait()
    assert target_row(target_id).status == "processing"
    time.sleep(2.1)  # the dead worker's lease runs out

    fresh = start_worker(insecure_env, tmp_path / "w2.log")
    try:
        wait_for(lambda: target_row(target_id).status == "published", what="the target to publish")
        wait_for(lambda: len(httpserver.log) >= 1, what="the event delivery")
        time.sleep(1.5)  # room for any duplicate to show up
    finally:
        fresh.send_signal(signal.SIGINT)
        fresh.wait(30)
    final = target_row(target_id)
    assert (final.status, final.attempts) == ("published", 2)
    with db.connection_context():
        assert Event.select().where(Event.target == target_id).count() == 1
        assert [d.status for d in Delivery.select()] == ["succeeded"]
    assert len(httpserver.log) == 1
    assert json.loads(httpserver.log[0][0].get_data())["target"]["id"] == target_id


def test_sigterm_lets_the_running_task_finish(client, auth, real_queue, insecure_env, tmp_path):
    connect_sandbox_account(client, auth, "x")
    post = client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]}).json()
    target_id = post["targets"][0]["id"]
    real_queue.publish(target_id)
    worker = start_worker({**insecure_env, "FANOUT_SANDBOX_LATENCY": "2"}, tmp_path / "w.log")
    wait_for(lambda: target_row(target_id).status == "processing", what="the target to be in flight")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0
    assert target_row(target_id).status == "published"


def test_serve_publishes_a_three_target_post_and_delivers_three_signed_events(
        cli, servers, insecure_env, httpserver):
    httpserver.expect_request("/hook").respond_with_data("ok")
    server = servers("serve", insecure_env)
    ws = cli.json("workspace", "create", "E2E", "--plan", "PRO")
    headers = bearer(cli.json("key", "create", ws["id"], "--mode", "sandbox")["key"])
    for platform in ("x", "threads", "instagram"):
        connect_on_server(server.url, headers, platform)
    hook = requests.post(f"{server.url}/v1/webhooks", headers=headers, timeout=10,
                         json={"url": httpserver.url_for("/hook"), "events": ["post.completed", "post.failed"]}).json()
    post = requests.post(f"{server.url}/v1/upload", headers=headers, timeout=10, json={
        "caption": "end to end", "platforms": ["x", "threads", "instagram"], "media": [IMAGE]}).json()

    def final():
        got = requests.get(f"{server.url}/v1/posts/{post['id']}", headers=headers, timeout=10).json()
        return got if got["status"] in ("completed", "failed", "partial") else None

    assert wait_for(final, 60, "the post to finish")["status"] == "completed"
    wait_for(lambda: len(httpserver.log) >= 3, 30, "three deliveries")
    assert len(httpserver.log) == 3
    for request, _ in httpserver.log:
        raw = request.get_data()
        assert verify_service_signature(hook["secret"], raw, request.headers["X-Service-Signature"])
        StandardWebhook(hook["secret"]).verify(raw, dict(request.headers))
