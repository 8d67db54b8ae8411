"""The loopback guard (tests/loopback_site): tests and the processes they start connect to
loopback only; any other connection is refused, and fails the test that tried it.

Refusals a test here causes on purpose are taken with `take_refusals()`, so they are
asserted on instead of failing it. Were the guard to let a connection through, it could
not leave the machine either: the in-process tests replace what the guard would call with
a fake, and the process tests aim at 0.0.0.0 (this host).
"""
from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from fanout.outbound.client import Outbound, OutboundError

from .conftest import (
    LOOPBACK_SITE, PUBLIC_IP, FakeResolver, bearer, connect_on_server, take_refusals, wait_for,
)
from .loopback_site import loopback_guard
from .loopback_site.loopback_guard import MARK, OffLoopback

ROOT = Path(__file__).resolve().parent.parent

OFF_LOOPBACK = [
    PUBLIC_IP, "2606:2800:220:1:248:1893:25c8:1946", "::ffff:93.184.216.34", "10.0.0.7",
    "169.254.169.254", "0.0.0.0", "hooks.example.com",
]


@pytest.fixture
def nothing_reaches_the_network(monkeypatch):
    """What the guard calls once it lets a connection through, replaced by a fake that
    records the destination and connects nowhere."""
    reached = []

    def fake(name):
        def call(*args, **kwargs):
            address = args[-1] if name in ("connect", "connect_ex") else args[0]
            reached.append((name, address))
            raise ConnectionRefusedError(errno.ECONNREFUSED, f"fake {name}")
        return call

    for name in ("connect", "connect_ex", "create_connection"):
        monkeypatch.setitem(loopback_guard._originals, name, fake(name))
    return reached


def tcp(host: str) -> socket.socket:
    return socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)


@pytest.mark.parametrize("host", OFF_LOOPBACK)
@pytest.mark.parametrize("call", ["connect", "connect_ex", "create_connection"])
def test_a_connection_off_loopback_is_refused_and_recorded(host, call, nothing_reaches_the_network):
    with pytest.raises(OffLoopback):
        if call == "create_connection":
            socket.create_connection((host, 443), timeout=1)
        else:
            with tcp(host) as sock:
                getattr(sock, call)((host, 443))
    assert nothing_reaches_the_network == []
    assert take_refusals() == [
        f"{MARK} a connection to {host}:443 (pid {os.getpid()}): tests may only connect to loopback"
    ]


def test_the_refusal_is_a_refused_connection_to_code_that_catches_os_errors():
    assert issubclass(OffLoopback, ConnectionRefusedError)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1", "localhost"])
@pytest.mark.parametrize("call", ["connect", "connect_ex", "create_connection"])
def test_a_connection_to_loopback_goes_through(host, call, nothing_reaches_the_network):
    with pytest.raises(ConnectionRefusedError, match="^.*fake"):  # the fake's refusal, not the guard's
        if call == "create_connection":
            socket.create_connection((host, 9), timeout=1)
        else:
            with tcp(host) as sock:
                getattr(sock, call)((host, 9))
    assert nothing_reaches_the_network == [(call, (host, 9))]
    assert take_refusals() == []


def test_a_real_loopback_server_answers():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        with socket.create_connection(listener.getsockname(), timeout=1):
            pass
    assert take_refusals() == []


def test_unix_sockets_are_allowed(tmp_path):
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen()
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(path)
    assert take_refusals() == []


def test_names_other_than_localhost_do_not_resolve():
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("hooks.example.com", 443)
    with pytest.raises(socket.gaierror):
        socket.gethostbyname("hooks.example.com")
    assert {info[4][0] for info in socket.getaddrinfo("localhost", 443, type=socket.SOCK_STREAM)} <= {"127.0.0.1", "::1"}
    assert socket.getaddrinfo("127.0.0.1", 443, type=socket.SOCK_STREAM)[0][4][0] == "127.0.0.1"


def test_the_service_outbound_client_is_refused_at_a_public_address(nothing_reaches_the_network):
    # The path a webhook delivery takes in production: a public name, pinned to its address.
    outbound = Outbound(resolve=FakeResolver({"hooks.example.com": [PUBLIC_IP]}), deadline=2)
    with pytest.raises(OutboundError) as caught:
        outbound.post("https://hooks.example.com/fanout", b"{}", {})
    assert caught.value.kind == "connect"
    assert nothing_reaches_the_network == []
    assert [line.split(" (pid")[0] for line in take_refusals()] == [f"{MARK} a connection to {PUBLIC_IP}:443"]


INNER_TEST = '''
import socket

def test_swallows_a_refused_connection():
    try:
        socket.create_connection(("0.0.0.0", 9), timeout=1)
    except OSError:
        pass  # the guard must fail the test anyway

def test_stays_on_loopback():
    pass
'''


def test_a_test_that_connects_off_loopback_fails_naming_the_address(tmp_path):
    # 0.0.0.0 is not loopback to the guard, and is this host to a process without it.
    (tmp_path / "conftest.py").write_text("from tests.conftest import _loopback_only, pytest_runtest_makereport\n")
    (tmp_path / "test_inner.py").write_text(INNER_TEST)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", loopback_guard.LOG_VARIABLE)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_inner.py"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT), "COLUMNS": "300"},
        capture_output=True, text=True, timeout=120,
    )
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    assert f"FAILED test_inner.py::test_swallows_a_refused_connection - {MARK} a connection to 0.0.0.0:9" in done.stdout


def test_a_server_process_the_test_starts_is_guarded_and_its_refusals_reported(servers, insecure_env, cli):
    # A webhook at 0.0.0.0 (FANOUT_INSECURE_URLS allows it): not loopback to the guard,
    # and this host even to a process without it, so nothing could leave the machine here.
    server = servers("serve", env=insecure_env)
    workspace = cli.json("workspace", "create", "Guarded")
    key = cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"]
    connect_on_server(server.url, bearer(key))
    hook = requests.post(f"{server.url}/v1/webhooks", headers=bearer(key), timeout=10,
                         json={"url": "http://0.0.0.0:9/fanout", "events": ["post.completed"]}).json()
    posted = requests.post(f"{server.url}/v1/upload", headers=bearer(key), timeout=10,
                           json={"caption": "hello", "platforms": ["x"]})
    assert posted.status_code == 201, posted.text

    deliveries = f"{server.url}/v1/webhooks/{hook['id']}/deliveries"
    [delivery] = wait_for(lambda: requests.get(deliveries, headers=bearer(key), timeout=10).json()["data"],
                          what="the delivery")
    wait_for(lambda: requests.get(deliveries, headers=bearer(key), timeout=10).json()["data"][0]["attempts"],
             what="its first attempt")
    refused = f"{MARK} a connection to 0.0.0.0:9"
    assert refused in server.log()  # on the worker's stderr, in the server log
    assert [line.split(" (pid")[0] for line in take_refusals()] == [refused]  # and where the session reads it
