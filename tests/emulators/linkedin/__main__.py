"""Run the LinkedIn emulator on its own: `python -m tests.emulators.linkedin --port 9220`.

Prints where it listens and the settings that send Fanout to it, then serves until Ctrl-C
or SIGTERM. Its clock follows real time, so media finish processing by themselves;
`POST /_emulator/advance {"seconds": N}` still jumps ahead. `python -m tests.emulators all`
builds it with the same arguments.
"""
from __future__ import annotations

import argparse
import sys

from ..clock import EmulatorClock
from ..serving import run_alone, setting_lines
from .emulator import LinkedInEmulator
from .state import LinkedInMember


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client-id", default="linkedin-app-id")
    parser.add_argument("--client-secret", default="linkedin-app-secret")
    parser.add_argument("--member", action="append", default=[], metavar="SUB:NAME",
                        help="a member (repeatable; the first one consents); default emuLiMember01:Emu Linked")
    parser.add_argument("--refresh-tokens", action="store_true",
                        help="an app approved for programmatic refresh tokens")


def build(args: argparse.Namespace, clock: EmulatorClock) -> LinkedInEmulator:
    """The emulator of `args`; ValueError for a --member that is not SUB:NAME."""
    members = None
    if args.member:
        members = []
        for pair in args.member:
            sub, sep, name = pair.partition(":")
            if not sep or not sub or not name:
                raise ValueError(f"--member {pair!r} is not SUB:NAME")
            members.append(LinkedInMember(sub, name))
    return LinkedInEmulator(args.client_id, args.client_secret, members=members, refresh_tokens=args.refresh_tokens,
                            host=args.host, port=args.port, clock=clock)


def settings(server: LinkedInEmulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": server.hosts_setting, "FANOUT_LINKEDIN_CLIENT_ID": server.client_id,
            "FANOUT_LINKEDIN_CLIENT_SECRET": server.client_secret}


def main(argv: list[str] | None = None) -> int:
    return run_alone("linkedin", __doc__.splitlines()[0], add_arguments, build, setting_lines(settings), argv)


if __name__ == "__main__":
    sys.exit(main())
