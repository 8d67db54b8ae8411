"""Every example in openapi.yaml is true to the schema and to the server.

- Each request example (a body, a parameter) and each response example validates against
  its schema, with OpenAPI 3.0 semantics (openapi-schema-validator) and `$ref`s resolved in
  the file.
- Each documented status with an example is met live: the test makes the request that gets
  it on the in-process app (sandbox key, a connected sandbox account, a published post, a
  delivered event) and checks that the answer has the example's shape (the same keys, all
  the way down; values and ids differ) and validates against the same schema. Success
  answers come from the documented request itself: its parameter and body examples, with
  the ids of real resources in the path and in `account_ids`.
"""
from __future__ import annotations

import copy
import datetime as dt
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from fanout.models import Account, db
from fanout.outbound.guard import UnsafeURL, check_url
from fanout.models.account import connect_account
from fanout.models.workspace import create_workspace
from fanout.tasks.heartbeat import Heartbeat
from tests.conftest import bearer, connect_sandbox_account, make_key, run_queue, spend

SPEC = yaml.safe_load((Path(__file__).resolve().parent.parent / "openapi.yaml").read_text())
REGISTRY = Registry().with_resource("urn:fanout", Resource.from_contents(SPEC, default_specification=DRAFT4))
METHODS = ("get", "put", "post", "delete", "patch")
UNKNOWN_IDS = {"accounts": "acc_00000000000000000000000000", "posts": "post_00000000000000000000000000",
               "webhooks": "wh_00000000000000000000000000", "events": "evt_00000000000000000000000000"}
# Documented answers no request of a test can get on purpose; their examples are checked
# against the schema only.
NOT_MET_LIVE = {
    "431": "answered by the HTTP server for request heads over 64 KiB (tests/http/test_request_limits.py, real server)",
    "500": "an unexpected failure; nothing provokes one on purpose",
}


