"""Run an emulator on its own: `python -m tests.emulators threads|instagram|x|tiktok --port 9200`.

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


def _emulator(module: str, class_name: str, user_class: str, options=None):
    """How to build an emulator from its arguments; `options(args, processing)` gives the
    keyword arguments of its own (default: `processing_seconds`, the processing times by type)."""
    def build(args: argparse.Namespace, clock: EmulatorClock):
        from importlib import import_module

        found = import_module(f"{__package__}.{module}")
        user = getattr(found, user_class)
        users = [user(uid, *rest.split(":")) for uid, rest in args.user] or None
        processing = {kind.upper(): float(seconds) for kind, seconds in args.processing_time}
        extra = options(args, processing) if options else {"processing_seconds": processing}
        return getattr(found, class_name)(args.client_id, args.client_secret, users=users, host=args.host,
                                          port=args.port, clock=clock, **extra)
    return build


def _settings(prefix: str):
    def settings(emulator) -> dict[str, str]:
        return {"FANOUT_PLATFORM_HOSTS": emulator.hosts_setting, f"FANOUT_{prefix}_CLIENT_ID": emulator.client_id,
                f"FANOUT_{prefix}_CLIENT_SECRET": emulator.client_secret}
    return settings


def _arguments(app: str, user: str, user_help: str, processing_help: str):
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--client-id", default=f"{app}-app-id")
        parser.add_argument("--client-secret", default=f"{app}-app-secret")
        parser.add_argument("--user", action="append", type=_pair, default=[], metavar=user,
                            help=f"a user (repeatable; the first one consents); {user_help}")
        parser.add_argument("--processing-time", action="append", type=_pair, default=[], metavar="TYPE=SECONDS",
                            help=processing_help)
    return add


def _tiktok_arguments(parser: argparse.ArgumentParser) -> None:
    _arguments("tiktok", "OPEN_ID:USERNAME[:NICKNAME]", "default -000emuTikTokOpenId0001:emu_tiktok:Emu TikTok "
               "(an open_id starting with '-' is given as --user=OPEN_ID:...)",
               "publish=SECONDS from the last byte to PUBLISH_COMPLETE (default 5), moderation=SECONDS from then to "
               "the public post id (default 0)")(parser)
    parser.add_argument("--verified", action="append", default=[], metavar="DOMAIN",
                        help="a host PULL_FROM_URL may pull from (repeatable), e.g. 127.0.0.1 for a local media server")
    parser.add_argument("--unaudited", action="store_true", help="an unaudited app: SELF_ONLY posts only")


def _tiktok_options(args: argparse.Namespace, processing: dict[str, float]) -> dict:
    unknown = set(processing) - {"PUBLISH", "MODERATION"}
    if unknown:
        raise ValueError(f"--processing-time takes publish= and moderation=, not {', '.join(sorted(unknown))}")
    return {"processing_seconds": processing.get("PUBLISH", 5.0),
            "moderation_seconds": processing.get("MODERATION", 0.0), "verified_domains": args.verified,
            "unaudited": args.unaudited}


def _tiktok_settings(emulator) -> dict[str, str]:
    """The shared three, and the verified hosts the service must know to pull rather than upload."""
    settings = _settings("TIKTOK")(emulator)
    if emulator.verified_domains:
        settings["FANOUT_TIKTOK_VERIFIED_DOMAINS"] = ",".join(emulator.verified_domains)
    return settings


# Each platform: how to add its arguments, how to build it, and the settings to print once it listens.
PLATFORMS = {
    "threads": (_arguments("threads", "ID:USERNAME", "default 17841400000000001:emu_threads",
                           "how long TEXT, IMAGE, VIDEO or CAROUSEL containers stay IN_PROGRESS (default VIDEO=30)"),
                _emulator("threads", "ThreadsEmulator", "ThreadsUser"), _settings("THREADS")),
    "instagram": (_arguments("instagram", "ID:USERNAME[:ACCOUNT_TYPE]",
                             "default 17841400000000002:emu_instagram:BUSINESS",
                             "how long IMAGE, VIDEO (Reels and video items) or CAROUSEL containers stay IN_PROGRESS "
                             "(default VIDEO=30)"),
                  _emulator("instagram", "InstagramEmulator", "InstagramUser"), _settings("INSTAGRAM")),
    "x": (_arguments("x", "ID:USERNAME[:NAME]", "default 1600000000000000001:emu_x:Emu X",
                     "how long tweet_video or tweet_gif media process (default tweet_video=10, tweet_gif=2)"),
          _emulator("x", "XEmulator", "XUser"), _settings("X")),
    "tiktok": (_tiktok_arguments, _emulator("tiktok", "TikTokEmulator", "TikTokUser", _tiktok_options),
               _tiktok_settings),
}


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
