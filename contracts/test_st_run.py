"""The Schemathesis CLI (`st run`) against a real `fanout serve`, as the README runs it.

What the in-process suite cannot show: real HTTP parsing by uvicorn, the server's own
settings (no response validation), its worker publishing the run's posts and delivering
their events, and the CLI's own engine (every phase, stateful included, with links learned
from responses). The server shares this test's database, so the workspaces and keys made
here are the ones it serves.

Configuration, authentication included, is contracts/schemathesis.toml; the key and the
webhook receiver's URL reach it through the environment (FANOUT_CONTRACT_KEY,
FANOUT_CONTRACT_WEBHOOK_URL), never the command line. The receiver runs on loopback beside
the server (contracts/webhook_receiver.py), which has FANOUT_INSECURE_URLS=1 to accept it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest
import requests

from contracts.webhook_receiver import WebhookReceiver
from fanout.models import db
from fanout.models.workspace import create_workspace
from tests.conftest import bearer, connect_on_server, loopback_guarded, make_key, wait_for
from tests.loopback_site.loopback_guard import MARK

CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"
SETTINGS = tomllib.loads(CONFIG.read_text())
ACCOUNTS = 5  # enough for several list -> disconnect scenarios in the stateful phase


def connect_sandbox_accounts(base_url: str, key: str, count: int) -> None:
    """Run the sandbox connect flow `count` times, as an end user's browser would."""
    for platform in ("x", "threads", "instagram", "tiktok", "x")[:count]:
        connect_on_server(base_url, bearer(key), platform)
    listed = requests.get(f"{base_url}/v1/accounts", headers=bearer(key), timeout=10).json()["data"]
    assert len(listed) == count


@pytest.fixture
def webhook_receiver():
    receiver = WebhookReceiver()
    thread = threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield receiver
    receiver.shutdown()
    receiver.server_close()
    thread.join(5)


def st_run(server, key: str, webhook_url: str, phases: str, report_dir: Path, cwd: Path) -> subprocess.CompletedProcess:
    """`st run` with the repository's config and every check, on `phases` only."""
    env = loopback_guarded({
        **os.environ, "FANOUT_CONTRACT_KEY": key, "FANOUT_CONTRACT_WEBHOOK_URL": webhook_url, "NO_COLOR": "1",
    })
    command = [
        sys.executable, "-m", "schemathesis.cli",
        "--config-file", str(CONFIG),
        "run", f"{server.url}/v1/openapi.json",
        "--checks", "all",
        "--phases", phases,
        # The same values as the config file, spelled out so the command line shows them.
        "--seed", str(SETTINGS["seed"]),
        "--max-examples", str(SETTINGS["generation"]["max-examples"]),
        "--generation-database", "none",
        "--rate-limit", SETTINGS["rate-limit"],
        "--report", "junit", "--report-dir", str(report_dir),
        "--no-color",
    ]
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    print(done.stdout)  # the run's summary, shown with `pytest -rP`
    assert done.returncode == 0, (
        f"st run ({phases}) exited {done.returncode}\n--- output ---\n{done.stdout}\n{done.stderr}\n"
        f"--- server log ---\n{server.log()[-5000:]}"
    )
    generated, passed = map(int, re.search(r"(\d+) generated, (\d+) passed", done.stdout).groups())
    assert generated == passed > 0, done.stdout
    return done


def contract_workspace(rt, server, name: str) -> str:
    """The sandbox key of a new BUSINESS workspace (600 requests a minute) with its accounts.

    Made in this process, in the database the server shares (tests/test_cli.py runs the
    `fanout workspace` and `fanout key` commands), its accounts connected over HTTP."""
    with db.connection_context():
        workspace = create_workspace(rt, name, "BUSINESS")
    key = make_key(rt, workspace.id, "sandbox")
    connect_sandbox_accounts(server.url, key, ACCOUNTS)
    return key


