"""A client generated from openapi.yaml drives a real `fanout serve`, as the README shows.

The README's example is the test: it is run as written, with only the server's address
swapped for this test's, so the documented usage cannot drift from what works. Here on a
workspace of its own; tests/test_quickstart.py runs it after the quickstart, as a reader does.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from contracts import sdk
from tests.conftest import bearer, connect_on_server
from tests.test_quickstart import matches

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SECTION = README.split("## A generated Python client", 1)[1].split("\n## ", 1)[0]
[EXAMPLE] = re.findall(r"```python\n(.*?)```", SECTION, re.S)
EXPECTED = re.findall(r"^# → (.*)$", SECTION, re.M)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generated_client(tmp_path_factory) -> Path:
    """The folder the client is generated into, as the README does: its PYTHONPATH entry."""
    folder = tmp_path_factory.mktemp("sdk")
    sdk.generate(ROOT / "openapi.yaml", folder / sdk.PACKAGE)
    return folder


def run_example(server, key: str, generated_client: Path, cli, tmp_path) -> subprocess.CompletedProcess:
    script = tmp_path / "sdk_example.py"
    script.write_text(EXAMPLE.replace("http://127.0.0.1:8000", server.url))
    env = {**cli.env, "FANOUT_KEY": key, "PYTHONPATH": os.pathsep.join([str(generated_client), cli.env["PYTHONPATH"]])}
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)


def test_the_readme_example_runs_against_a_real_server(generated_client, cli, servers, tmp_path):
    server = servers("serve")
    workspace = cli.json("workspace", "create", "SDK", "--plan", "STARTER")
    key = cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"]

    done = run_example(server, key, generated_client, cli, tmp_path)

    assert done.returncode == 0, done.stderr
    printed = done.stdout.strip().splitlines()
    expected = [line.replace("http://127.0.0.1:8000", server.url) for line in EXPECTED]
    assert len(printed) == len(expected), done.stdout
    for line, want in zip(printed, expected):
        assert matches(want, line), f"{line!r} is not {want!r}"


def test_the_readme_example_stops_on_an_error_object_saying_what_it_was(generated_client, cli, servers, tmp_path):
    server = servers("serve")
    workspace = cli.json("workspace", "create", "Full", "--plan", "FREE")
    key = cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"]
    for _ in range(4):  # the FREE plan's accounts, none on X: the example's connect is refused at once
        connect_on_server(server.url, bearer(key), "threads")

    done = run_example(server, key, generated_client, cli, tmp_path)

    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("403 plan_limit_exceeded: "), done.stderr
    assert "Traceback" not in done.stderr
