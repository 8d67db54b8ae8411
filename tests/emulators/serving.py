"""Serving emulators from the command line (`python -m tests.emulators`, and a platform's
own `__main__`) until Ctrl-C or SIGTERM."""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterable

from .clock import EmulatorClock


def stop_on_signals() -> threading.Event:
    """An event set by SIGINT or SIGTERM."""
    stop = threading.Event()
    # Both set explicitly: a process started in the background of a shell (as CI does)
    # inherits SIGINT ignored, and Python then never raises KeyboardInterrupt.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def serve_until_stopped(name: str, server, announce: Callable[[object], Iterable[str]]) -> int:
    """Start `server`, print where it listens and the lines `announce` makes of it once it
    does, serve until a signal stops it: the exit status."""
    stop = stop_on_signals()
    try:
        server.start()
    except OSError as e:
        print(f"the {name} server cannot listen on {server.host}:{server.port}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        print(f"{name} emulator on {server.base_url} (control: {server.base_url}/_emulator/)", flush=True)
        for line in announce(server):
            print(line, flush=True)
        stop.wait()
    finally:
        server.stop()
    print("stopped", flush=True)
    return 0


def run_alone(name: str, description: str, add_arguments, build, announce: Callable[[object], Iterable[str]],
              argv: list[str] | None = None) -> int:
    """`python -m tests.emulators.<name>`: the host, the port and the platform's own
    arguments (`add_arguments`), the emulator `build(args, clock)` makes of them on a clock
    that follows real time (a ValueError is a usage error), served until stopped with
    `announce(server)` printed once it listens: the exit status."""
    parser = argparse.ArgumentParser(prog=f"python -m tests.emulators.{name}", description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        server = build(args, EmulatorClock(follow_real_time=True))
    except ValueError as e:
        parser.error(str(e))
    return serve_until_stopped(name, server, announce)


def setting_lines(settings: Callable[[object], dict]) -> Callable[[object], list[str]]:
    """What a server run alone announces: its settings, NAME=value a line."""
    return lambda server: [f"{name}={value}" for name, value in settings(server).items()]
