"""Every link openapi.yaml declares leads somewhere: followed from a live answer, its target answers.

A link says "what this answer holds is what that operation takes" (a created post's id for
GET /v1/posts/{id}, a page's `next_cursor` for the next page). For each declared link the
test makes its source request on a workspace with something of everything, reads the
link's runtime expressions (`$response.body#/...`, `$request.path.id`) off that exchange,
sends the target request they make, and checks the target's success answer: the
documented 2xx, or 404 `not_found` after a delete (the link then says the resource is
gone). Tools follow links (contracts/test_st_plain.py runs a stateful `st run` on them);
this pins each one, whatever a random run happens to choose.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import pytest
import yaml

from fanout.spec import SPEC as SPEC_PATH
from tests.conftest import ExampleEndpoints, connect_sandbox_account, run_queue

SPEC = yaml.safe_load(SPEC_PATH.read_text())
METHODS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"

    def success(self) -> int:
        return min(int(status) for status in self.spec["responses"] if status.startswith("2"))

    def body_example(self):
        media = self.spec["requestBody"]["content"]["application/json"]
        return copy.deepcopy(media["example"] if "example" in media else next(iter(media["examples"].values()))["value"])


OPERATIONS = {item[m]["operationId"]: Operation(m, path, item[m]) for path, item in SPEC["paths"].items()
              for m in METHODS if m in item}


# What each resource's operations are reached from: the operation that creates one (its
# answer holds the new resource) and the list of them (its answer holds the first one).
# Accounts are made by the connect flow's pages, outside the API, so only listed.
RESOURCES = {
    "/v1/accounts/{id}": ("list_accounts",),
    "/v1/posts/{id}": ("create_post", "list_posts"),
    "/v1/webhooks/{id}": ("create_webhook", "list_webhooks"),
    "/v1/webhooks/{id}/deliveries/{delivery_id}": ("list_deliveries",),
    "/v1/events/{id}": ("list_events",),
}


def operations_on(item_path: str) -> set[str]:
    """The operations on a resource: under its path, and not under a resource within it."""
    inner = [other for other in RESOURCES if other != item_path and other.startswith(item_path)]
    return {op_id for op_id, op in OPERATIONS.items()
            if op.path.startswith(item_path) and not any(op.path.startswith(i) for i in inner)}


def links_of(operation: Operation) -> dict[str, set[str]]:
    """Status -> the operationIds its links lead to."""
    return {status: {link["operationId"] for link in (response.get("links") or {}).values()}
            for status, response in operation.spec["responses"].items()}


def test_what_creates_or_lists_a_resource_links_to_every_operation_on_it():
    for item_path, sources in RESOURCES.items():
        on_it = operations_on(item_path)
        assert on_it, item_path
        for source in sources:
            operation = OPERATIONS[source]
            linked = links_of(operation)[str(operation.success())]
            assert on_it <= linked, f"{source} {operation.success()} has no link to {sorted(on_it - linked)}"


def test_a_paged_list_links_to_its_next_page():
    paged = [op_id for op_id, op in OPERATIONS.items()
             if any(p.get("$ref", "").endswith("/Cursor") or p.get("name") == "cursor" for p in op.spec.get("parameters", []))]
    assert paged
    for op_id in paged:
        operation = OPERATIONS[op_id]
        nexts = [link for link in operation.spec["responses"][str(operation.success())].get("links", {}).values()
                 if link["operationId"] == op_id]
        assert [link["parameters"]["cursor"] for link in nexts] == ["$response.body#/next_cursor"], op_id


def declared_links():
    for source in OPERATIONS.values():
        for status, response in source.spec["responses"].items():
            for name, link in (response.get("links") or {}).items():
                yield pytest.param(source, int(status), link, id=f"{source.spec['operationId']} {status} {name}")


@dataclass
class Exchange:
    """One request and its answer, as the links' runtime expressions read them."""

    path_params: dict
    answer: object


