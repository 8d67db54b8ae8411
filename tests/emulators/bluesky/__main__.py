"""Run the Bluesky emulator on its own: `python -m tests.emulators.bluesky --port 9210`.

Prints where it listens and the FANOUT_PLATFORM_HOSTS that sends Fanout to it (Bluesky has
no app to register: accounts sign in with a handle and an app password), then serves until
Ctrl-C or SIGTERM. Its clock follows real time; `POST /_emulator/advance {"seconds": N}`
still jumps ahead. `python -m tests.emulators all` builds it with the same arguments.
"""
from __future__ import annotations

import argparse
import sys

from ..clock import EmulatorClock
from ..serving import run_alone, setting_lines
from .emulator import BlueskyEmulator
from .state import BlueskyAccount


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--account", action="append", default=[], metavar="HANDLE:APP_PASSWORD",
                        help="an account (repeatable); default emu.bsky.social:abcd-efgh-ijkl-mnop")
    parser.add_argument("--processing-time", type=float, default=10, metavar="SECONDS",
                        help="how long a video takes on the video service (default 10)")


def build(args: argparse.Namespace, clock: EmulatorClock) -> BlueskyEmulator:
    """The emulator of `args`; ValueError for an --account that is not HANDLE:APP_PASSWORD."""
    accounts = None
    if args.account:
        accounts = []
        for n, pair in enumerate(args.account, 1):
            handle, sep, password = pair.partition(":")
            if not sep or not handle or not password:
                raise ValueError(f"--account {pair!r} is not HANDLE:APP_PASSWORD")
            accounts.append(BlueskyAccount(f"did:plc:emu{n:021d}".replace("0", "a").replace("1", "b")[:32],
                                           handle, app_passwords=(password,)))
    return BlueskyEmulator(accounts=accounts, processing_seconds=args.processing_time, host=args.host,
                           port=args.port, clock=clock)


def settings(server: BlueskyEmulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": server.hosts_setting}


def main(argv: list[str] | None = None) -> int:
    return run_alone("bluesky", __doc__.splitlines()[0], add_arguments, build, lambda server: [
        *(f"account {a.handle} ({a.did}), app password {a.app_passwords[0]}" for a in server.accounts),
        *setting_lines(settings)(server),
    ], argv)


if __name__ == "__main__":
    sys.exit(main())
