"""Request limits: bodies over FANOUT_MAX_BODY_BYTES are 413 without being
read whole, request heads over 64 KiB are 431 without being buffered whole, and no error
message quotes more than 200 characters of what the client sent.

What the HTTP server does (reading a declared or chunked body, parsing the head) is tested
over real HTTP against a `fanout api` process; the rest in process.
"""
from __future__ import annotations

import datetime as dt
import http.client
import json
import re
import socket
from urllib.parse import urlsplit

import pytest

from fanout.settings import Settings, SettingsError

from ..conftest import assert_error, bearer, connect_sandbox_account

MIB = 1024 * 1024


def exchange(base_url: str, head: bytes, body_parts=(), timeout: float = 10) -> tuple[int, dict, bytes]:
    """Send `head` and then each of `body_parts` on a raw socket, and read one response.

    The socket stays open for writing: the server must answer without waiting for more.
    """
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(head)
        for part in body_parts:
            sock.sendall(part)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def request_head(method: str, path: str, headers: dict) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def error_of(body: bytes) -> dict:
    return json.loads(body)["error"]


# --- the body limit setting --------------------------------------------------------------


def test_the_body_limit_defaults_to_one_mebibyte():
    assert Settings.from_env({}).max_body_bytes == MIB


def test_the_body_limit_is_taken_from_the_environment():
    assert Settings.from_env({"FANOUT_MAX_BODY_BYTES": "4096"}).max_body_bytes == 4096


@pytest.mark.parametrize("value", ["0", "-1", "1MB", "1.5", "²"])
def test_a_bad_body_limit_names_the_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_MAX_BODY_BYTES"):
        Settings.from_env({"FANOUT_MAX_BODY_BYTES": value})


# --- bodies, in process ------------------------------------------------------------------


def test_a_body_over_the_limit_is_413_payload_too_large(client, auth):
    answer = client.post("/v1/upload", headers={**auth, "content-type": "application/json"}, content=b" " * (MIB + 1))
    assert "1048576 bytes" in assert_error(answer, 413, "payload_too_large")


def test_a_body_of_exactly_the_limit_is_accepted(client, auth, account):
    body = json.dumps({"caption": "hello", "platforms": ["x"]}).encode()
    padded = body + b" " * (MIB - len(body))
    answer = client.post("/v1/upload", headers={**auth, "content-type": "application/json"}, content=padded)
    assert answer.status_code == 201, answer.text


def test_the_body_limit_is_checked_before_the_key(client):
    answer = client.post("/v1/webhooks", headers={"content-type": "application/json"}, content=b" " * (MIB + 1))
    assert_error(answer, 413, "payload_too_large")


# --- bodies, over HTTP -------------------------------------------------------------------


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(server, sandbox_key):
    head = request_head("POST", "/v1/upload", {
        **bearer(sandbox_key), "Content-Type": "application/json", "Content-Length": str(100 * MIB),
    })
    status, headers, body = exchange(server.url, head)
    assert status == 413
    assert error_of(body)["code"] == "payload_too_large"
    assert headers["x-request-id"].startswith("req_")


def test_a_chunked_body_is_refused_once_it_passes_the_limit_before_it_ends(servers, process_env, sandbox_key):
    server = servers(env={**process_env, "FANOUT_MAX_BODY_BYTES": "4096"})
    head = request_head("POST", "/v1/accounts/x/connect", {
        **bearer(sandbox_key), "Content-Type": "application/json", "Transfer-Encoding": "chunked",
    })
    # 4097 bytes in chunks, and never the last (empty) chunk that would end the body.
    chunks = [b"%x\r\n%s\r\n" % (len(part), part) for part in (b'{"redirect_url": "' + b"a" * 2000, b"b" * 2079)]
    status, _, body = exchange(server.url, head, chunks)
    assert status == 413
    assert error_of(body)["code"] == "payload_too_large"
    assert "4096 bytes" in error_of(body)["message"]


def test_a_chunked_body_within_the_limit_is_read(server, sandbox_key, rt):
    head = request_head("POST", "/v1/webhooks", {
        **bearer(sandbox_key), "Content-Type": "application/json", "Transfer-Encoding": "chunked",
    })
    payload = json.dumps({"url": "https://127.0.0.1/hook", "events": ["post.failed"]}).encode()
    chunks = [b"%x\r\n%s\r\n" % (len(payload[:10]), payload[:10]), b"%x\r\n%s\r\n" % (len(payload[10:]), payload[10:]), b"0\r\n\r\n"]
    status, _, body = exchange(server.url, head, chunks)
    # Read whole and validated: the URL's host is refused, which only the parsed body can say.
    assert status == 400
    assert "url" in error_of(body)["message"]


def chunked(body: bytes, size: int = 64 * 1024) -> list[bytes]:
    """`body` as chunks of `size` bytes, ended by the last (empty) chunk."""
    parts = [body[at:at + size] for at in range(0, len(body), size)]
    return [b"%x\r\n%s\r\n" % (len(part), part) for part in parts] + [b"0\r\n\r\n"]


