"""POST/GET /v1/webhooks, GET/DELETE /v1/webhooks/{id} (docs/decisions.md#webhook-registrations)."""
import logging
from dataclasses import replace

import pytest

from fanout.app import boot
from fanout.models import Webhook, db
from fanout.models.workspace import set_plan
from fanout.plans import PLANS
from fanout.tasks import memory_queue


HOOK = {"url": "https://hooks.example.com/fanout", "events": ["post.completed", "post.failed"]}


def register(client, auth, **body):
    return client.post("/v1/webhooks", headers=auth, json={**HOOK, **body})


def test_register_answers_201_with_the_secret(client, auth):
    answer = register(client, auth)
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) == {"id", "url", "events", "enabled", "disabled_reason", "previous_secret_expires_at", "secret",
                         "created_at"}
    assert body["id"].startswith("wh_")
    assert body["url"] == HOOK["url"]
    assert body["events"] == ["post.completed", "post.failed"]
    assert body["enabled"] is True and body["disabled_reason"] is None and body["previous_secret_expires_at"] is None
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 40
    assert body["created_at"] == "2026-11-22T10:00:00.000Z"


@pytest.mark.parametrize("plan", list(PLANS))
def test_the_eleventh_registration_is_refused_on_every_plan(client, auth, workspace, plan):
    with db.connection_context():
        set_plan(workspace.id, plan)
    for _ in range(10):
        assert register(client, auth).status_code == 201
    answer = register(client, auth)
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "plan_limit_exceeded"
    assert "10 webhook registrations" in answer.json()["error"]["message"]
    assert len(client.get("/v1/webhooks", headers=auth).json()["data"]) == 10


def test_deleting_a_registration_makes_room_for_another(client, auth):
    ids = [register(client, auth).json()["id"] for _ in range(10)]
    assert client.delete(f"/v1/webhooks/{ids[0]}", headers=auth).status_code == 204
    assert register(client, auth).status_code == 201


def test_each_registration_has_its_own_secret(client, auth):
    assert register(client, auth).json()["secret"] != register(client, auth).json()["secret"]


def test_secret_is_never_shown_again(client, auth):
    created = register(client, auth).json()
    got = client.get(f"/v1/webhooks/{created['id']}", headers=auth)
    listed = client.get("/v1/webhooks", headers=auth)
    assert got.status_code == listed.status_code == 200
    assert "secret" not in got.json()
    assert all("secret" not in w for w in listed.json()["data"])
    assert created["secret"] not in got.text + listed.text


def test_secret_is_encrypted_at_rest(client, auth, rt):
    created = register(client, auth).json()
    with db.connection_context():
        stored = Webhook.get_by_id(created["id"]).secret
    assert created["secret"] not in stored
    assert rt.keyring.decrypt(stored) == created["secret"]


def test_events_keep_a_stable_order(client, auth):
    body = register(client, auth, events=["post.failed", "post.completed"]).json()
    assert body["events"] == ["post.completed", "post.failed"]


def test_get_returns_the_registration(client, auth):
    created = register(client, auth, events=["post.failed"]).json()
    got = client.get(f"/v1/webhooks/{created['id']}", headers=auth).json()
    assert got == {k: v for k, v in created.items() if k != "secret"}


def test_list_is_newest_first(client, auth, clock):
    first = register(client, auth).json()
    clock.advance(seconds=1)
    second = register(client, auth).json()
    ids = [w["id"] for w in client.get("/v1/webhooks", headers=auth).json()["data"]]
    assert ids == [second["id"], first["id"]]


def test_delete_answers_204_then_404(client, auth):
    created = register(client, auth).json()
    deleted = client.delete(f"/v1/webhooks/{created['id']}", headers=auth)
    assert deleted.status_code == 204 and deleted.content == b"" and "content-type" not in deleted.headers
    assert client.get(f"/v1/webhooks/{created['id']}", headers=auth).status_code == 404
    assert client.delete(f"/v1/webhooks/{created['id']}", headers=auth).status_code == 404


def test_another_workspace_sees_404_exactly_like_an_unknown_id(client, auth, other_auth):
    created = register(client, auth).json()
    foreign = client.get(f"/v1/webhooks/{created['id']}", headers=other_auth)
    unknown = client.get("/v1/webhooks/wh_00000000000000000000000000", headers=other_auth)
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    assert client.delete(f"/v1/webhooks/{created['id']}", headers=other_auth).status_code == 404
    assert client.get("/v1/webhooks", headers=other_auth).json() == {"data": []}
    assert client.get(f"/v1/webhooks/{created['id']}", headers=auth).status_code == 200


@pytest.mark.parametrize(
    "url, why",
    [
        ("http://hooks.example.com/x", "https"),
        ("https://internal.example.com/x", "non-public"),
        ("https://metadata.example.com/x", "non-public"),
        ("https://rebind.example.com/x", "non-public"),
        ("https://127.0.0.1/x", "non-public"),
        ("https://[::1]/x", "a name or an IPv4 address"),
        ("https://10.1.2.3/x", "non-public"),
        ("https://nowhere.example.com/x", "does not resolve"),
        ("https://user:pw@hooks.example.com/x", "user info"),
        ("https://hooks.example.com:22/x", "port"),
        ("hooks.example.com/x", "https"),
        ("", "https"),
    ],
)
def test_register_refuses_urls_that_are_not_public_https(client, auth, url, why):
    answer = register(client, auth, url=url)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "validation_error"
    assert why in error["message"] and error["message"].startswith("url")


def test_register_accepts_a_host_with_public_ipv4_and_ipv6(client, auth):
    assert register(client, auth, url="https://dual.example.com/hook").status_code == 201


@pytest.mark.parametrize("insecure_urls", [True])
def test_insecure_mode_allows_a_loopback_http_receiver(client, auth):
    assert register(client, auth, url="http://127.0.0.1:9999/hook").status_code == 201


@pytest.mark.parametrize("insecure_urls", [True])
def test_insecure_mode_still_refuses_user_info(client, auth):
    answer = register(client, auth, url="http://user:pw@127.0.0.1:9999/hook")
    assert answer.status_code == 400 and answer.json()["error"]["message"].startswith("url: must be")


@pytest.mark.parametrize(
    "body",
    [
        {"url": HOOK["url"], "events": []},
        {"url": HOOK["url"], "events": ["post.failed", "post.failed"]},
        {"url": HOOK["url"], "events": ["post.created"]},
        {"url": HOOK["url"]},
        {"events": ["post.failed"]},
        {"url": 5, "events": ["post.failed"]},
        {**HOOK, "secret": "mine"},
        {"url": "https://hooks.example.com/" + "a" * 2048, "events": ["post.failed"]},
    ],
)
def test_register_refuses_bodies_that_break_the_schema(client, auth, body):
    answer = client.post("/v1/webhooks", headers=auth, json=body)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"


def test_a_refused_registration_stores_nothing(client, auth):
    refused = register(client, auth, url="https://internal.example.com/x")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "validation_error"
    assert "non-public" in refused.json()["error"]["message"]
    assert client.get("/v1/webhooks", headers=auth).json() == {"data": []}


def test_insecure_mode_warns_in_the_log(settings, caplog):
    with caplog.at_level(logging.WARNING, logger="fanout.app"):
        boot(replace(settings, insecure_urls=True), queue=memory_queue())
    assert "FANOUT_INSECURE_URLS is on" in caplog.text
