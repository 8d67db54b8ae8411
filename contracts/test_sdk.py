"""A client generated from openapi.yaml drives a real `fanout serve`, as the README shows.

The README's SDK block is the test: it is run as written, with only the server's address
swapped for this test's, so the documented usage cannot drift from what works.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from contracts import sdk

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SECTION = README.split("## A generated Python client", 1)[1].split("\n## ", 1)[0]
[WALKTHROUGH] = re.findall(r"```python\n(.*?)```", SECTION, re.S)
[EXPECTED] = re.findall(r"prints\n\n```\n(.*?)```", SECTION, re.S)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generated_client(tmp_path_factory) -> Path:
    """The client generated from openapi.yaml, installed into a folder: its PYTHONPATH entry."""
    folder = tmp_path_factory.mktemp("sdk")
    project = folder / "fanout-client"
    sdk.generate(ROOT / "openapi.yaml", project, meta="setup")
    sdk.install(project, folder / "installed")
    return folder / "installed"


def expected_lines(server_url: str) -> list[str]:
    return [line.replace("http://127.0.0.1:8000", server_url) for line in EXPECTED.strip().splitlines()]


def test_the_readme_walkthrough_runs_against_a_real_server(generated_client, cli, servers, tmp_path):
    server = servers("serve")
    workspace = cli.json("workspace", "create", "SDK", "--plan", "STARTER")
    key = cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"]
    script = tmp_path / "walkthrough.py"
    script.write_text(WALKTHROUGH.replace("http://127.0.0.1:8000", server.url))

    env = {**cli.env, "FANOUT_KEY": key, "PYTHONPATH": os.pathsep.join([str(generated_client), cli.env["PYTHONPATH"]])}
    done = subprocess.run([sys.executable, str(script)], env=env,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    printed = done.stdout.strip().splitlines()
    assert len(printed) == len(expected_lines(server.url)), done.stdout
    for line, expected in zip(printed, expected_lines(server.url)):
        # `tgt_...` in the README stands for a real target id.
        pattern = re.escape(expected).replace(re.escape("tgt_..."), r"tgt_[0-9A-Za-z]+")
        assert re.fullmatch(pattern, line), f"{line!r} is not {expected!r}"
