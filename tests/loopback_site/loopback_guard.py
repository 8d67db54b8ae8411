"""Tests stay on loopback: every connection to another address is refused and recorded.

Installed in the test session by tests/conftest.py and, through `sitecustomize.py` beside
this file (the folder is put on PYTHONPATH), in every Python process the tests start.
TCP/UDP connections may go to 127.0.0.0/8, ::1 and `localhost` only; Unix sockets are
free. Anything else raises `OffLoopback` before a packet leaves, and is recorded: in
`REFUSED` in this process, and as one line in the file named by LOOPBACK_GUARD_LOG (and on
stderr, so a server's log shows it) in a started process. Recording matters because code
under test may swallow the error (a failed webhook delivery is a normal outcome); the
test session fails the test either way.

Name lookups are not connections, but a real one would send a DNS query off the machine:
names other than `localhost` do not resolve here (socket.gaierror), as on a machine
without a network.
"""
from __future__ import annotations

import errno
import ipaddress
import os
import socket
import sys
import threading

LOG_VARIABLE = "LOOPBACK_GUARD_LOG"
MARK = "loopback guard: refused"
LOCAL_NAMES = frozenset({"localhost", "localhost."})

REFUSED: list[str] = []
_lock = threading.Lock()
_originals: dict[str, object] = {}
_log_path: str | None = None
_echo = False


class OffLoopback(ConnectionRefusedError):
    """A connection the tests may not open: its destination is not loopback."""


def is_loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False  # a name: the system would resolve it, and it could be anywhere
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def take_refused() -> list[str]:
    """The refusals recorded in this process since the last call, oldest first."""
    with _lock:
        taken = REFUSED[:]
        REFUSED.clear()
    return taken


def _refuse(what: str, host, port) -> OffLoopback:
    line = f"{MARK} {what} to {host}:{port} (pid {os.getpid()}): tests may only connect to loopback"
    with _lock:
        REFUSED.append(line)
    if _log_path:
        with open(_log_path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    if _echo:
        print(line, file=sys.stderr, flush=True)
    return OffLoopback(errno.ECONNREFUSED, line)


def _check(sock: socket.socket, address) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
        if not is_loopback(address[0]):
            raise _refuse("a connection", address[0], address[1])


def _connect(self, address):
    _check(self, address)
    return _originals["connect"](self, address)


def _connect_ex(self, address):
    _check(self, address)
    return _originals["connect_ex"](self, address)


def _create_connection(address, *args, **kwargs):
    host, port = address[0], address[1]
    if not is_loopback(host):
        raise _refuse("a connection", host, port)  # before the name is looked up
    return _originals["create_connection"](address, *args, **kwargs)


def _may_resolve(host) -> bool:
    if host is None:
        return True  # the wildcard address of a listening socket
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        ipaddress.ip_address(host.partition("%")[0])
        return True  # a literal: answered without a query
    except ValueError:
        return False


def _no_such_name(host) -> socket.gaierror:
    return socket.gaierror(socket.EAI_NONAME, f"Name or service not known ({host!r}: tests resolve no real names)")


def _getaddrinfo(host, *args, **kwargs):
    if not _may_resolve(host):
        raise _no_such_name(host)
    return _originals["getaddrinfo"](host, *args, **kwargs)


def _gethostbyname(host):
    if not _may_resolve(host):
        raise _no_such_name(host)
    return _originals["gethostbyname"](host)


def _gethostbyname_ex(host):
    if not _may_resolve(host):
        raise _no_such_name(host)
    return _originals["gethostbyname_ex"](host)


def install(log_path: str | None = None, echo: bool = False) -> None:
    """Patch the socket module of this process; calling it again changes nothing.

    Each refusal is also appended to `log_path` if given, and written to stderr if `echo`.
    """
    global _log_path, _echo
    if _originals:
        return
    _log_path, _echo = log_path, echo
    _originals.update(
        connect=socket.socket.connect, connect_ex=socket.socket.connect_ex,
        create_connection=socket.create_connection, getaddrinfo=socket.getaddrinfo,
        gethostbyname=socket.gethostbyname, gethostbyname_ex=socket.gethostbyname_ex,
    )
    socket.socket.connect = _connect
    socket.socket.connect_ex = _connect_ex
    socket.create_connection = _create_connection
    socket.getaddrinfo = _getaddrinfo
    socket.gethostbyname = _gethostbyname
    socket.gethostbyname_ex = _gethostbyname_ex
