"""Serving emulators from the command line (`python -m tests.emulators`, and a platform's
own `__main__`) until Ctrl-C or SIGTERM."""
from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterable


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
