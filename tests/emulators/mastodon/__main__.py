"""Run the Mastodon emulator on its own: `python -m tests.emulators.mastodon --port 9230`.

Prints where it listens and the FANOUT_PLATFORM_HOSTS that sends Fanout to its domain (no
app to configure: Fanout registers its own on the instance), then serves until Ctrl-C or
SIGTERM. Its clock follows real time, so videos finish processing by themselves;
`POST /_emulator/advance {"seconds": N}` still jumps ahead. `python -m tests.emulators all`
builds it with the same arguments.
"""
from __future__ import annotations

import argparse
import sys

from ..clock import EmulatorClock
from ..serving import run_alone, setting_lines
from .emulator import DOMAIN, MastodonEmulator
from .state import MastodonAccount


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", default=DOMAIN, help=f"the instance's domain (default {DOMAIN})")
    parser.add_argument("--account", action="append", default=[], metavar="ID:USERNAME",
                        help="an account (repeatable; the first one consents); default 109000000000000001:emu")
    parser.add_argument("--max-characters", type=int, default=500, metavar="N",
                        help="the instance's character cap (default 500)")
    parser.add_argument("--video-seconds", type=float, default=10, metavar="SECONDS",
                        help="how long a video or GIF is processed (default 10)")


def build(args: argparse.Namespace, clock: EmulatorClock) -> MastodonEmulator:
    """The emulator of `args`; ValueError for an --account that is not ID:USERNAME."""
    accounts = None
    if args.account:
        accounts = []
        for pair in args.account:
            account_id, sep, username = pair.partition(":")
            if not sep or not account_id.isdigit() or not username:
                raise ValueError(f"--account {pair!r} is not ID:USERNAME (the id digits)")
            accounts.append(MastodonAccount(account_id, username))
    return MastodonEmulator(args.domain, accounts=accounts, max_characters=args.max_characters,
                            video_seconds=args.video_seconds, host=args.host, port=args.port, clock=clock)


def settings(server: MastodonEmulator) -> dict[str, str]:
    return {"FANOUT_PLATFORM_HOSTS": server.hosts_setting}


def main(argv: list[str] | None = None) -> int:
    return run_alone("mastodon", __doc__.splitlines()[0], add_arguments, build, lambda server: [
        f"instance {server.domain}, accounts {', '.join(f'{a.username}@{server.domain}' for a in server.accounts)}",
        *setting_lines(settings)(server)], argv)

if __name__ == "__main__":
    sys.exit(main())
