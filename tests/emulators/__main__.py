"""Run the emulators on their own: `python -m tests.emulators
threads|instagram|x|tiktok|bluesky|linkedin|facebook|youtube|pinterest|mastodon --port 9200` for one, `all --port 9200`
for every platform's and a media server, `media` for the media server alone.

Prints where each listens and the settings that send Fanout to them, then serves until
Ctrl-C (or SIGTERM). Their clock follows real time, so videos finish processing by
themselves; `POST /_emulator/advance {"seconds": N}` still jumps ahead.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from contextlib import ExitStack
from pathlib import Path

from .bluesky import __main__ as bluesky_command
from .clock import EmulatorClock
from .facebook import __main__ as facebook_command
from .linkedin import __main__ as linkedin_command
from .mastodon import __main__ as mastodon_command
from .pinterest import __main__ as pinterest_command
from .youtube import __main__ as youtube_command
from .serving import stop_on_signals


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
    # These have no app users of the shape above: their own commands say how they are built.
    "bluesky": (bluesky_command.add_arguments, bluesky_command.build, bluesky_command.settings),
    "linkedin": (linkedin_command.add_arguments, linkedin_command.build, linkedin_command.settings),
    "facebook": (facebook_command.add_arguments, facebook_command.build, facebook_command.settings),
    "youtube": (youtube_command.add_arguments, youtube_command.build, youtube_command.settings),
    "pinterest": (pinterest_command.add_arguments, pinterest_command.build, pinterest_command.settings),
    "mastodon": (mastodon_command.add_arguments, mastodon_command.build, mastodon_command.settings),
}


# `all`: each platform's emulator on a port of its own from --port on, in this order, then the media server.
EVERY_PLATFORM = tuple(PLATFORMS)


def _add_media_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--media-dir", type=Path, metavar="FOLDER",
                        help="also serve the files of FOLDER, each at /<its name>")


def _media_server(args: argparse.Namespace, port: int):
    from .media.server import sample_media_server

    server = sample_media_server(host=args.host, port=port)
    if args.media_dir:
        server.put_folder(args.media_dir)
    return server


def _every_platform(parser: argparse.ArgumentParser, args: argparse.Namespace, clock: EmulatorClock) -> list:
    """(name, server, how to read its settings) of every platform's emulator, each with its
    defaults (TikTok pulling from the media server's host), and of the media server."""
    servers = []
    for offset, name in enumerate(EVERY_PLATFORM):
        extra = ["--verified", args.host] if name == "tiktok" else []
        own = parser.parse_args([name, "--host", args.host, "--port", str(args.port + offset), *extra])
        _, build, settings_of = PLATFORMS[name]
        servers.append((name, build(own, clock), settings_of))
    servers.append(("media", _media_server(args, args.port + len(EVERY_PLATFORM)), None))
    return servers


def _settings_of(servers) -> dict[str, str]:
    """Every server's settings, the hosts of all in one FANOUT_PLATFORM_HOSTS."""
    merged: dict[str, str] = {}
    for _, server, settings_of in servers:
        for name, value in (settings_of(server) if settings_of else {}).items():
            merged[name] = f"{merged[name]},{value}" if name == "FANOUT_PLATFORM_HOSTS" and name in merged else value
    return merged


def _announce(name: str, server) -> str:
    if name == "media":
        return f"media server on {server.base_url}: {', '.join(server.paths)}"
    return f"{name} emulator on {server.base_url} (control: {server.base_url}/_emulator/)"


def _write_env_file(path: Path, settings: dict[str, str]) -> None:
    """The settings as `export` lines a shell sources; private, since they hold the apps' secrets."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.writelines(f"export {name}={shlex.quote(value)}\n" for name, value in settings.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.emulators", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="platform", required=True)
    for name, (add_arguments, _, _) in PLATFORMS.items():
        command = commands.add_parser(name, help=f"the {name} emulator")
        command.add_argument("--host", default="127.0.0.1")
        command.add_argument("--port", type=int, default=0, help="default: a free port")
        add_arguments(command)
    every = commands.add_parser("all", help="every platform's emulator and a media server, each with its defaults")
    every.add_argument("--host", default="127.0.0.1")
    every.add_argument("--port", type=int, default=9200,
                       help=f"the emulators on PORT and the ports after it, in the order {', '.join(EVERY_PLATFORM)}, "
                            "then the media server (default 9200)")
    every.add_argument("--env-file", type=Path, metavar="PATH",
                       help="also write the settings to PATH as export lines to source (mode 600), removed on exit")
    _add_media_arguments(every)
    media = commands.add_parser("media", help="a media server of sample files (and a folder's)")
    media.add_argument("--host", default="127.0.0.1")
    media.add_argument("--port", type=int, default=0, help="default: a free port")
    _add_media_arguments(media)
    args = parser.parse_args(argv)
    if getattr(args, "media_dir", None) and not args.media_dir.is_dir():
        parser.error(f"--media-dir {args.media_dir} is not a folder")
    clock = EmulatorClock(follow_real_time=True)
    try:
        if args.platform == "all":
            servers = _every_platform(parser, args, clock)
        elif args.platform == "media":
            servers = [("media", _media_server(args, args.port), None)]
        else:
            _, build, settings_of = PLATFORMS[args.platform]
            servers = [(args.platform, build(args, clock), settings_of)]
    except ValueError as e:
        parser.error(str(e))
    stop = stop_on_signals()
    with ExitStack() as running:
        for name, server, _ in servers:
            try:
                running.enter_context(server)
            except OSError as e:
                print(f"the {name} server cannot listen on {server.host}:{server.port}: {e.strerror}", file=sys.stderr)
                return 1
        for name, server, _ in servers:
            print(_announce(name, server), flush=True)
        settings = _settings_of(servers)
        prefix = "export " if args.platform == "all" else ""
        for name, value in settings.items():
            print(f"{prefix}{name}={shlex.quote(value) if prefix else value}", flush=True)
        env_file = getattr(args, "env_file", None)
        if env_file:
            _write_env_file(env_file, settings)
            running.callback(env_file.unlink, missing_ok=True)
            print(f"settings written to {env_file} (removed when the emulators stop)", flush=True)
        stop.wait()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
