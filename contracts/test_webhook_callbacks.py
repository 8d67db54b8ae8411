"""The spec describes what the service sends to a webhook endpoint, and sends what it says.

openapi.yaml documents deliveries as the `events` callback of `POST /v1/webhooks` (and the
same in `x-webhooks`, for generators that read it): the signature headers and the body,
with an example of every event. Here: every event has its example, each true to the schema,
and a real delivery to a loopback receiver (an event, and a test ping) carries every
documented header in its documented form and a body the documented schema accepts.
"""
from __future__ import annotations

import json
import re

import pytest

from contracts.test_examples import BY_ID, SPEC, resolve, validator
from tests.conftest import connect_sandbox_account, run_queue
from tests.webhook_receiver import insecure_urls, receiver, register  # noqa: F401 (fixtures)

EVENTS = [*SPEC["components"]["schemas"]["WebhookEvent"]["enum"], "webhook.test"]


def callback() -> dict:
    [(expression, item)] = resolve(BY_ID["create_webhook"].spec["callbacks"]["events"]).items()
    assert expression == "{$request.body#/url}"  # sent to the registered URL
    return item["post"]


def delivery_body() -> dict:
    return resolve(callback()["requestBody"])["content"]["application/json"]


def documented_headers() -> list[dict]:
    return [resolve(p) for p in callback()["parameters"] if resolve(p)["in"] == "header"]


def test_the_registration_documents_its_deliveries_as_a_callback_and_in_x_webhooks():
    assert {p["name"] for p in documented_headers()} == {
        "webhook-id", "webhook-timestamp", "webhook-signature", "X-Service-Signature"}
    [(_, item)] = SPEC["x-webhooks"].items()
    assert item["post"]["parameters"] == callback()["parameters"]
    assert item["post"]["requestBody"] == callback()["requestBody"]


def test_every_event_has_a_delivery_example_true_to_the_schema():
    examples = {name: resolve(example)["value"] for name, example in delivery_body()["examples"].items()}
    assert sorted(examples) == sorted(EVENTS)
    for name, value in examples.items():
        assert value["event"] == name
        assert not [e.message for e in validator(delivery_body()["schema"]).iter_errors(value)], name


def assert_as_documented(request) -> None:
    for header in documented_headers():
        value = request.headers.get(header["name"])
        assert value is not None, f"{header['name']} missing"
        assert re.fullmatch(header["schema"].get("pattern", ".*"), value), (header["name"], value)
    assert request.headers["Content-Type"] == "application/json"
    body = json.loads(request.get_data())
    assert request.headers["webhook-id"] == body["id"]
    assert not [e.message for e in validator(delivery_body()["schema"]).iter_errors(body)]


def test_a_delivered_event_is_as_the_callback_documents(client, auth, rt, clock, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    register(client, auth, receiver.url_for("/hook"))
    account = connect_sandbox_account(client, auth, "x")
    assert client.post("/v1/upload", headers=auth, json={"caption": "hi", "account_ids": [account["id"]]}).status_code == 201
    run_queue(rt, clock)
    [(request, _)] = receiver.log
    assert json.loads(request.get_data())["event"] == "post.completed"
    assert_as_documented(request)


def test_a_test_ping_is_as_the_callback_documents(client, auth, receiver):
    receiver.expect_request("/hook").respond_with_data("ok")
    hook = register(client, auth, receiver.url_for("/hook"))
    answer = client.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)
    assert answer.status_code == 200, answer.text
    [(request, _)] = receiver.log
    assert json.loads(request.get_data())["event"] == "webhook.test"
    assert_as_documented(request)
