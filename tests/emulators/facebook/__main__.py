"""Run the Facebook emulator on its own: `python -m tests.emulators.facebook --port 9230`.

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
from .emulator import FacebookEmulator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client-id", default="facebook-app-id")
    parser.add_argument("--client-secret", default="facebook-app-secret")
    parser.add_argument("--page", action="append", default=[], metavar="NAME",
                        help="another Page the default user (Emu Facebook) manages (repeatable); with one or more, "
                             "the connect flow offers a choice of Pages")


def build(args: argparse.Namespace, clock: EmulatorClock) -> FacebookEmulator:
    server = FacebookEmulator(args.client_id, args.client_secret, host=args.host, port=args.port, clock=clock)
    for name in args.page:
        server.add_page(FacebookEmulator.DEFAULT_USER.id, name)
    return server


def settings(server: FacebookEmulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": server.hosts_setting, "FANOUT_FACEBOOK_CLIENT_ID": server.client_id,
            "FANOUT_FACEBOOK_CLIENT_SECRET": server.client_secret}


def main(argv: list[str] | None = None) -> int:
    return run_alone("facebook", __doc__.splitlines()[0], add_arguments, build, setting_lines(settings), argv)

if __name__ == "__main__":
    sys.exit(main())
