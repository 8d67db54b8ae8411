"""fanout/http/validation.py asks jsonschema_rs first and takes its yes as final: that is sound
only while jsonschema_rs accepts nothing the jsonschema validator Connexion's rules use
refuses. Checked on every schema a request is validated against in openapi.yaml (each JSON
body and each parameter), with the spec's own examples, values of every JSON type, and each
example with each property replaced by those values or left out."""
from __future__ import annotations

import copy

import pytest
from connexion.json_schema import Draft4RequestValidator, resolve_refs
from jsonschema import Draft4Validator

from fanout import spec as _spec
from fanout.http.validation import CheckedTwice

VALUES = [
    None, True, False, 0, 1, -1, 2**63 - 1, 1.0, 1.5, -0.5, "", " ", "x", "a" * 10_001, "\n", "line\n",
    "https://cdn.invalid/a.jpg", "https://cdn.invalid/a.jpg\n", "http://127.0.0.1/a.jpg",
    "2026-11-26T10:00:00Z", "2026-11-26", "post_01M8BJS8NYMCE47NWA5NWR5751", "x", "instagram", "threads",
    "tiktok", "bluesky", "linkedin", "Bearer x", "\u00e9", "\u202e", [], [1], ["x"], ["x", "x"], ["x", "y"],
    [None], {}, {"x": 1}, {"url": "https://cdn.invalid/a.jpg", "type": "image"},
]


def _request_schemas() -> list[tuple[str, dict, type]]:
    resolved = resolve_refs(copy.deepcopy(_spec.load()))
    found = []
    for path, item in resolved["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            for parameter in [*item.get("parameters", []), *op.get("parameters", [])]:
                found.append((f"{method.upper()} {path} {parameter['in']} {parameter['name']}",
                              parameter.get("schema", parameter), Draft4Validator))
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                found.append((f"{method.upper()} {path} body", body["schema"], Draft4RequestValidator))
    return found


def _examples(schema) -> list:
    """The examples written anywhere in `schema`."""
    found = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "example":
                found.append(value)
            elif key == "examples" and isinstance(value, list):
                found.extend(value)
            else:
                found.extend(_examples(value))
    elif isinstance(schema, list):
        for item in schema:
            found.extend(_examples(item))
    return found


def _instances(schema: dict) -> list:
    instances = list(VALUES)
    for example in _examples(schema):
        instances.append(example)
        if isinstance(example, dict):
            for key in example:
                instances.append({k: v for k, v in example.items() if k != key})
                instances.extend({**example, key: value} for value in VALUES)
            for key in (schema.get("properties") or {}):
                instances.extend({**example, key: value} for value in VALUES)
    return instances


SCHEMAS = _request_schemas()


def test_every_body_and_parameter_of_the_spec_is_checked_here():
    assert any(name == "POST /v1/upload body" for name, _, _ in SCHEMAS)
    assert any(name == "GET /v1/posts/{id} path id" for name, _, _ in SCHEMAS)


@pytest.mark.parametrize("name, schema, validator", SCHEMAS, ids=[name for name, _, _ in SCHEMAS])
def test_the_compiled_engine_accepts_nothing_jsonschema_refuses(name, schema, validator):
    slow = validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)
    checked = CheckedTwice(schema, slow)
    assert checked.fast is not None, f"{name}: jsonschema_rs cannot compile the schema"
    for instance in _instances(schema):
        if checked.fast.is_valid(instance):
            assert slow.is_valid(instance), f"{name}: jsonschema_rs took {instance!r}, which jsonschema refuses"
        assert checked.is_valid(instance) == slow.is_valid(instance), f"{name}: {instance!r}"