def test_a_chunked_body_over_the_limit_to_an_operation_that_reads_no_body_is_refused_before_it_runs(
        server, client, auth, account, clock):
    pending = client.post("/v1/upload", headers=auth, json={
        "caption": "later", "account_ids": [account["id"]], "scheduled_at": f"{clock.now + dt.timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}"})
    assert pending.status_code == 201, pending.text
    post_id = pending.json()["id"]
    head = request_head("DELETE", f"/v1/posts/{post_id}", {
        **auth, "Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    status, _, body = exchange(server.url, head, chunked(b" " * (MIB + 1)))
    assert status == 413, body
    assert error_of(body)["code"] == "payload_too_large"
    # Refused, not run: the post is still there and still pending.
    after = client.get(f"/v1/posts/{post_id}", headers=auth)
    assert after.status_code == 200, after.text
    assert after.json()["status"] == "pending"


def test_a_chunked_body_over_the_limit_to_a_read_is_refused(server, sandbox_key):
    head = request_head("GET", "/v1/accounts", {**bearer(sandbox_key), "Transfer-Encoding": "chunked"})
    status, _, body = exchange(server.url, head, chunked(b"a" * (MIB + 1)))
    assert status == 413, body
    assert error_of(body)["code"] == "payload_too_large"


def test_a_chunked_body_within_the_limit_to_an_operation_that_reads_no_body_is_served(server, sandbox_key):
    head = request_head("GET", "/v1/accounts", {**bearer(sandbox_key), "Transfer-Encoding": "chunked"})
    status, _, body = exchange(server.url, head, chunked(b"a" * 1000))
    assert status == 200, body


# --- request heads, over HTTP ------------------------------------------------------------


def test_a_request_head_over_64_kib_is_431_in_the_error_envelope(server, sandbox_key):
    head = request_head("GET", "/v1/accounts", {**bearer(sandbox_key), "X-Padding": "p" * (64 * 1024)})
    status, headers, body = exchange(server.url, head)
    assert status == 431
    assert headers["content-type"] == "application/json"
    assert error_of(body)["code"] == "headers_too_large"


def test_a_request_head_is_refused_before_it_ends(server):
    # 80 KiB of one header that never ends: the server answers without waiting for the rest.
    unfinished = b"GET /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"p" * (80 * 1024)
    status, _, body = exchange(server.url, unfinished)
    assert status == 431
    assert error_of(body)["code"] == "headers_too_large"


def test_a_malformed_request_head_is_400_in_the_error_envelope(server):
    # A Content-Length h11 refuses (it takes at most 20 digits).
    head = request_head("POST", "/v1/upload", {"Content-Type": "application/json", "Content-Length": "9" * 5000})
    status, headers, body = exchange(server.url, head)
    assert status == 400
    assert error_of(body)["code"] == "validation_error"
    assert headers["content-length"] == str(len(body))


def test_a_request_head_just_under_64_kib_is_served(server, sandbox_key):
    head = request_head("GET", "/v1/accounts", {**bearer(sandbox_key), "X-Padding": "p" * (60 * 1024)})
    status, _, body = exchange(server.url, head)
    assert status == 200, body


# --- what error messages quote -----------------------------------------------------------


def longest_run(message: str, char: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(char)}+", message)), default=0)


def test_a_too_long_caption_is_quoted_in_at_most_200_characters(client, auth):
    message = assert_error(client.post("/v1/upload", headers=auth, json={"caption": "x" * 500_000, "platforms": ["x"]}), 400, "validation_error")
    assert longest_run(message, "x") <= 200
    assert message == "caption: 500000 characters; send at most 10000 characters"


def test_an_unknown_field_name_is_quoted_in_at_most_200_characters(client, auth):
    message = assert_error(client.post("/v1/upload", headers=auth, json={"caption": "a", "y" * 5000: 1}), 400, "validation_error")
    assert longest_run(message, "y") <= 200


def test_an_unknown_query_parameter_is_quoted_in_at_most_200_characters(client, auth):
    message = assert_error(client.get("/v1/accounts", headers=auth, params={"q" * 5000: "1"}), 400, "validation_error")
    assert longest_run(message, "q") <= 200


def test_a_bad_query_value_is_quoted_in_at_most_200_characters(client, auth):
    message = assert_error(client.get("/v1/posts", headers=auth, params={"limit": "9" * 3000}), 400, "validation_error")
    assert longest_run(message, "9") <= 200


def test_an_unknown_route_is_quoted_in_at_most_200_characters(client, auth):
    message = assert_error(client.get("/v1/" + "r" * 5000, headers=auth), 404, "not_found")
    assert longest_run(message, "r") <= 200


def test_an_unknown_account_id_is_quoted_in_at_most_200_characters(client, auth):
    answer = client.post("/v1/upload", headers=auth, json={"caption": "a", "account_ids": ["acc_" + "b" * 5000]})
    assert longest_run(assert_error(answer, 422, "account_not_connected"), "b") <= 200


def test_a_list_of_many_values_is_quoted_in_bounded_length(client, auth):
    ids = [f"acc_{n:05}" for n in range(5000)]
    message = assert_error(client.post("/v1/upload", headers=auth, json={"caption": "a", "account_ids": ids}), 400, "validation_error")
    assert len(message) <= 1000
