"""Run the Pinterest emulator on its own: `python -m tests.emulators.pinterest --port 9230`.

Prints where it listens and the settings that send Fanout to it, then serves until Ctrl-C
or SIGTERM. Its clock follows real time, so videos finish processing by themselves;
`POST /_emulator/advance {"seconds": N}` still jumps ahead. `python -m tests.emulators all`
builds it with the same arguments.
"""
from __future__ import annotations

import argparse
import sys

from ..clock import EmulatorClock
from ..serving import run_alone, setting_lines
from .emulator import PinterestEmulator
from .state import PinterestUser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client-id", default="pinterest-app-id")
    parser.add_argument("--client-secret", default="pinterest-app-secret")
    parser.add_argument("--user", action="append", default=[], metavar="ID:USERNAME",
                        help="a user (repeatable; the first one consents), with one board; "
                             "default 1150000000000000001:emu_pinterest")
    parser.add_argument("--board", action="append", default=[], metavar="NAME",
                        help="another board of the first user (repeatable)")
    parser.add_argument("--video-seconds", type=float, default=3, help="how long a video processes (default 3)")


def build(args: argparse.Namespace, clock: EmulatorClock) -> PinterestEmulator:
    """The emulator of `args`; ValueError for a --user that is not ID:USERNAME."""
    users = []
    for pair in args.user:
        user_id, sep, username = pair.partition(":")
        if not sep or not user_id.isdigit() or not username:
            raise ValueError(f"--user {pair!r} is not ID:USERNAME (the id in digits)")
        users.append(PinterestUser(user_id, username))
    users = users or [PinterestEmulator.DEFAULT_USER]
    boards = [(u.id, f"{u.username}'s board") for u in users] + [(users[0].id, name) for name in args.board]
    return PinterestEmulator(args.client_id, args.client_secret, users=users, boards=boards,
                             video_seconds=args.video_seconds, host=args.host, port=args.port, clock=clock)


def settings(server: PinterestEmulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": server.hosts_setting, "FANOUT_PINTEREST_CLIENT_ID": server.client_id,
            "FANOUT_PINTEREST_CLIENT_SECRET": server.client_secret}


def main(argv: list[str] | None = None) -> int:
    return run_alone("pinterest", __doc__.splitlines()[0], add_arguments, build, setting_lines(settings), argv)

if __name__ == "__main__":
    sys.exit(main())
