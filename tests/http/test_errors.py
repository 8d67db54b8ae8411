"""Every non-2xx answer is the error object (docs/decisions.md#errors)."""
import logging

from fanout import problems
from fanout.spec import load


def assert_error(answer, status, code):
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return body["error"]["message"]


def test_unknown_route_is_not_found(client, auth):
    assert_error(client.get("/v1/nothing-here", headers=auth), 404, "not_found")
    assert_error(client.get("/v2", headers=auth), 404, "not_found")


def test_wrong_method_is_405_with_every_allowed_method(client, auth):
    answer = client.put("/v1/webhooks", headers=auth, json={})
    assert_error(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == "GET, POST"


def test_wrong_method_on_a_templated_path_names_its_methods(client, auth):
    answer = client.post("/v1/webhooks/wh_1", headers=auth, json={})
    assert_error(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == "DELETE, GET, PATCH"


def test_head_on_an_operation_is_405_before_the_key_is_checked_and_counts_nothing(client, auth):
    before = client.get("/v1/usage", headers=auth).json()["requests"]["used"]
    for headers in (auth, {}):
        answer = client.head("/v1/usage", headers=headers)
        assert answer.status_code == 405 and answer.headers["allow"] == "GET"
        assert "ratelimit-policy" not in answer.headers and answer.headers["x-request-id"].startswith("req_")
    assert client.head("/v1/webhooks/wh_1", headers=auth).headers["allow"] == "DELETE, GET, PATCH"
    assert client.get("/v1/usage", headers=auth).json()["requests"]["used"] == before + 1


def test_head_on_a_page_outside_the_api_is_answered(client):
    for path in ("/v1/openapi.json", "/docs", "/"):
        assert client.head(path).status_code == 200, path


def test_malformed_json_is_a_validation_error(client, auth):
    answer = client.post("/v1/webhooks", headers={**auth, "content-type": "application/json"}, content=b'{"url": ')
    assert "JSON" in assert_error(answer, 400, "validation_error")


def test_invalid_utf8_is_a_validation_error(client, auth):
    answer = client.post("/v1/webhooks", headers={**auth, "content-type": "application/json"}, content=b'{"url": "\xff"}')
    assert "UTF-8" in assert_error(answer, 400, "validation_error")


def test_wrong_content_type_is_a_validation_error(client, auth):
    answer = client.post("/v1/webhooks", headers={**auth, "content-type": "text/plain"}, content=b"url=x")
    assert "Content-Type" in assert_error(answer, 400, "validation_error")


def test_form_body_is_a_validation_error(client, auth):
    answer = client.post("/v1/webhooks", headers=auth, data={"url": "https://hooks.example.com"})
    assert_error(answer, 400, "validation_error")


def test_missing_required_field_names_the_field(client, auth):
    message = assert_error(client.post("/v1/webhooks", headers=auth, json={"url": "https://hooks.example.com/x"}), 400, "validation_error")
    assert "events" in message


def test_unknown_query_parameter_is_a_validation_error(client, auth):
    message = assert_error(client.get("/v1/accounts", headers=auth, params={"plaftorm": "x"}), 400, "validation_error")
    assert "plaftorm" in message


def test_bad_query_value_names_the_parameter(client, auth):
    message = assert_error(client.get("/v1/accounts", headers=auth, params={"sandbox": "maybe"}), 400, "validation_error")
    assert "sandbox" in message


def test_every_response_carries_a_request_id(client, auth):
    ok = client.get("/v1/accounts", headers=auth)
    missing = client.get("/v1/nope")
    assert ok.headers["x-request-id"].startswith("req_")
    assert missing.headers["x-request-id"].startswith("req_")
    assert ok.headers["x-request-id"] != missing.headers["x-request-id"]


def test_a_crash_is_500_internal_error_logged_with_the_request_id(client, auth, rt, caplog):
    def broken_resolver(host):
        raise RuntimeError("resolver exploded: secret internals")

    rt.resolve = broken_resolver
    with caplog.at_level(logging.ERROR, logger="fanout.errors"):
        answer = client.post("/v1/webhooks", headers=auth, json={"url": "https://hooks.example.com/x", "events": ["post.failed"]})
    message = assert_error(answer, 500, "internal_error")
    request_id = answer.headers["x-request-id"]
    assert request_id in message
    assert "Traceback" not in answer.text and "exploded" not in answer.text
    [record] = [r for r in caplog.records if r.name == "fanout.errors"]
    assert request_id in record.getMessage()
    assert "exploded" in caplog.text


def test_the_spec_is_served_without_a_key(client):
    answer = client.get("/v1/openapi.json")
    assert answer.status_code == 200
    assert answer.json()["info"]["title"] == "Fanout API"


def concrete_problems(cls=problems.Problem):
    for sub in cls.__subclasses__():
        if "code" in vars(sub):
            yield sub
        yield from concrete_problems(sub)


def test_every_code_the_api_answers_is_documented():
    documented = load()["components"]["schemas"]["ErrorCode"]["enum"]
    answered = [p for p in concrete_problems() if not issubclass(p, problems.CommandFailure)]
    assert sorted(p.code for p in answered) == sorted(documented)
    assert all(400 <= p.status < 600 for p in answered)


def test_an_error_answer_ends_with_a_newline_as_a_success_does(client, auth):
    """So `curl` in a terminal shows either on a line of its own (the README's commands)."""
    refused = client.get("/v1/posts/post_missing", headers=auth)
    listed = client.get("/v1/posts", headers=auth)
    assert (refused.status_code, listed.status_code) == (404, 200)
    assert refused.content.endswith(b"}\n") and listed.content.endswith(b"}\n")