def test_st_run_against_a_real_server(rt, servers, insecure_env, webhook_receiver, tmp_path):
    """Every phase and every check, the stateless phases and the stateful one each on a
    workspace of its own: each run's counted requests stay under the
    BUSINESS plan's 600 a minute, so it sends as fast as the server answers and never
    meets the limit (the server answers no 429), where one workspace for all four phases
    (some 650) would wait out most of a minute on it."""
    server = servers("serve", env=insecure_env)
    stateless_key = contract_workspace(rt, server, "Contract")
    stateful_key = contract_workspace(rt, server, "Contract stateful")

    stateless = st_run(server, stateless_key, webhook_receiver.url, "examples,coverage,fuzzing",
                       tmp_path / "schemathesis-report", tmp_path)
    stateful = st_run(server, stateful_key, webhook_receiver.url, "stateful",
                      tmp_path / "schemathesis-report-stateful", tmp_path)
    # The run covered the API: every phase ran and passed, and the stateful phase followed
    # links (an empty or misread schema would also exit 0).
    for phase, done in (("Examples", stateless), ("Coverage", stateless), ("Fuzzing", stateless),
                        ("Stateful", stateful)):
        assert f"✅ {phase}" in done.stdout, f"phase {phase} did not pass:\n{done.stdout}"
    # The examples phase ran every operation but create_webhook, which the config keeps to
    # the receiver's URL (schemathesis.toml says why).
    examples = re.search(r"Examples \(in [^)]*\)\s+✅ (\d+) passed\s+⏭\s+(\d+) skipped", stateless.stdout)
    assert examples and examples.groups() == ("24", "1"), stateless.stdout
    assert int(re.search(r"API Links:\s+(\d+) covered", stateful.stdout).group(1)) > 0, stateful.stdout
    # Neither run met its workspace's limit: no answer was a 429, so none was waited out.
    refused = [line for line in server.log().splitlines() if "fanout.access" in line and " 429 " in line]
    assert not refused, refused[:5]

    # Nothing the runs left behind makes the server connect off loopback: every registration
    # points at the receiver, a post published after the run is delivered there, and the
    # loopback guard the server runs under (tests/loopback_site) logged no refused connection.
    # (The run's own test pings, redeliveries and account events reached the receiver too.)
    registered = requests.get(f"{server.url}/v1/webhooks", headers=bearer(stateful_key), timeout=10).json()["data"]
    assert {hook["url"] for hook in registered} <= {webhook_receiver.url}, registered
    key = stateless_key  # its fuzzing phase registers webhooks, each pointing at the receiver
    registered = requests.get(f"{server.url}/v1/webhooks", headers=bearer(key), timeout=10).json()["data"]
    assert {hook["url"] for hook in registered} == {webhook_receiver.url}, registered
    subscribed = [hook for hook in registered if "post.completed" in hook["events"] and hook["enabled"]]
    assert subscribed, f"the run left no enabled registration for post.completed: {registered}"
    connect_on_server(server.url, bearer(key), "x")  # the run disconnects accounts as it goes
    accounts = requests.get(f"{server.url}/v1/accounts?status=active", headers=bearer(key), timeout=10).json()["data"]
    x_account = next(a["id"] for a in accounts if a["platform"] == "x")
    before = len(webhook_receiver.deliveries)
    posted = requests.post(f"{server.url}/v1/upload", headers=bearer(key), timeout=10,
                           json={"caption": "after the contract run", "account_ids": [x_account]})
    assert posted.status_code == 201, posted.text
    completed = lambda: [d for d in webhook_receiver.deliveries[before:] if d.event.get("event") == "post.completed"]  # noqa: E731
    wait_for(lambda: len(completed()) >= len(subscribed), what="a delivery per registration")
    assert {d.event["post_id"] for d in completed()} == {posted.json()["id"]}
    assert MARK not in server.log(), server.log()[-5000:]
