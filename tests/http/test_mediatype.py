"""A request body's media type is read case-insensitively, its parameters ignored (fanout/http/mediatype.py).

Every operation that takes a JSON body (found in openapi.yaml) answers its documented request
example the same way whatever the spelling of `application/json`; a body sent under any
spelling is validated against the schema; any other media type is 400 `validation_error`
(openapi.yaml, "Errors").
"""
from __future__ import annotations

import json

import pytest

from fanout.spec import load
from tests.conftest import assert_error

SPEC = load()


def json_operations():
    """(operationId, method, path, its first request example, its success status) per JSON body."""
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            content = (operation.get("requestBody") or {}).get("content", {}) if isinstance(operation, dict) else {}
            if "application/json" not in content:
                continue
            media = content["application/json"]
            example = media["example"] if "example" in media else next(iter(media["examples"].values()))["value"]
            success = min(int(status) for status in operation["responses"] if status.startswith("2"))
            yield pytest.param(method.upper(), path.replace("{platform}", "x"), example, success, id=operation["operationId"])


OPERATIONS = list(json_operations())

JSON_SPELLINGS = [
    "APPLICATION/JSON",
    "Application/Json",
    "application/JSON; charset=UTF-8",
    "application/json;charset=utf-8",
    'Application/Json ; Charset="UTF-8"',
    "application/json; charset=ISO-8859-1",  # JSON is UTF-8 whatever it declares (RFC 8259)
    " application/json\t",
]

NOT_JSON = [
    "text/plain",
    "TEXT/PLAIN; charset=utf-8",
    "application/xml",
    "application/vnd.api+json",
    "APPLICATION/MERGE-PATCH+JSON",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
    "application",
    "application/json/extra",
    "",
]


def send(client, auth, method, path, body: bytes, content_type: str):
    return client.request(method, path, headers={**auth, "Content-Type": content_type}, content=body)


@pytest.fixture
def webhook(client, auth) -> str:
    """The id of a registration, for the operations on one (`{id}` in their paths)."""
    answer = client.post("/v1/webhooks", headers=auth, json={"url": "https://hooks.example.com/x", "events": ["post.failed"]})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def test_every_json_operation_is_found_in_the_spec():
    assert {p.id for p in OPERATIONS} == {"start_connect", "create_post", "preflight_post", "update_post",
                                          "create_webhook", "update_webhook", "rotate_webhook_secret"}


def a_post_to_change(client, auth) -> str:
    """A post due tomorrow, which PATCH may still change."""
    answer = client.post("/v1/upload", headers=auth, json={
        "caption": "later", "platforms": ["x"], "scheduled_at": "2026-11-23T10:00:00Z"})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


@pytest.mark.parametrize("content_type", JSON_SPELLINGS)
@pytest.mark.parametrize(("method", "path", "example", "success"), OPERATIONS)
def test_any_spelling_of_json_is_json(client, auth, accounts, webhook, method, path, example, success, content_type):
    if "{id}" in path:
        path = path.replace("{id}", a_post_to_change(client, auth) if path.startswith("/v1/posts/") else webhook)
    answer = send(client, auth, method, path, json.dumps(example).encode(), content_type)
    assert answer.status_code == success, answer.text


@pytest.mark.parametrize("content_type", ["APPLICATION/JSON", "Application/Json; charset=UTF-8"])
@pytest.mark.parametrize(("method", "path", "example", "success"), OPERATIONS)
def test_a_body_under_any_spelling_is_validated(client, auth, webhook, method, path, example, success, content_type):
    body = {**example, "not_in_the_schema": 1}
    answer = send(client, auth, method, path.replace("{id}", webhook), json.dumps(body).encode(), content_type)
    assert "not_in_the_schema" in assert_error(answer, 400, "validation_error")


@pytest.mark.parametrize("content_type", NOT_JSON)
@pytest.mark.parametrize(("method", "path", "example", "success"), OPERATIONS)
def test_a_body_of_another_media_type_is_a_validation_error(client, auth, webhook, method, path, example, success,
                                                           content_type):
    answer = send(client, auth, method, path.replace("{id}", webhook), json.dumps(example).encode(), content_type)
    assert "Content-Type" in assert_error(answer, 400, "validation_error")


def test_a_declared_charset_does_not_change_how_the_body_is_read(client, auth, account):
    # The bytes of a lone surrogate in UTF-8: Latin-1 text to a reader that honoured the
    # charset, and not UTF-8 to one that did not. One reader for all: it is not UTF-8.
    body = b'{"caption": "a\xed\xa0\x80b", "platforms": ["x"]}'
    answer = send(client, auth, "POST", "/v1/upload", body, "application/json;charset=latin-1")
    assert "UTF-8" in assert_error(answer, 400, "validation_error")
