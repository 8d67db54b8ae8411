"""Run an emulator on its own: `python -m tests.emulators threads --port 9200`.

Prints where it listens and the settings that send Fanout to it, then serves until
Ctrl-C (or SIGTERM). Its clock follows real time, so videos finish processing by
themselves; `POST /_emulator/advance {"seconds": N}` still jumps ahead.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading

from .clock import EmulatorClock


def _pair(value: str) -> tuple[str, str]:
    key, sep, rest = value.partition("=" if "=" in value else ":")
    if not sep or not key or not rest:
        raise argparse.ArgumentTypeError(f"{value!r} is not NAME=VALUE")
    return key, rest


def _threads(args: argparse.Namespace, clock: EmulatorClock):
    from .threads import ThreadsEmulator, ThreadsUser

    users = [ThreadsUser(uid, name) for uid, name in args.user] or None
    processing = {kind.upper(): float(seconds) for kind, seconds in args.processing_time}
    return ThreadsEmulator(args.client_id, args.client_secret, users=users, processing_seconds=processing,
                           host=args.host, port=args.port, clock=clock)


def _threads_settings(emulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": emulator.hosts_setting, "FANOUT_THREADS_CLIENT_ID": emulator.client_id,
            "FANOUT_THREADS_CLIENT_SECRET": emulator.client_secret}


def _threads_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client-id", default="threads-app-id")
    parser.add_argument("--client-secret", default="threads-app-secret")
    parser.add_argument("--user", action="append", type=_pair, default=[], metavar="ID:USERNAME",
                        help="a Threads user (repeatable; the first one consents); default 17841400000000001:emu_threads")
    parser.add_argument("--processing-time", action="append", type=_pair, default=[], metavar="TYPE=SECONDS",
                        help="how long TEXT, IMAGE, VIDEO or CAROUSEL containers stay IN_PROGRESS (default VIDEO=30)")


# Each platform: how to add its arguments, how to build it, and the settings to print once it listens.
PLATFORMS = {"threads": (_threads_arguments, _threads, _threads_settings)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.emulators", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="platform", required=True)
    for name, (add_arguments, _, _) in PLATFORMS.items():
        command = commands.add_parser(name, help=f"the {name} emulator")
        command.add_argument("--host", default="127.0.0.1")
        command.add_argument("--port", type=int, default=0, help="default: a free port")
        add_arguments(command)
    args = parser.parse_args(argv)
    _, build, settings_of = PLATFORMS[args.platform]
    try:
        emulator = build(args, EmulatorClock(follow_real_time=True))
    except ValueError as e:
        parser.error(str(e))
    stop = threading.Event()
    # Both set explicitly: a process started in the background of a shell (as CI does)
    # inherits SIGINT ignored, and Python then never raises KeyboardInterrupt.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with emulator:
        print(f"{args.platform} emulator on {emulator.base_url} (control: {emulator.base_url}/_emulator/)", flush=True)
        for name, value in settings_of(emulator).items():
            print(f"{name}={value}", flush=True)
        stop.wait()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