def pointer(document, path: str):
    for part in filter(None, path.split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


def evaluate(expression, exchange: Exchange):
    """A runtime expression of a link (or a literal, or an object or list holding them)."""
    if isinstance(expression, dict):
        return {key: evaluate(value, exchange) for key, value in expression.items()}
    if isinstance(expression, list):
        return [evaluate(value, exchange) for value in expression]
    if not isinstance(expression, str) or not expression.startswith("$"):
        return expression
    if expression.startswith("$response.body#"):
        return pointer(exchange.answer.json(), expression.removeprefix("$response.body#"))
    if expression.startswith("$request.path."):
        return exchange.path_params[expression.removeprefix("$request.path.")]
    raise AssertionError(f"no reader here for the expression {expression!r}")


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the events of the posts go to a receiver on loopback, over http


@pytest.fixture
def world(client, auth, rt, clock, httpserver):
    """Sandbox accounts on every platform, a webhook on a loopback receiver, two posts whose
    events were delivered to it, and a newer one due tomorrow (it can still be changed or
    cancelled): every list holds two items or more, so a page of one has a next. The
    registrations the examples make (`hooks.example.com`) answer their test pings here."""
    rt.outbound = ExampleEndpoints(rt.outbound)
    httpserver.expect_request("/hook").respond_with_data("ok")
    accounts = {p: connect_sandbox_account(client, auth, p) for p in ("x", "threads", "instagram", "tiktok")}
    clock.advance(seconds=1)  # Pinterest's the newest: the first account listed, whose boards a link reads
    accounts["pinterest"] = connect_sandbox_account(client, auth, "pinterest")
    hook = client.post("/v1/webhooks", headers=auth,
                       json={"url": httpserver.url_for("/hook"), "events": ["post.completed", "post.failed"]})
    assert hook.status_code == 201, hook.text
    for caption in ("one", "two"):
        post = client.post("/v1/upload", headers=auth, json={"caption": caption, "platforms": ["x", "threads"]})
        assert post.status_code == 201, post.text
    run_queue(rt, clock)
    delivery = client.get(f"/v1/webhooks/{hook.json()['id']}/deliveries", headers=auth).json()["data"][0]
    clock.advance(seconds=1)
    later = client.post("/v1/upload", headers=auth, json={
        "caption": "tomorrow", "platforms": ["x"], "scheduled_at": "2026-11-23T10:00:00Z"})
    assert later.status_code == 201, later.text
    return {"accounts": accounts["x"]["id"], "webhooks": hook.json()["id"], "posts": later.json()["id"],
            "deliveries": delivery["id"], "events": client.get("/v1/events", headers=auth).json()["data"][0]["id"]}


def send(client, auth, operation: Operation, path_params: dict, query: dict | None = None, body=None):
    path = operation.path
    for name, value in path_params.items():
        path = path.replace(f"{{{name}}}", str(value))
    return client.request(operation.method.upper(), path, headers=auth, params=query or {}, json=body)


def source_exchange(client, auth, world, source: Operation) -> Exchange:
    """The source's request on the world: its documented body, a real id, pages of one."""
    params = {}
    if "{id}" in source.path:
        params["id"] = world[source.path.split("/")[2]]
    if "{delivery_id}" in source.path:
        params["delivery_id"] = world["deliveries"]
    query = {"limit": 1} if source.spec["operationId"] in ("list_posts", "list_deliveries", "list_events") else {}
    body = source.body_example() if source.spec.get("requestBody") else None
    return Exchange(params, send(client, auth, source, params, query, body))


@pytest.mark.parametrize(("source", "status", "link"), list(declared_links()))
def test_a_declared_link_leads_to_its_target(client, auth, world, source, status, link):
    exchange = source_exchange(client, auth, world, source)
    assert exchange.answer.status_code == status, exchange.answer.text
    target = OPERATIONS[link["operationId"]]
    values = {name: evaluate(expression, exchange) for name, expression in (link.get("parameters") or {}).items()}
    assert None not in values.values(), f"the source's answer left a parameter without a value: {values}"
    in_path = {part[1:-1] for part in target.path.split("/") if part.startswith("{")}
    body = evaluate(link["requestBody"], exchange) if "requestBody" in link else None
    answer = send(client, auth, target, {k: v for k, v in values.items() if k in in_path},
                  {k: v for k, v in values.items() if k not in in_path}, body)
    expected = 404 if source.method == "delete" else target.success()
    assert answer.status_code == expected, answer.text
