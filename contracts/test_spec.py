"""openapi.yaml is valid, complete about errors, and wired to the code.

Connexion accepts specs that openapi-spec-validator rejects (an unresolved path parameter,
duplicate operationIds), renders Starlette's routing errors outside its own response
validation, and routes in spec order: these tests hold the line Connexion does not.
"""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest
import yaml
from connexion.utils import get_function_from_name
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from fanout.outbound.guard import url_rule
from fanout.spec import published

SPEC_PATH = Path(__file__).resolve().parent.parent / "openapi.yaml"
SPEC = yaml.safe_load(SPEC_PATH.read_text())
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
ERROR_REF = "#/components/schemas/Error"
SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def resolve(node):
    """`node` with a local `$ref` followed (repeatedly)."""
    while isinstance(node, dict) and "$ref" in node:
        target = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def operations():
    for path, item in SPEC["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item, item[method]


OPERATIONS = list(operations())
IDS = [f"{method.upper()} {path}" for path, method, _, _ in OPERATIONS]

# The monitoring operations and their security; every other operation needs the API key.
MONITORING = {
    "/healthz": [],
    "/readyz": [],
    "/metrics": [{"metricsToken": []}, {}],  # FANOUT_METRICS_TOKEN, when the server sets one
}


def security_of(operation: dict) -> list:
    return operation.get("security", SPEC["security"])


def path_params(item: dict, operation: dict) -> list[dict]:
    params = [resolve(p) for p in [*(item.get("parameters") or []), *(operation.get("parameters") or [])]]
    return [p for p in params if p["in"] == "path"]


def test_the_spec_is_valid_openapi():
    spec, base_uri = read_from_filename(str(SPEC_PATH))
    validate(spec, base_uri=base_uri)
    # Connexion validates bodies with Draft 4 + OAS 3.0 (docs/architecture.md#the-path-of-a-request).
    assert spec["openapi"].startswith("3.0."), "Connexion validates bodies with Draft 4 + OAS 3.0"


def test_the_app_boots_with_every_operation_and_the_auth_function_resolved(app, client, auth):
    # The client fixture has run the app's startup, which builds Connexion's middleware
    # stack and resolves every operationId: an unresolvable one would have raised here.
    for path, method, _, operation in OPERATIONS:
        controller = operation.get("x-openapi-router-controller")
        name = f"{controller}.{operation['operationId']}" if controller else operation["operationId"]
        assert callable(get_function_from_name(name)), f"{method.upper()} {path}: {name} is not callable"
    for scheme in SPEC["components"]["securitySchemes"].values():
        authenticate = get_function_from_name(scheme["x-bearerInfoFunc"])
        # Connexion calls security functions on the event loop: a sync one doing a database
        # lookup would block every request of the worker (docs/architecture.md#the-path-of-a-request).
        assert inspect.iscoroutinefunction(authenticate)
    # And it is the function that actually guards the API.
    assert client.get("/v1/accounts", headers=auth).status_code == 200
    assert client.get("/v1/accounts", headers={"Authorization": "Bearer svc_sandbox_nope"}).status_code == 401


def test_the_served_spec_is_this_file_without_server_only_extensions(client):
    served = client.get("/v1/openapi.json").json()
    expected = published(SPEC, "http://testserver")
    assert served == expected
    assert served["components"]["schemas"] and "$ref" in json.dumps(served["paths"])
    assert "x-openapi-router-controller" not in json.dumps(served)
    assert "x-bearerInfoFunc" not in json.dumps(served)


def test_the_served_spec_has_the_production_url_rule(client):
    served = client.get("/v1/openapi.json").json()["components"]["schemas"]["OutboundUrl"]
    assert served["pattern"] == SPEC["components"]["schemas"]["OutboundUrl"]["pattern"]
    assert "x-insecure-pattern" not in served


@pytest.mark.parametrize("insecure_urls", [True])
def test_an_insecure_server_validates_and_serves_the_relaxed_url_rule(client, auth):
    relaxed = SPEC["components"]["schemas"]["OutboundUrl"]["x-insecure-pattern"]
    for served in (client.get("/v1/openapi.json").json(), yaml.safe_load(client.get("/v1/openapi.yaml").text)):
        written = SPEC["components"]["schemas"]["OutboundUrl"]
        assert served["components"]["schemas"]["OutboundUrl"] == {
            **{k: v for k, v in written.items() if k != "x-insecure-pattern"},
            "pattern": relaxed,
            # The rule in force, in words (fanout/outbound/guard.py `url_rule`), then the rest.
            "description": "\n\n".join([f"Must be {url_rule(insecure=True)}.", written["description"].split("\n\n", 1)[1]]),
        }
    hook = {"url": "http://127.0.0.1:9000/hook", "events": ["post.completed"]}
    assert client.post("/v1/webhooks", headers=auth, json=hook).status_code == 201


def test_the_url_patterns_take_only_what_the_server_takes():
    """A URL either pattern matches passes the shape checks of its mode (fanout/outbound/guard.py):
    schema-valid data is not refused for its shape. (The pattern is narrower in places: no
    IPv6 literal, an ASCII host.)"""
    from fanout.outbound.guard import parse_url

    schema = SPEC["components"]["schemas"]["OutboundUrl"]
    cases = [
        ("https://hooks.example.com/fanout?a=b#c", True, True),
        ("HTTPS://hooks.example.com:8443", True, True),
        # An IPv4 literal: the shape is judged here, the address when a request is made.
        ("https://127.0.0.2:443/x", True, True),
        ("http://127.0.0.1:9000/hook", False, True),
        ("https://hooks.example.com:22/x", False, True),
        ("http://127.0.0.1:65536/hook", False, False),
        ("https://user:pw@hooks.example.com/x", False, False),
        ("https://[::1]/x", False, False),
        ("https://hooks.example.com/a b", False, False),
        ("https://hooks.example.com/x\n", False, False),
        ("https://hooks.example.com/ä?q=😀", True, True),
        ("https://hooks.example.com/a\u00a0b", False, False),
        ("https://hooks.example.com/a\\b", False, False),
        ("https:///x", False, False),
        ("ftp://hooks.example.com/x", False, False),
    ]
    for url, secure, insecure in cases:
        for pattern, insecure_mode, expected in ((schema["pattern"], False, secure), (schema["x-insecure-pattern"], True, insecure)):
            assert bool(re.search(pattern, url)) is expected, (url, insecure_mode)
            if expected:
                parse_url(url, insecure=insecure_mode)


def test_the_redirect_url_patterns_take_only_what_the_server_takes():
    """Either pattern of a connect flow's `redirect_url` matches only what
    `parse_redirect_url` takes in its mode: https anywhere; http to loopback when insecure."""
    from fanout.outbound.guard import UnsafeURL, parse_redirect_url

    schema = SPEC["components"]["schemas"]["ConnectRequest"]["properties"]["redirect_url"]
    cases = [
        ("https://app.example.com/fanout/connected?a=b#c", True, True),
        ("HTTPS://127.0.0.1:3000/cb", True, True),
        ("https://intranet.example.com:65535/x", True, True),
        ("http://app.example.com/cb", False, False),
        ("http://127.0.0.1:3000/cb?x=1#done", False, True),
        ("HTTP://LOCALHOST/cb", False, True),
        ("http://127.255.255.254:8080", False, True),
        ("http://127.0.0.256/cb", False, False),
        ("http://127.0.0.1.example.com/cb", False, False),
        ("http://localhost.example.com/cb", False, False),
        ("http://2130706433/cb", False, False),  # 127.0.0.1 as one number: only dotted loopback is taken
        ("https://app.example.com:65536/x", False, False),
        ("https://user@app.example.com/x", False, False),
        ("https://[::1]/x", False, False),
        ("https://app.example.com/x\n", False, False),
        ("https://app.example.com/a\tb", False, False),
        ("ftp://app.example.com/x", False, False),
        ("javascript:alert(1)", False, False),
    ]
    for url, secure, insecure in cases:
        for pattern, insecure_mode, expected in ((schema["pattern"], False, secure), (schema["x-insecure-pattern"], True, insecure)):
            assert bool(re.search(pattern, url)) is expected, (url, insecure_mode)
            if expected:
                parse_redirect_url(url, insecure=insecure_mode)
            elif "[" not in url:  # the patterns take no IPv6 literal; the rule has no need to refuse one
                with pytest.raises(UnsafeURL):
                    parse_redirect_url(url, insecure=insecure_mode)


def test_the_served_spec_names_this_deployment_first_then_the_relative_server(client):
    servers = client.get("/v1/openapi.json").json()["servers"]
    assert [s["url"] for s in servers] == ["http://testserver", "/"]


def test_the_yaml_document_is_the_json_one(client):
    as_yaml = client.get("/v1/openapi.yaml")
    assert as_yaml.headers["content-type"].startswith("application/yaml")
    assert yaml.safe_load(as_yaml.text) == client.get("/v1/openapi.json").json()


@pytest.mark.parametrize(("path", "method", "item", "operation"), OPERATIONS, ids=IDS)
def test_every_operation_documents_401_and_500_as_the_error_object(path, method, item, operation):
    responses = operation["responses"]
    assert "500" in responses
    if security_of(operation) == []:
        assert "401" not in responses, "an operation that takes no credential never answers 401"
        return
    assert "401" in responses
    unauthorized = resolve(responses["401"])
    assert "WWW-Authenticate" in unauthorized.get("headers", {}), "401 carries WWW-Authenticate: Bearer"


@pytest.mark.parametrize(("path", "method", "item", "operation"), OPERATIONS, ids=IDS)
def test_every_non_2xx_response_is_the_error_object(path, method, item, operation):
    for status, response in operation["responses"].items():
        if str(status).startswith("2"):
            continue
        content = resolve(response).get("content") or {}
        assert list(content) == ["application/json"], f"{status}: only application/json"
        schema = content["application/json"]["schema"]
        # The error object itself, or one built on it (503 not_ready adds the readiness report).
        extends = {"$ref": ERROR_REF} in resolve(schema).get("allOf", [])
        assert schema == {"$ref": ERROR_REF} or extends, f"{status}: not the Error schema"


def enums(node, where: tuple = ()):
    """(key path, values) of every `enum` outside a `not` (a rule excluding values, not a type)."""
    if isinstance(node, dict):
        if "enum" in node:
            yield where, node["enum"]
        for key, value in node.items():
            if key != "not":
                yield from enums(value, (*where, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from enums(value, (*where, i))


def test_every_enum_is_a_named_component():
    """Generated clients make one type of each named enum; an inline one is a type per use."""
    for where, values in enums(SPEC):
        if values == [None]:
            continue  # the null of a nullable reference (Target.error_code)
        named_schema = where[:2] == ("components", "schemas") and len(where) == 3
        header = where[:2] == ("components", "headers") and where[3:] == ("schema",)
        assert named_schema or header, where


@pytest.mark.parametrize(("path", "method", "item", "operation"), OPERATIONS, ids=IDS)
def test_every_response_declares_its_request_id(path, method, item, operation):
    for status, response in operation["responses"].items():
        headers = resolve(response).get("headers") or {}
        assert headers.get("X-Request-Id") == {"$ref": "#/components/headers/X-Request-Id"}, status
    assert SPEC["components"]["headers"]["X-Request-Id"]["required"] is True


# Answered before the request is counted, so without RateLimit headers: no key (401), a head
# too large to read (431). Every other answer may come after the counter.
UNCOUNTED = {"401", "431"}
# Answered only after the counter, so RateLimit-Policy is always there.
COUNTED = {"403", "409", "422", "429"}


@pytest.mark.parametrize(("path", "method", "item", "operation"), OPERATIONS, ids=IDS)
def test_every_answer_declares_the_rate_limit_headers_it_may_carry(path, method, item, operation):
    for status, response in operation["responses"].items():
        headers = {name: resolve(header) for name, header in (resolve(response).get("headers") or {}).items()}
        if path in MONITORING:  # never counted: no answer of theirs requires the headers
            assert not [name for name in ("RateLimit", "RateLimit-Policy") if headers.get(name, {}).get("required")]
            continue
        if status in UNCOUNTED:
            assert not {"RateLimit", "RateLimit-Policy"} & set(headers), status
            continue
        assert {"RateLimit", "RateLimit-Policy"} <= set(headers), status
        always = status.startswith("2") or status in COUNTED
        assert headers["RateLimit-Policy"].get("required", False) is always, status
        assert headers["RateLimit"].get("required", False) is (status == "429"), status


@pytest.mark.parametrize(("path", "method", "item", "operation"), OPERATIONS, ids=IDS)
def test_204_declares_no_body(path, method, item, operation):
    if "204" in operation["responses"]:
        assert "content" not in resolve(operation["responses"]["204"])


def has_id_in_path(item: dict, operation: dict) -> bool:
    # An enum path parameter ({platform}) has no "no such resource" case: a value outside
    # the enum is 400 validation_error.
    return any("enum" not in resolve(p.get("schema", {})) for p in path_params(item, operation))


WITH_IDS = [(path, method, item, operation) for path, method, item, operation in OPERATIONS if has_id_in_path(item, operation)]


@pytest.mark.parametrize(("path", "method", "item", "operation"), WITH_IDS, ids=[f"{m.upper()} {p}" for p, m, _, _ in WITH_IDS])
def test_every_operation_with_an_id_in_its_path_documents_404(path, method, item, operation):
    assert "404" in operation["responses"]


def test_path_templates_and_path_parameters_agree():
    for path, method, item, operation in OPERATIONS:
        in_template = set(re.findall(r"\{([^}]+)\}", path))
        declared = {p["name"] for p in path_params(item, operation)}
        assert in_template == declared, f"{method.upper()} {path}"
        for param in path_params(item, operation):
            assert param.get("required") is True


def _shadows(earlier: str, later: str) -> bool:
    """Whether every request path that `later` routes would be routed by `earlier` first."""
    a, b = earlier.strip("/").split("/"), later.strip("/").split("/")
    if len(a) != len(b) or a == b:
        return False
    return all(x == y or x.startswith("{") for x, y in zip(a, b))


def test_static_paths_come_before_templated_siblings():
    # Connexion 3 registers routes in spec order and Starlette takes the first match, so
    # /things/{id} declared before /things/export would swallow it.
    paths = list(SPEC["paths"])
    for i, earlier in enumerate(paths):
        for later in paths[i + 1 :]:
            assert not _shadows(earlier, later), f"{earlier} is declared before {later} and would route it"


def test_shadowing_detection_itself():
    assert _shadows("/webhooks/{id}", "/webhooks/export")
    assert not _shadows("/webhooks/export", "/webhooks/{id}")
    assert not _shadows("/webhooks/{id}", "/webhooks/{id}/deliveries")


def test_operation_ids_are_unique_snake_case_and_tagged():
    declared_tags = {tag["name"] for tag in SPEC.get("tags", [])}
    seen = set()
    for path, method, _, operation in OPERATIONS:
        op_id = operation.get("operationId")
        assert op_id and SNAKE_CASE.match(op_id), f"{method.upper()} {path}: operationId {op_id!r}"
        assert op_id not in seen, f"duplicate operationId {op_id}"
        seen.add(op_id)
        assert operation.get("tags"), f"{op_id} has no tag"
        assert set(operation["tags"]) <= declared_tags, f"{op_id}: undeclared tag"


def test_every_link_names_an_operation_and_its_parameters():
    by_id = {operation["operationId"]: (item, operation) for _, _, item, operation in OPERATIONS}
    for path, method, _, operation in OPERATIONS:
        for status, response in operation["responses"].items():
            for name, link in (resolve(response).get("links") or {}).items():
                where = f"{method.upper()} {path} {status} link {name}"
                assert link["operationId"] in by_id, where
                item, target = by_id[link["operationId"]]
                names = {resolve(p)["name"] for p in [*(item.get("parameters") or []), *(target.get("parameters") or [])]}
                assert set(link.get("parameters", {})) <= names, where


def test_every_operation_requires_the_bearer_key_but_monitoring():
    assert SPEC["security"] == [{"bearerAuth": []}]
    for path, method, _, operation in OPERATIONS:
        expected = MONITORING.get(path, SPEC["security"])
        assert security_of(operation) == expected, f"{method.upper()} {path}"
        assert (operation["tags"] == ["monitoring"]) == (path in MONITORING), f"{method.upper()} {path}"
