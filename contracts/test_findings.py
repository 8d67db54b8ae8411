"""Regressions for what Schemathesis found, pinned as plain examples.

Fuzzing finds these again only when the generator happens to draw the value; these
tests draw it every time.
"""
from __future__ import annotations

import pytest


def error_of(answer, status: int) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    return body["error"]


# An optional JSON body may be left out; sent as `null`, it broke its schema but was taken
# for a missing body and accepted (ST201).
def test_an_optional_body_sent_as_null_is_a_validation_error(client, auth):
    answer = client.post("/v1/accounts/x/connect", headers={**auth, "content-type": "application/json"}, content=b"null")
    assert error_of(answer, 400)["code"] == "validation_error"


def test_an_optional_body_may_still_be_left_out(client, auth):
    assert client.post("/v1/accounts/x/connect", headers=auth).status_code == 200
    assert client.post("/v1/accounts/x/connect", headers=auth, json={}).status_code == 200


# `redirect_url` was any string in the spec while the handler refused non-URLs (ST202);
# the spec now states the shape, so a schema-valid value is accepted and the rest are 400
# before the handler runs (the handler checks again, for callers that bypass the spec).
@pytest.mark.parametrize("url", ["", "app.example.com/cb", "ftp://app.example.com/", "http://[", "http://user@app.example.com/", "https://:80/"])
def test_a_redirect_url_of_the_wrong_shape_is_a_validation_error(client, auth, url):
    answer = client.post("/v1/accounts/x/connect", headers=auth, json={"redirect_url": url})
    error = error_of(answer, 400)
    assert error["code"] == "validation_error" and "redirect_url" in error["message"]


@pytest.mark.parametrize("url", ["https://app.example.com/fanout/connected", "HTTPS://127.0.0.1:3000/cb?x=1#done", "https://app.example.com"])
def test_a_redirect_url_of_the_right_shape_is_accepted(client, auth, url):
    assert client.post("/v1/accounts/x/connect", headers=auth, json={"redirect_url": url}).status_code == 200


# Starlette cannot route a path segment holding a line break (its mount pattern stops at
# one) or an encoded slash; it answered 404 `no route` even for {platform}, which
# documents no 404 (ST103). Such requests now get the operation's own answer.
@pytest.mark.parametrize("platform", ["%0Ax", "x%0A", "%2F"])
def test_an_unroutable_platform_is_a_validation_error(client, auth, platform):
    error = error_of(client.post(f"/v1/accounts/{platform}/connect", headers=auth, json={}), 400)
    assert error["code"] == "validation_error" and "platform" in error["message"]


@pytest.mark.parametrize(("method", "path"), [("DELETE", "/v1/accounts/%0A"), ("GET", "/v1/webhooks/a%0A"), ("DELETE", "/v1/webhooks/a%2Fb")])
def test_an_unroutable_id_names_nothing(client, auth, method, path):
    assert error_of(client.request(method, path, headers=auth), 404)["code"] == "not_found"


def test_an_unroutable_path_still_answers_405_with_its_methods(client, auth):
    answer = client.put("/v1/webhooks/%0A", headers=auth, json={})
    assert error_of(answer, 405)["code"] == "method_not_allowed"
    assert answer.headers["allow"] == "DELETE, GET, PATCH"


def test_a_wrong_method_outside_the_spec_keeps_its_own_allow(client):
    answer = client.post("/v1/openapi.json")
    assert error_of(answer, 405)["code"] == "method_not_allowed"
    assert "GET" in answer.headers["allow"]


def test_401_carries_www_authenticate_bearer(client):
    # Now a required header of every documented 401, so Schemathesis checks it too.
    answer = client.get("/v1/webhooks")
    assert error_of(answer, 401)["code"] == "missing_api_key"
    assert answer.headers["www-authenticate"] == "Bearer"
