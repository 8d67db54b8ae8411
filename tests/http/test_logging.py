"""The log: one record is one line whatever a client sends, in the text
format (the default) and in the json format (FANOUT_LOG_FORMAT=json).
"""
from __future__ import annotations

import json
import logging
from urllib.parse import quote

import pytest
import requests

from fanout.http.requestlog import configure_logging
from fanout.settings import Settings, SettingsError

from ..conftest import bearer

FORGED = "2026-11-22 10:00:00,000 INFO fanout.access [req_forged] GET /v1/accounts 200 1.0ms"


@pytest.fixture
def log_lines(capsys):
    """`configure(format)` sets up logging as the service does; `read()` gives the lines written since."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level

    class Log:
        def configure(self, log_format: str) -> None:
            configure_logging("INFO", log_format)
            capsys.readouterr()

        def read(self) -> list[str]:
            return capsys.readouterr().err.splitlines()

    yield Log()
    root.handlers[:], root.level = saved
    logging.captureWarnings(False)


def crash_on_webhooks(rt, message: str) -> None:
    def broken_resolver(host):
        raise RuntimeError(message)

    rt.resolve = broken_resolver


WEBHOOK = {"url": "https://hooks.example.com/x", "events": ["post.failed"]}


# --- the setting -------------------------------------------------------------------------


def test_the_log_format_defaults_to_text():
    assert Settings.from_env({}).log_format == "text"


def test_the_log_format_may_be_json():
    assert Settings.from_env({"FANOUT_LOG_FORMAT": "json"}).log_format == "json"


def test_a_bad_log_format_names_the_variable():
    with pytest.raises(SettingsError, match="FANOUT_LOG_FORMAT"):
        Settings.from_env({"FANOUT_LOG_FORMAT": "xml"})


# --- text --------------------------------------------------------------------------------


def test_a_line_break_in_a_path_cannot_forge_an_access_line(client, auth, log_lines):
    log_lines.configure("text")
    client.get("/v1/nothing%0A" + FORGED.replace(" ", "%20"), headers=auth)
    access = [line for line in log_lines.read() if " fanout.access [" in line]
    assert len(access) == 1
    assert "/v1/nothing\\n2026-11-22" in access[0]


def test_control_characters_in_a_path_are_escaped(client, auth, log_lines):
    log_lines.configure("text")
    client.get("/v1/a%00b%1B[31mc%7Fd%E2%80%A8e", headers=auth)
    [line] = [line for line in log_lines.read() if " fanout.access [" in line]
    assert "/v1/a\\x00b\\x1b[31mc\\x7fd\\u2028e" in line
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in line)


# Unicode's Bidi_Control characters: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI.
BIDI = ["\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
        "\u2066", "\u2067", "\u2068", "\u2069"]


def test_bidirectional_controls_in_a_path_are_escaped(client, auth, log_lines):
    log_lines.configure("text")
    client.get("/v1/" + "".join(f"{i}{quote(c)}" for i, c in enumerate(BIDI)) + "/txt.exe", headers=auth)
    [line] = [line for line in log_lines.read() if " fanout.access [" in line]
    assert "/v1/" + "".join(f"{i}\\u{ord(c):04x}" for i, c in enumerate(BIDI)) + "/txt.exe 404" in line
    assert not set(line) & set(BIDI)


def test_a_long_path_is_cut_in_the_access_line(client, auth, log_lines):
    log_lines.configure("text")
    client.get("/v1/" + "a" * 20_000, headers=auth)
    [line] = [line for line in log_lines.read() if " fanout.access [" in line]
    assert f" GET /v1/{'a' * 1020}… (20004 characters) 404 " in line
    assert len(line) < 1200


def test_a_traceback_is_indented_under_its_record(client, auth, rt, log_lines):
    log_lines.configure("text")
    crash_on_webhooks(rt, "resolver exploded\n" + FORGED)
    assert client.post("/v1/webhooks", headers=auth, json=WEBHOOK).status_code == 500
    lines = log_lines.read()
    first = next(i for i, line in enumerate(lines) if "unhandled error" in line)
    tail = lines[first + 1:first + 1 + next(i for i, line in enumerate(lines[first + 1:]) if " fanout.access [" in line)]
    assert tail and all(line.startswith("    ") for line in tail)
    assert any("resolver exploded" in line for line in tail)
    assert not any(line.startswith(FORGED[:10]) and "req_forged" in line for line in lines)


# --- json --------------------------------------------------------------------------------


def records(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines]


def test_json_access_lines_carry_request_method_route_status_duration_and_workspace(client, auth, workspace, log_lines):
    log_lines.configure("json")
    answer = client.get("/v1/posts/post_01JDQ3M5V3A4Z5T2N4XKQ8W9RB", headers=auth)
    [access] = [r for r in records(log_lines.read()) if r["logger"] == "fanout.access"]
    assert access["request_id"] == answer.headers["x-request-id"]
    assert access["method"] == "GET" and access["route"] == "/v1/posts/{id}"
    assert access["path"] == "/v1/posts/post_01JDQ3M5V3A4Z5T2N4XKQ8W9RB"
    assert access["status"] == 404 and access["workspace_id"] == workspace.id
    assert isinstance(access["duration_ms"], float) and access["duration_ms"] >= 0
    assert access["level"] == "INFO" and access["time"].endswith("Z")


def test_json_access_lines_of_unauthenticated_and_unknown_requests(client, log_lines):
    log_lines.configure("json")
    client.get("/v1/accounts")
    client.get("/v1/nothing%0A")
    first, second = [r for r in records(log_lines.read()) if r["logger"] == "fanout.access"]
    assert (first["route"], first["status"], first["workspace_id"]) == ("/v1/accounts", 401, None)
    assert (second["route"], second["status"], second["path"]) == (None, 404, "/v1/nothing\n")


def test_json_access_lines_cut_a_long_path(client, auth, log_lines):
    log_lines.configure("json")
    client.get("/v1/" + "a" * 20_000, headers=auth)
    [access] = [r for r in records(log_lines.read()) if r["logger"] == "fanout.access"]
    assert access["path"] == f"/v1/{'a' * 1020}… (20004 characters)"


def test_json_records_carry_time_level_logger_request_id_message_and_exception(client, auth, rt, log_lines):
    log_lines.configure("json")
    crash_on_webhooks(rt, "resolver exploded\n" + FORGED)
    answer = client.post("/v1/webhooks", headers=auth, json=WEBHOOK)
    lines = log_lines.read()
    [crash] = [r for r in records(lines) if r["logger"] == "fanout.errors"]
    assert crash["level"] == "ERROR" and crash["request_id"] == answer.headers["x-request-id"]
    assert "unhandled error" in crash["message"] and crash["time"].endswith("Z")
    assert "Traceback" in crash["exception"] and "resolver exploded\n2026-11-22" in crash["exception"]


def test_a_server_in_json_format_writes_only_json_lines(servers, process_env, sandbox_key, workspace):
    server = servers(env={**process_env, "FANOUT_LOG_FORMAT": "json"})
    requests.get(f"{server.url}/v1/accounts", headers=bearer(sandbox_key), timeout=10)
    requests.get(f"{server.url}/v1/nothing%0Aforged", timeout=10)
    logged = records(line for line in server.log().splitlines() if line.strip())
    assert {"fanout.cli", "uvicorn.error", "fanout.access"} <= {r["logger"] for r in logged}
    accounts = next(r for r in logged if r["logger"] == "fanout.access" and r["route"] == "/v1/accounts")
    assert accounts["workspace_id"] == workspace.id and accounts["status"] == 200