def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        target = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def in_the_file(node):
    """`node` with every `$ref` in it, however deep, pointing into openapi.yaml."""
    if isinstance(node, dict):
        return {k: ("urn:fanout" + v if k == "$ref" else in_the_file(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [in_the_file(v) for v in node]
    return node


def validator(schema: dict) -> OAS30Validator:
    """A validator for `schema`, a node of openapi.yaml: its `$ref`s resolve in the file."""
    return OAS30Validator(in_the_file(schema), registry=REGISTRY)


def examples_of(node: dict) -> list[tuple[str, object]]:
    """The examples of a media type or parameter object, named."""
    found = [("example", node["example"])] if "example" in node else []
    return found + [(name, resolve(example)["value"]) for name, example in (node.get("examples") or {}).items()]


@dataclass(frozen=True)
class Operation:
    path: str
    method: str
    spec: dict

    @property
    def id(self) -> str:
        return self.spec["operationId"]

    def parameters(self) -> list[dict]:
        return [resolve(p) for p in self.spec.get("parameters") or []]

    def body(self) -> dict | None:
        body = self.spec.get("requestBody")
        return resolve(body)["content"]["application/json"] if body else None

    def response(self, status: str) -> dict:
        return resolve(self.spec["responses"][status])

    def response_examples(self) -> dict[str, list[tuple[str, object]]]:
        """Status -> the examples of its JSON body, for every documented status with one
        (the Prometheus text of GET /metrics is not JSON: tests/ops/test_metrics.py)."""
        found = {}
        for status in self.spec["responses"]:
            content = self.response(status).get("content") or {}
            if "application/json" in content:
                found[status] = examples_of(content["application/json"])
        return found


OPERATIONS = [Operation(path, method, item[method]) for path, item in SPEC["paths"].items()
              for method in METHODS if method in item]
BY_ID = {operation.id: operation for operation in OPERATIONS}


def all_examples():
    for op in OPERATIONS:
        for param in op.parameters():
            for name, value in examples_of(param):
                yield pytest.param(param["schema"], value, id=f"{op.id} parameter {param['name']} {name}")
        if op.body():
            for name, value in examples_of(op.body()):
                yield pytest.param(op.body()["schema"], value, id=f"{op.id} request {name}")
        for status, examples in op.response_examples().items():
            schema = op.response(status)["content"]["application/json"]["schema"]
            for name, value in examples:
                yield pytest.param(schema, value, id=f"{op.id} {status} {name}")


@pytest.mark.parametrize(("schema", "value"), list(all_examples()))
def test_every_example_matches_its_schema(schema, value):
    errors = [error.message for error in validator(schema).iter_errors(value)]
    assert not errors, errors


@pytest.mark.parametrize("op", OPERATIONS, ids=[op.id for op in OPERATIONS])
def test_every_operation_has_a_request_and_a_response_example(op):
    if op.body():
        assert examples_of(op.body()), f"{op.id}: no request body example"
    for param in op.parameters():
        if param["in"] == "path":
            assert examples_of(param), f"{op.id}: no example for path parameter {param['name']}"
    for status, examples in op.response_examples().items():
        assert examples, f"{op.id} {status}: no example"
    assert any(status.startswith("2") for status in op.response_examples()) or op.method == "delete" or any(
        "example" in media for media in (op.response("200").get("content") or {}).values())


# --- the shape of a live answer --------------------------------------------------------------


# Objects keyed by platform (a post's `overrides`): their keys are the platforms a post
# names, not fields; only the platforms both name are compared.
BY_PLATFORM = ("/overrides",)


def shape_differences(example, live, where: str = "") -> list[str]:
    """Where `live` differs from `example` in shape: keys all the way down, the first items of
    two lists, and each scalar's JSON type (null goes with any type: nullable fields)."""
    if isinstance(example, dict) and isinstance(live, dict):
        fields = not where.endswith(BY_PLATFORM)
        found = [f"{where}: keys {sorted(example)} != {sorted(live)}"] if fields and set(example) != set(live) else []
        for key in set(example) & set(live):
            found += shape_differences(example[key], live[key], f"{where}/{key}")
        return found
    if isinstance(example, list) and isinstance(live, list):
        # An empty list (a text-only post's media) has no item to compare.
        return shape_differences(example[0], live[0], f"{where}/0") if example and live else []
    if example is None or live is None:
        return []
    kinds = (type(example).__name__, type(live).__name__)
    return [] if kinds[0] == kinds[1] else [f"{where}: {kinds[0]} != {kinds[1]}"]


def test_shape_differences_itself():
    assert shape_differences({"a": [{"b": 1}], "c": None}, {"a": [{"b": 2}, {}], "c": "x"}) == []
    assert shape_differences({"a": 1}, {"a": 1, "b": 2}) == [": keys ['a'] != ['a', 'b']"]
    assert shape_differences({"a": [{"b": 1}]}, {"a": [{"b": "1"}]}) == ["/a/0/b: int != str"]
    assert shape_differences({"a": [{"b": 1}]}, {"a": [{}]}) == ["/a/0: keys ['b'] != []"]
    assert shape_differences({"overrides": {"x": {"caption": "a"}}}, {"overrides": {"threads": {}}}) == []
    assert shape_differences({"overrides": {"x": {"caption": "a"}}}, {"overrides": {"x": {"thread": []}}}) == [
        "/overrides/x: keys ['caption'] != ['thread']"]


# --- the live requests -------------------------------------------------------------------------


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the events of the delivered post go to a receiver on loopback, over http


@dataclass
class World:
    """A workspace with something of everything, and the requests that reach it."""

    client: object
    auth: dict
    ids: dict  # the first path segment after /v1 -> the id of a real resource there
    rt: object
    clock: object
    params: dict  # other path parameters -> a real value (the webhook's delivery)

    def request(self, op: Operation, *, headers: dict | None = None, path_id: str | None = None,
                query: dict | None = None, body=None, content: bytes | None = None):
        """The documented request of `op`: its parameter examples, real ids, `body` if given."""
        collection = (op.path.split("/") + [""] * 3)[2]  # "" for the monitoring routes
        path = op.path.replace("{id}", path_id or self.ids.get(collection, ""))
        params = {}
        for param in op.parameters():
            if param["in"] == "path" and param["name"] != "id":
                path = path.replace("{%s}" % param["name"], str(self.params.get(param["name"], param["example"])))
            if param["in"] == "query" and "example" in param:
                params[param["name"]] = json.dumps(param["example"]) if isinstance(param["example"], bool) else param["example"]
        params.update(query or {})
        if body is None and content is None and op.body():
            body = self.with_real_ids(examples_of(op.body())[0][1])
        return self.client.request(op.method.upper(), path, params=params, json=body, content=content,
                                   headers=self.auth if headers is None else headers)

    def pending_post(self, headers: dict | None = None, account_id: str | None = None) -> str:
        """A post to the x account (or `account_id`) due in an hour: it can still be changed."""
        answer = self.client.post("/v1/upload", headers=headers or self.auth, json={
            "caption": "later", "account_ids": [account_id or self.ids["accounts"]],
            "scheduled_at": "2026-12-01T10:00:00Z"})
        assert answer.status_code == 201, answer.text
        return answer.json()["id"]

    def with_real_ids(self, body):
        body = copy.deepcopy(body)
        if isinstance(body, dict) and "account_ids" in body:
            body["account_ids"] = [self.ids["accounts"]]
        return body


@pytest.fixture
def world(client, auth, rt, clock, resolver, httpserver) -> World:
    """Sandbox accounts on x, threads and pinterest, a webhook on a loopback receiver, a post
    published to the x account with an image, the event of it delivered, and a queue
    worker's heartbeat."""
    resolver.names["localhost"] = ["127.0.0.1"]
    httpserver.expect_request("/hook").respond_with_data("ok")
    account = connect_sandbox_account(client, auth, "x")
    connect_sandbox_account(client, auth, "threads")  # the text-only upload example goes to x and threads
    pinterest = connect_sandbox_account(client, auth, "pinterest")  # the one with boards
    hook = client.post("/v1/webhooks", headers=auth,
                       json={"url": httpserver.url_for("/hook"), "events": ["post.completed", "post.failed"]})
    assert hook.status_code == 201, hook.text
    post = client.post("/v1/upload", headers=auth, json={
        "caption": "hello", "account_ids": [account["id"]],
        "media": [{"url": "https://cdn.example.com/a.jpg", "type": "image"}]})
    assert post.status_code == 201, post.text
    run_queue(rt, clock)
    Heartbeat(rt).beat()
    [delivery] = client.get(f"/v1/webhooks/{hook.json()['id']}/deliveries", headers=auth).json()["data"]
    connected = client.get("/v1/events", headers=auth, params={"account_id": account["id"], "type": "account.connected"})
    ids = {"accounts": account["id"], "posts": post.json()["id"], "webhooks": hook.json()["id"],
           "events": connected.json()["data"][0]["id"]}
    return World(client, auth, ids, rt, clock, {"delivery_id": delivery["id"], "pinterest": pinterest["id"]})


EDITS = ("update_post", "delete_post")  # of a post none of whose targets has started
ON_PINTEREST = ("list_account_boards",)  # of an account with boards; the world's x account has none (422)


def meet_success(world: World, op: Operation, status: str, settings, free):
    if op.id in EDITS:
        return [world.request(op, path_id=world.pending_post())]
    if op.id in ON_PINTEREST:
        return [world.request(op, path_id=world.params["pinterest"])]
    return [world.request(op)] if op.id != "create_post" else [
        world.request(op, body=world.with_real_ids(value)) for _, value in examples_of(op.body())]


def meet_400(world, op, status, settings, free):
    return [world.request(op, query={"unexpected": "1"})]


def meet_401(world, op, status, settings, free):
    if op.id == "get_metrics":  # 401 only where the server sets a metrics token
        world.rt.settings = replace(world.rt.settings, metrics_token="metrics-token-0123456789abcdef")
    return [world.request(op, headers={})]


def meet_404(world, op, status, settings, free):
    return [world.request(op, path_id=UNKNOWN_IDS[op.path.split("/")[2]])]


def meet_413(world, op, status, settings, free):
    return [world.request(op, content=b" " * (settings.max_body_bytes + 1),
                          headers={**world.auth, "Content-Type": "application/json"})]


def meet_429(world, op, status, settings, free):
    _, headers = free  # 30 requests a minute
    spend(world.client, headers, 30)
    return [world.request(op, headers=headers)]


def meet_403(world, op, status, settings, free):
    _, headers = free  # 4 accounts
    if op.id == "start_connect":  # at the cap, with no account on the platform to reconnect
        for platform in ("threads", "threads", "instagram", "tiktok"):
            connect_sandbox_account(world.client, headers, platform)
        return [world.request(op, headers=headers)]
    if op.id == "create_webhook":
        for _ in range(9):  # the world's registration is the first of the 10
            assert world.request(op).status_code == 201
        return [world.request(op)]
    if op.id in ("create_post", "preflight_post"):
        return [world.request(op, body={"caption": "hi", "platforms": ["x"], "sandbox": False})]
    if op.id in EDITS:  # a sandbox key, and a live post
        workspace_id = _workspace_of(world)
        with db.connection_context():
            account = connect_account(world.rt, workspace_id, platform="x", sandbox=False, platform_user_id="1",
                                      username="someone", access_token="t")
        live = bearer(make_key(world.rt, workspace_id, "live"))
        return [world.request(op, path_id=world.pending_post(live, account.id))]
    raise AssertionError(f"no way to meet {op.id} 403")


def _workspace_of(world) -> str:
    with db.connection_context():
        return Account.get_by_id(world.ids["accounts"]).workspace_id


def meet_409(world, op, status, settings, free):
    if op.id in EDITS:
        return [world.request(op)]  # the world's post is published
    key = {**world.auth, "Idempotency-Key": "same-key"}
    first = world.request(op, headers=key, body={"caption": "one", "platforms": ["x"]})
    assert first.status_code == 201, first.text
    return [world.request(op, headers=key, body={"caption": "two", "platforms": ["x"]})]


def meet_422(world, op, status, settings, free):
    if op.id == "start_connect":  # a live key, and the in-process app has no platform app
        with db.connection_context():
            ws = create_workspace(world.rt, "Live", "FREE")
        return [world.request(op, headers=bearer(make_key(world.rt, ws.id, "live")))]
    if op.id in ON_PINTEREST:  # the world's x account
        return [world.request(op)]
    if op.id == "update_post":  # five images to x, which takes four
        five = [{"url": f"https://cdn.example.com/{n}.jpg", "type": "image"} for n in range(5)]
        return [world.request(op, path_id=world.pending_post(), body={"media": five})]
    return [world.request(op, body={"caption": "hi", "platforms": ["tiktok"]})]


def meet_503(world, op, status, settings, free):
    world.clock.advance(seconds=settings.heartbeat_stale + 1)  # the worker's heartbeat goes stale
    return [world.request(op)]


MEET = {"400": meet_400, "401": meet_401, "403": meet_403, "404": meet_404, "409": meet_409,
        "413": meet_413, "422": meet_422, "429": meet_429, "503": meet_503}


def live_cases():
    for op in OPERATIONS:
        for status in op.response_examples():
            if status not in NOT_MET_LIVE:
                yield pytest.param(op, status, id=f"{op.id} {status}")


def test_every_documented_status_with_an_example_is_met_live_or_says_why_not():
    for op in OPERATIONS:
        for status in op.response_examples():
            assert status.startswith("2") or status in MEET or status in NOT_MET_LIVE, (op.id, status)


@pytest.mark.parametrize(("op", "status"), list(live_cases()))
def test_the_live_answer_has_the_documented_shape(world, settings, free, op, status):
    meet = meet_success if status.startswith("2") else MEET[status]
    schema = op.response(status)["content"]["application/json"]["schema"]
    [(_, example)] = op.response_examples()[status]
    for answer in meet(world, op, status, settings, free):
        assert answer.status_code == int(status), answer.text
        assert answer.headers["content-type"] == "application/json"
        live = answer.json()
        assert not [e.message for e in validator(schema).iter_errors(live)]
        assert shape_differences(example, live) == []
        if "data" in example:
            assert live["data"], "a list the world has something for answered empty: no item was compared"
        if isinstance(example.get("error"), dict):  # an error answer (a ping's result has an `error` field)
            assert live["error"]["code"] == example["error"]["code"]


# --- examples that stay true ---------------------------------------------------------------
#
# The examples are read, and sent by tools, long after they are written: a time in one must
# not go stale, and a request example must be accepted whenever it is sent.

FAR_AHEAD = dt.datetime(2090, 1, 1, tzinfo=dt.timezone.utc)
DATE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


def values_in(node, where: str = ""):
    """(where, value) of every scalar in an example, however deep."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from values_in(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from values_in(value, f"{where}/{index}")
    else:
        yield where, node


def every_example(node=SPEC, where: str = ""):
    """(where, value) of every example anywhere in openapi.yaml: media types, parameters,
    schemas and their properties, callbacks."""
    if isinstance(node, dict):
        if "example" in node:
            yield f"{where}/example", node["example"]
        if isinstance(node.get("examples"), dict):
            for name, example in node["examples"].items():
                if isinstance(example, dict) and ("value" in example or "$ref" in example):
                    yield f"{where}/examples/{name}", resolve(example)["value"]
        for key, value in node.items():
            if key not in ("example", "examples"):
                yield from every_example(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from every_example(value, f"{where}/{index}")


def schema_examples(schema: dict, where: str, seen: frozenset = frozenset()):
    """(where, value) of the examples a tool takes from `schema` to build a request: the
    schema's own and its properties', through `$ref`s and combinations."""
    ref = schema.get("$ref")
    if ref in seen:
        return
    seen, schema = seen | {ref}, resolve(schema)
    if "example" in schema:
        yield where, schema["example"]
    for name, prop in (schema.get("properties") or {}).items():
        yield from schema_examples(prop, f"{where}.{name}", seen)
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key) or []:
            yield from schema_examples(part, where, seen)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from schema_examples(schema[key], f"{where}[]", seen)


def request_examples():
    """(where, value) of every example a tool sends: bodies and parameters, and the examples
    of their schemas."""
    for op in OPERATIONS:
        for param in op.parameters():
            for name, value in examples_of(param):
                yield f"{op.id} parameter {param['name']} {name}", value
            yield from schema_examples(param["schema"], f"{op.id} parameter {param['name']} schema")
        if op.body():
            for name, value in examples_of(op.body()):
                yield f"{op.id} request {name}", value
            yield from schema_examples(op.body()["schema"], f"{op.id} request schema")


def times_in(examples):
    for where, example in examples:
        for inner, value in values_in(example):
            if isinstance(value, str) and DATE_TIME.match(value):
                yield f"{where}{inner}", value


def test_every_time_in_an_example_is_far_in_the_future():
    stale = [(where, value) for where, value in times_in(every_example())
             if dt.datetime.fromisoformat(value.replace("Z", "+00:00")) < FAR_AHEAD]
    assert not stale, stale


def test_no_request_example_carries_a_fixed_time():
    # Any fixed `scheduled_at` is refused once it is past, and while it is over 365 days ahead.
    assert not list(times_in(request_examples()))


# The names RFC 2606 reserves for documentation that public DNS resolves, to public
# addresses (their subdomains, such as hooks.example.com, do not resolve).
PUBLIC_DNS = {"example.com": ["96.7.128.175"], "example.net": ["96.7.128.192"], "example.org": ["96.7.128.198"]}


def webhook_urls():
    for where, example in every_example():
        if "ebhook" in where:
            for inner, value in values_in(example):
                if inner.endswith("/url") or (inner == "" and where.endswith("/url/example")):
                    yield where + inner, value


def test_every_webhook_example_names_a_host_the_url_guard_accepts():
    urls = list(webhook_urls())
    assert len(urls) > 5
    for where, url in urls:
        try:
            check_url(url, lambda host: PUBLIC_DNS.get(host, []))
        except UnsafeURL as refused:
            raise AssertionError(f"{where}: {url} {refused}") from None


def sent_examples():
    for op in OPERATIONS:
        for name, value in examples_of(op.body()) if op.body() else [("no body", None)]:
            if op.body() or any(param["in"] in ("query", "path") and examples_of(param) for param in op.parameters()):
                yield pytest.param(op, value, id=f"{op.id} {name}")


@pytest.mark.parametrize("years_ahead", [0, 60], ids=["now", "in 60 years"])
@pytest.mark.parametrize(("op", "body"), list(sent_examples()))
def test_every_request_example_is_accepted_now_and_far_ahead(world, op, body, years_ahead):
    world.clock.advance(days=365 * years_ahead)
    path_id = None
    if op.id in EDITS:
        pending = world.client.post("/v1/upload", headers=world.auth, json={
            "caption": "later", "account_ids": [world.ids["accounts"]],
            "scheduled_at": f"{world.clock.now + dt.timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}"})
        assert pending.status_code == 201, pending.text
        path_id = pending.json()["id"]
    if op.id in ON_PINTEREST:
        path_id = world.params["pinterest"]
    answer = world.request(op, path_id=path_id, body=None if body is None else world.with_real_ids(body))
    assert 200 <= answer.status_code < 300, answer.text
