"""Run the YouTube emulator on its own: `python -m tests.emulators.youtube --port 9230`.

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
from .emulator import YouTubeEmulator
from .state import GoogleUser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--client-id", default="youtube-app-id")
    parser.add_argument("--client-secret", default="youtube-app-secret")
    parser.add_argument("--user", action="append", default=[], metavar="SUB:NAME:@HANDLE",
                        help="a Google account with a channel of that handle (repeatable; the first one consents); "
                             "default 108000000000000000001:Emu YouTube:@emu_youtube")
    parser.add_argument("--unaudited", action="store_true",
                        help="an API project Google has not audited: every upload is locked private")
    parser.add_argument("--quota-model", choices=("buckets", "units"), default="buckets",
                        help="videos.insert in a bucket of its own of 100 a day (default), or 1,600 of the 10,000 units")


def build(args: argparse.Namespace, clock: EmulatorClock) -> YouTubeEmulator:
    """The emulator of `args`; ValueError for a --user that is not SUB:NAME:@HANDLE."""
    users = None
    if args.user:
        users = []
        for given in args.user:
            sub, name, handle = (given.split(":") + ["", ""])[:3]
            if not sub or not name or not handle.startswith("@"):
                raise ValueError(f"--user {given!r} is not SUB:NAME:@HANDLE")
            users.append(GoogleUser(sub, name, "", f"UC{sub[-22:]:0>22}", handle))
    return YouTubeEmulator(args.client_id, args.client_secret, users=users, audited=not args.unaudited,
                           quota_model=args.quota_model, host=args.host, port=args.port, clock=clock)


def settings(server: YouTubeEmulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": server.hosts_setting, "FANOUT_YOUTUBE_CLIENT_ID": server.client_id,
            "FANOUT_YOUTUBE_CLIENT_SECRET": server.client_secret}


def main(argv: list[str] | None = None) -> int:
    return run_alone("youtube", __doc__.splitlines()[0], add_arguments, build, setting_lines(settings), argv)


if __name__ == "__main__":
    sys.exit(main())
