"""Hostile input is a 4xx, never a 500, and the same on SQLite and PostgreSQL: deep
nesting, huge or non-finite numbers, lone surrogates and NUL in JSON strings, path ids
that cannot be ids, JSON bodies without a Content-Type.
"""
from __future__ import annotations

import json

import pytest

from fanout.models import Post, Webhook, db

from .conftest import IMAGE, assert_error

JSON = {"content-type": "application/json"}


def post_raw(client, auth, path: str, body: str):
    """POST `body` exactly as written: JSON escapes such as \\ud800 reach the server unparsed."""
    return client.post(path, headers={**auth, **JSON}, content=body.encode())


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# --- nesting -----------------------------------------------------------------------------


def test_nesting_deeper_than_64_is_400(client, auth):
    for depth in (65, 1000, 100_000):
        answer = post_raw(client, auth, "/v1/upload", f'{{"caption": {nested(depth)}, "platforms": ["x"]}}')
        assert "deeper than 64" in assert_error(answer, 400, "validation_error"), depth


def test_nesting_of_64_is_validated_as_usual(client, auth):
    answer = post_raw(client, auth, "/v1/upload", f'{{"caption": {nested(63)}, "platforms": ["x"]}}')
    assert assert_error(answer, 400, "validation_error") == "caption: got an array; send a string"


# --- numbers -----------------------------------------------------------------------------


def test_an_integer_outside_signed_64_bits_is_400(client, auth):
    for number in (str(2**63), str(-(2**63) - 1), "9" * 5000, "-" + "9" * 5000):
        answer = post_raw(client, auth, "/v1/upload", f'{{"caption": {number}, "platforms": ["x"]}}')
        assert "64 bits" in assert_error(answer, 400, "validation_error"), number[:30]


def test_an_integer_inside_signed_64_bits_is_validated_as_usual(client, auth):
    for number in (str(2**63 - 1), str(-(2**63))):
        answer = post_raw(client, auth, "/v1/upload", f'{{"caption": {number}, "platforms": ["x"]}}')
        assert assert_error(answer, 400, "validation_error") == f"caption: got {number}; send a string", number


def test_a_number_json_cannot_hold_is_400(client, auth):
    for number in ("NaN", "Infinity", "-Infinity", "1e999"):
        answer = post_raw(client, auth, "/v1/upload", f'{{"caption": {number}, "platforms": ["x"]}}')
        message = assert_error(answer, 400, "validation_error")
        assert "finite" in message or "not JSON" in message, number


# --- strings: lone surrogates and NUL ----------------------------------------------------

# Where a string reaches the database, a log or a page. `{s}` is the JSON escape under test.
STRING_PLACES = {
    "caption": ("/v1/upload", '{{"caption": "hi {s}", "platforms": ["x"]}}'),
    "an account id": ("/v1/upload", '{{"caption": "hi", "account_ids": ["acc_{s}"]}}'),
    "accounts": ("/v1/upload", '{{"caption": "hi", "platforms": ["x"], "accounts": {{"x": "acc_{s}"}}}}'),
    "a media url": ("/v1/upload", '{{"caption": "hi", "platforms": ["x"], "media": [{{"url": "https://cdn.example.com/{s}.jpg", "type": "image"}}]}}'),
    "a field name": ("/v1/upload", '{{"caption": "hi", "platforms": ["x"], "{s}": 1}}'),
    "redirect_url": ("/v1/accounts/x/connect", '{{"redirect_url": "https://app.example.com/{s}"}}'),
    "a webhook url": ("/v1/webhooks", '{{"url": "https://hooks.example.com/{s}", "events": ["post.failed"]}}'),
}


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\udc00\\ud800"])
def test_a_lone_surrogate_in_any_string_is_400(client, auth, account, escape):
    for place, (path, template) in STRING_PLACES.items():
        answer = post_raw(client, auth, path, template.format(s=escape))
        assert "surrogate" in assert_error(answer, 400, "validation_error"), place


def test_a_nul_in_any_string_is_400(client, auth, account):
    for place, (path, template) in STRING_PLACES.items():
        answer = post_raw(client, auth, path, template.format(s="\\u0000"))
        assert "NUL" in assert_error(answer, 400, "validation_error"), place


def test_a_refused_string_stores_nothing(client, auth, account):
    post_raw(client, auth, "/v1/upload", '{"caption": "a\\u0000b", "platforms": ["x"]}')
    post_raw(client, auth, "/v1/webhooks", '{"url": "https://hooks.example.com/\\ud800", "events": ["post.failed"]}')
    with db.connection_context():
        assert Post.select().count() == 0 and Webhook.select().count() == 0


