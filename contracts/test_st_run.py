"""The Schemathesis CLI (`st run`) against a real `fanout api` process.

What the in-process suite cannot show: real HTTP parsing by uvicorn, the server's own
settings (no response validation, real DNS), and the CLI's own engine (every phase,
stateful included, with links learned from responses). The server shares this test's
database, so the workspace and key made with the `fanout` command are the ones it serves.

Configuration, authentication included, is contracts/schemathesis.toml; the key reaches
it through the environment (FANOUT_CONTRACT_KEY), never the command line.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import requests

from tests.conftest import bearer, connect_on_server

CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"
SETTINGS = tomllib.loads(CONFIG.read_text())
ACCOUNTS = 5  # enough for several list -> disconnect scenarios in the stateful phase


def connect_sandbox_accounts(base_url: str, key: str, count: int) -> None:
    """Run the sandbox connect flow `count` times, as an end user's browser would."""
    for platform in ("x", "threads", "instagram", "tiktok", "x")[:count]:
        connect_on_server(base_url, bearer(key), platform)
    listed = requests.get(f"{base_url}/v1/accounts", headers=bearer(key), timeout=10).json()["data"]
    assert len(listed) == count


def test_st_run_against_a_real_server(cli, server, tmp_path):
    workspace = cli.json("workspace", "create", "Contract", "--plan", "BUSINESS")
    key = cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"]
    connect_sandbox_accounts(server.url, key, ACCOUNTS)

    env = {**os.environ, "FANOUT_CONTRACT_KEY": key, "NO_COLOR": "1"}
    command = [
        sys.executable, "-m", "schemathesis.cli",
        "--config-file", str(CONFIG),
        "run", f"{server.url}/v1/openapi.json",
        "--checks", "all",
        # The same values as the config file, spelled out so the command line shows them.
        "--seed", str(SETTINGS["seed"]),
        "--max-examples", str(SETTINGS["generation"]["max-examples"]),
        "--generation-database", "none",
        "--rate-limit", SETTINGS["rate-limit"],
        "--report", "junit", "--report-dir", str(tmp_path / "schemathesis-report"),
        "--no-color",
    ]
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    print(done.stdout)  # the run's summary, shown with `pytest -rP`
    assert done.returncode == 0, (
        f"st run exited {done.returncode}\n--- output ---\n{done.stdout}\n{done.stderr}\n"
        f"--- server log ---\n{server.log()[-5000:]}"
    )
    # The run covered the API: every phase ran and passed, and the stateful phase followed
    # links (an empty or misread schema would also exit 0).
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in done.stdout, f"phase {phase} did not pass:\n{done.stdout}"
    generated, passed = map(int, re.search(r"(\d+) generated, (\d+) passed", done.stdout).groups())
    assert generated == passed > 0, done.stdout
    assert int(re.search(r"API Links:\s+(\d+) covered", done.stdout).group(1)) > 0, done.stdout