def test_a_surrogate_pair_is_a_character_like_any_other(client, auth, account):
    answer = post_raw(client, auth, "/v1/upload", '{"caption": "hi \\ud83d\\ude00", "platforms": ["x"], "media": [{"url": "https://cdn.example.com/\\ud83d\\ude00.jpg", "type": "image"}]}')
    assert answer.status_code == 201, answer.text
    assert answer.json()["caption"] == "hi \U0001F600"


# --- path ids ----------------------------------------------------------------------------

ID_OPERATIONS = [
    ("GET", "/v1/posts/{}"),
    ("DELETE", "/v1/accounts/{}"),
    ("GET", "/v1/webhooks/{}"),
    ("DELETE", "/v1/webhooks/{}"),
    ("GET", "/v1/webhooks/{}/deliveries"),
]
NOT_IDS = ["post_%00", "%00", "wh_01JDQ3M5V3A4Z5T2N4XKQ8W9R%00", "acc_%ED%A0%80", "x" * 300]


@pytest.mark.parametrize("method, path", ID_OPERATIONS)
def test_a_path_id_that_cannot_be_an_id_is_404(client, auth, method, path):
    for odd in NOT_IDS:
        assert_error(client.request(method, path.format(odd), headers=auth), 404, "not_found")


@pytest.fixture
def queries(monkeypatch):
    """The SQL statements the database runs from now on."""
    seen: list[str] = []
    database = db.obj
    run = database.execute_sql

    def recording(sql, params=None, *args, **kwargs):
        seen.append(sql)
        return run(sql, params, *args, **kwargs)

    monkeypatch.setattr(database, "execute_sql", recording)
    return seen


@pytest.mark.parametrize("method, path, table", [
    ("GET", "/v1/posts/{}", '"post"'), ("DELETE", "/v1/accounts/{}", '"account"'),
    ("GET", "/v1/webhooks/{}", '"webhook"'), ("GET", "/v1/webhooks/{}/deliveries", '"webhook"'),
])
def test_a_path_id_that_cannot_be_an_id_is_not_looked_up(client, auth, queries, method, path, table):
    assert_error(client.request(method, path.format("post_%00"), headers=auth), 404, "not_found")
    assert not [sql for sql in queries if table in sql]


def test_the_sandbox_page_of_something_that_cannot_be_a_target_is_404(client):
    for odd in ("tgt_%00", "%00", "tgt_" + "A" * 27):
        answer = client.get(f"/sandbox/x/{odd}")
        assert answer.status_code == 404 and "No such sandbox post" in answer.text


def test_the_sandbox_page_of_something_that_cannot_be_a_platform_is_404_without_a_query(client, queries):
    for odd in ("%00", "x%00", "myspace"):
        answer = client.get(f"/sandbox/{odd}/tgt_{'A' * 26}")
        assert answer.status_code == 404 and "No such sandbox post" in answer.text
    assert not [sql for sql in queries if '"target"' in sql]


# --- query strings and headers that reach the database -----------------------------------


def test_nul_in_a_query_value_is_400(client, auth):
    for params in ({"cursor": "\x00"}, {"status": "\x00"}, {"platform": "x\x00"}, {"limit": "1\x00"}):
        assert_error(client.get("/v1/posts", headers=auth, params=params), 400, "validation_error")


def test_an_idempotency_key_outside_printable_ascii_is_400(client, auth, account):
    for key in ("\x01", "a\x7f", "é".encode()):
        answer = client.post("/v1/upload", headers={**auth, "Idempotency-Key": key}, json={"caption": "hi", "platforms": ["x"]})
        assert "Idempotency-Key" in assert_error(answer, 400, "validation_error"), key


# --- bodies without a Content-Type (item 5) ----------------------------------------------


def test_a_json_body_without_content_type_is_400_saying_what_to_send(client, auth, account):
    for path, body in (
        ("/v1/upload", {"caption": "hi", "platforms": ["x"], "media": [IMAGE]}),
        ("/v1/webhooks", {"url": "https://hooks.example.com/x", "events": ["post.failed"]}),
        ("/v1/accounts/x/connect", {"redirect_url": "https://app.example.com/done"}),
    ):
        answer = client.post(path, headers=auth, content=json.dumps(body).encode())
        assert "Content-Type: application/json" in assert_error(answer, 400, "validation_error"), path


def test_no_body_and_no_content_type_still_starts_a_connect_flow(client, auth):
    answer = client.post("/v1/accounts/x/connect", headers=auth)
    assert answer.status_code == 200, answer.text
