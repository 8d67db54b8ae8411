"""The `fanout` command: run the service and manage workspaces and keys.

Human-readable output by default; with `--json` every command prints exactly one JSON
value on stdout, the error object on failure. Failures (the Problems of fanout/problems.py)
exit 1 with a one-line reason.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import logging
import os
import signal
import sys
from urllib.parse import urlencode, urlsplit

from . import __version__
from .core_settings import NAMED
from .ops import metrics_dir
from .ops.announced import announce, announced
from .ops.supervise import WORKER_GRACE, WorkerProcess, stop_with_parent
from .plans import DEFAULT_PLAN, PLANS
from .problems import InternalError, InvalidRequest, InvalidSetting, NoDatabase, NotFound, NotStarted, Problem, SchemaOutOfDate
from .settings import Settings, SettingsError, sqlite_path
from .times import isoformat

log = logging.getLogger("fanout.cli")

# Seconds an idle worker thread waits between two looks at the SQLite queue. Huey's default
# backs off to 10 s, so the first post after a quiet spell waited seconds; a look is one
# indexed `select 1 ... limit 1` without a lock (bench/README.md has its CPU cost). A Redis
# queue blocks on BRPOP instead and never polls.
IDLE_POLL = 0.05


def _boot(settings: Settings, *, creates_schema: bool = False):
    """Bind the database and install the runtime, for a command that needs the schema in
    place unless it `creates_schema`. A command that needs it stops before creating
    anything where there is no database, and says where it looked."""
    from .boot import boot

    if not creates_schema:
        _require_database(settings)
    rt = boot(settings)
    if not creates_schema:
        _require_current_schema(settings)
    return rt


def _where(settings: Settings) -> tuple[str, str]:
    """Where the database is, for messages, and the setting that would move it."""
    if settings.database_url.startswith("sqlite:"):
        path = sqlite_path(settings.database_url)
        if os.environ.get("FANOUT_DATABASE_URL"):
            return f"{path} (from FANOUT_DATABASE_URL)", "FANOUT_DATABASE_URL"
        if os.environ.get("FANOUT_DATA_DIR"):
            return f"{path} (in FANOUT_DATA_DIR)", "FANOUT_DATA_DIR"
        return f"{path} (in the default data folder {NAMED['FANOUT_DATA_DIR'].default})", "FANOUT_DATA_DIR"
    parts = urlsplit(settings.database_url)
    return f"postgresql://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}", "FANOUT_DATABASE_URL"


def _require_database(settings: Settings) -> None:
    if settings.database_url.startswith("sqlite:") and not sqlite_path(settings.database_url).exists():
        where, setting = _where(settings)
        raise NoDatabase(
            f"no database at {where}: run `fanout migrate` to create it, or set {setting} to where yours is"
        )


def _require_current_schema(settings: Settings) -> None:
    from .models.schema import pending

    missing = pending()
    if missing:
        where, _ = _where(settings)
        raise SchemaOutOfDate(
            f"the database at {where} needs migrations {', '.join(missing)}: run `fanout migrate`"
        )


# --- running the service ---------------------------------------------------------------


def _settings_for_listener(settings: Settings, host: str, port: int) -> Settings:
    """Without FANOUT_BASE_URL, links point at the address the server listens on; either
    way the data folder is told, for `dashboard-link` (fanout/ops/announced.py)."""
    if "FANOUT_BASE_URL" not in os.environ:
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        base = f"http://{shown}:{port}"
        os.environ["FANOUT_BASE_URL"] = base  # for child processes
        settings = settings.with_base_url(base, os.environ.get("FANOUT_CONNECT_URL"))
    announce(settings.data_dir, settings.base_url)
    return settings


def cmd_migrate(args, settings):
    from .models.schema import migrate

    _boot(settings, creates_schema=True)
    applied = migrate()
    return {"applied": applied}, (f"applied {', '.join(applied)}" if applied else "the database is up to date")


def cmd_serve(args, settings):
    from .models.schema import migrate

    settings = _settings_for_listener(settings, args.host, args.port)
    metrics_dir.prepare(settings.data_dir, clean=True)  # before _boot imports prometheus_client
    _boot(settings, creates_schema=True)
    applied = migrate()
    if applied:
        log.info("applied migrations %s", ", ".join(applied))
    worker = WorkerProcess([
        sys.executable, "-m", "fanout", "worker", "--threads", str(args.threads), "--parent-pid", str(os.getpid()),
    ])
    _on_stop_signals(_raise_stop)
    try:
        worker.start()
        _serve_api(settings, args.host, args.port, workers=1)
    finally:
        # A second SIGTERM or SIGINT while the worker finishes its tasks: stop it now.
        _on_stop_signals(lambda signum, frame: worker.kill())
        worker.stop()
    return None, None


def cmd_api(args, settings):
    settings = _settings_for_listener(settings, args.host, args.port)
    metrics_dir.prepare(settings.data_dir, clean=True)  # before _boot imports prometheus_client
    _boot(settings)
    _on_stop_signals(_raise_stop)
    _serve_api(settings, args.host, args.port, workers=args.processes)
    return None, None


class _StopRequested(Exception):
    """SIGTERM or SIGINT reached `serve` or `api`: serving stops, and the command succeeds."""


def _raise_stop(signum, frame):
    raise _StopRequested(signal.Signals(signum).name)


def _on_stop_signals(handler) -> None:
    # Uvicorn takes these signals over while it serves and, once it has stopped gracefully,
    # raises them again for the handler it found: without this one SIGTERM would end the
    # process there, before `serve` stops its worker.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, handler)


def _serve_api(settings: Settings, host: str, port: int, workers: int) -> None:
    """`_run_api`, failing with exit 1 like any command when the API cannot start (uvicorn
    logs why, then exits 3 or 1)."""
    try:
        _run_api(settings, host, port, workers=workers)
    except SystemExit as e:
        if e.code not in (None, 0):
            raise NotStarted(f"the API did not start on {host}:{port} (the reason is logged above)") from None


def _run_api(settings: Settings, host: str, port: int, workers: int) -> None:
    import uvicorn

    def serving() -> None:
        log.info("serving the API on http://%s:%d (base URL %s)", host, port, settings.base_url)

    # h11 with a bounded request head, not httptools: see fanout/http/server.py.
    # In-flight requests get 3 s on shutdown, so `serve` (then 31 s for its worker) stops
    # within the 35 s the README promises.
    options = dict(host=host, port=port, access_log=False, log_config=None, http="fanout.http.server:FanoutH11Protocol",
                   timeout_graceful_shutdown=3)
    if workers > 1:
        serving()  # the supervisor binds the socket before it starts the workers
        # Each worker process imports fanout.asgi and builds its app from the environment.
        uvicorn.run("fanout.asgi:app", workers=workers, **options)
        return
    from .app import create_app
    from .http.server import ListeningServer
    from .runtime import current

    # What uvicorn.run does with one worker, but saying "serving" once the socket listens.
    server = ListeningServer(uvicorn.Config(create_app(settings, current()), **options), when_listening=serving)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if not server.started:
        sys.exit(3)  # uvicorn's STARTUP_FAILURE, as uvicorn.run exits


def cmd_worker(args, settings):
    if args.parent_pid is not None and args.parent_pid != os.getppid():
        # Checked now: the watch would otherwise stop the worker as soon as it started.
        raise InvalidRequest(f"--parent-pid {args.parent_pid} is not this worker's parent "
                             f"(pid {os.getppid()}); it is for `fanout serve`, which passes its own")
    stop_with_parent(args.parent_pid)
    # Its metrics join those of the API processes sharing the data folder; the folder is
    # theirs to clean, since they serve it.
    metrics_dir.prepare(settings.data_dir, clean=False)
    rt = _boot(settings)
    from . import tasks
    from .tasks.heartbeat import Heartbeat
    from .tasks.publishing import sweep
    from .tasks.webhooks import threaded_lane

    # Webhook attempts run on the lane's threads, so publishing never waits behind them.
    rt.lane = threaded_lane(rt).start()
    consumer = tasks.consumer(rt.queue, workers=args.threads, worker_type="thread", periodic=True,
                              shutdown_timeout=WORKER_GRACE, max_delay=IDLE_POLL)
    # Service managers stop with SIGTERM, which Huey takes as "interrupt running tasks";
    # let them finish instead, as on SIGINT. A task still running after 30 s is left to
    # its lease: the sweeper takes its target back.
    consumer._signal_actions[signal.SIGTERM] = (False, True)
    # Huey sets its handlers only once its worker threads run, so a SIGTERM meeting the
    # first task ended the process there and then (tests/test_worker.py,
    # test_sigterm_lets_the_running_task_finish, answered -15). Set now, a stop signal
    # from here on is kept and acted on, gracefully, once the consumer runs.
    consumer._set_signal_handlers()
    # Take back at once what a killed worker left behind, rather than at the next minute,
    # and start what fell due while no worker ran (a scheduled post's time).
    sweep(rt, stale=_dt.timedelta(0))
    heartbeat = Heartbeat(rt).start()
    log.info("queue worker running with %d thread(s) and %d delivery slots, as %s", args.threads, rt.lane.slots,
             heartbeat.worker_id)
    try:
        consumer.run()
        # Attempts have a 10-second deadline; one cut short is retried from the database.
        rt.lane.stop(timeout=12)
    finally:
        heartbeat.stop()
    return None, None


def cmd_listen(args, settings):
    import threading
    import time

    from .ops.listen import Listener, as_json, as_text

    def show(received) -> None:
        print(as_json(received) if args.json else as_text(received) + "\n", flush=True)

    # The stop signals are taken with sigwait, never by a handler: one raising in the
    # serving loop could land inside socketserver, which would swallow it. Blocked before
    # any thread starts, so every thread inherits the mask and only sigwait sees them.
    stop_signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    try:
        try:
            listener = Listener(args.host, args.port, args.secret, show, clock=time.time)
        except OSError as e:
            raise NotStarted(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
        threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        # With --json, stdout holds only deliveries; the banner goes where logs go.
        signed_with = "this secret" if len(args.secret) == 1 else f"any of these {len(args.secret)} secrets"
        print(f"listening on {listener.url} (any path): 204 to deliveries signed with {signed_with}, "
              f"401 to bad signatures, 400 to unreadable bodies; Ctrl-C stops",
              file=sys.stderr if args.json else sys.stdout, flush=True)
        received = signal.sigwait(stop_signals)
        log.info("stopped on %s", signal.Signals(received).name)
        for signum in stop_signals:  # a second Ctrl-C while stopping changes nothing
            signal.signal(signum, signal.SIG_IGN)
        listener.shutdown()
        listener.server_close()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
    return None, None


# --- workspaces and keys -----------------------------------------------------------------


def _workspace_view(ws) -> dict:
    return {"id": ws.id, "name": ws.name, "plan": ws.plan, "created_at": isoformat(ws.created_at)}


def _table(header: tuple[str, ...] | None, rows: list[tuple[str, ...]]) -> str:
    """`rows` in aligned columns under `header` (None: no header line); the last column is
    not padded, as it may hold spaces."""
    lines = ([header] if header else []) + rows
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]) - 1)]
    return "\n".join("  ".join([*(v.ljust(w) for v, w in zip(line, widths)), line[-1]]) for line in lines)


def _workspace_table(rows: list[dict], header: bool = True) -> str:
    """Workspaces in aligned columns, the same for every command; the name last."""
    return _table(("ID", "PLAN", "CREATED", "NAME") if header else None,
                  [(w["id"], w["plan"], w["created_at"], w["name"]) for w in rows])


def _key_table(rows: list[dict]) -> str:
    """Keys in aligned columns under a header, like workspaces; never the key strings."""
    return _table(("ID", "MODE", "PREFIX", "CREATED", "STATUS"), [
        (k["id"], k["mode"], f"{k['prefix']}…", k["created_at"], f"revoked {k['revoked_at']}" if k["revoked_at"] else "active")
        for k in rows
    ])


def _key_view(key) -> dict:
    return {
        "id": key.id,
        "workspace_id": key.workspace_id,
        "mode": key.mode,
        "prefix": key.prefix,
        "name": key.name,
        "created_at": isoformat(key.created_at),
        "last_used_at": isoformat(key.last_used_at),
        "revoked_at": isoformat(key.revoked_at),
    }


def cmd_workspace_create(args, settings):
    from .models import db
    from .models.workspace import create_workspace

    rt = _boot(settings)
    with db.connection_context():
        ws = create_workspace(rt, args.name, args.plan)
    view = _workspace_view(ws)
    return view, _workspace_table([view], header=False)


def cmd_workspace_list(args, settings):
    from .models import Workspace, db

    _boot(settings)
    with db.connection_context():
        rows = [_workspace_view(w) for w in Workspace.select().order_by(Workspace.created_at.desc(), Workspace.id.desc())]
    return rows, _workspace_table(rows) if rows else "no workspaces"


def cmd_workspace_set_plan(args, settings):
    from .models import db
    from .models.workspace import set_plan

    _boot(settings)
    with db.connection_context():
        ws = set_plan(args.workspace_id, args.plan)
    return _workspace_view(ws), f"{ws.id} is now on {ws.plan}"


def cmd_key_create(args, settings):
    from .models import db
    from .models.api_key import create_key

    rt = _boot(settings)
    with db.connection_context():
        key, key_string = create_key(rt, args.workspace_id, args.mode, name=args.name)
    value = {
        "id": key.id,
        "key": key_string,
        "mode": key.mode,
        "workspace_id": key.workspace_id,
        "created_at": isoformat(key.created_at),
    }
    text = f"{key_string}\n(key {key.id}, {key.mode} mode) This is the only time the key is shown; store it now."
    return value, text


def cmd_key_list(args, settings):
    from .models import Workspace, db
    from .models.api_key import list_keys

    _boot(settings)
    with db.connection_context():
        if Workspace.get_or_none(Workspace.id == args.workspace_id) is None:
            raise NotFound(f"no workspace {args.workspace_id}")
        rows = [_key_view(k) for k in list_keys(args.workspace_id)]
    return rows, _key_table(rows) if rows else "no keys"


def cmd_key_revoke(args, settings):
    from .models import db
    from .models.api_key import revoke_key

    rt = _boot(settings)
    with db.connection_context():
        key = revoke_key(rt, args.key_id)
    return _key_view(key), f"revoked {key.id}"


def _dashboard_base_url(settings: Settings) -> str:
    """FANOUT_BASE_URL, else the URL the data folder's server announced as it started."""
    if "FANOUT_BASE_URL" in os.environ:
        return settings.base_url
    base = announced(settings.data_dir)
    if base is None:
        raise InvalidSetting(
            f"no server has started with the data folder {settings.data_dir}, so the link's address is unknown: "
            "set FANOUT_BASE_URL to the address people open the server at (e.g. https://fanout.example.org), "
            "or start `fanout serve` first"
        )
    return base


def cmd_dashboard_link(args, settings):
    from .models import Workspace, db
    from .models.dashboard import new_link

    rt = _boot(settings)
    with db.connection_context():
        if Workspace.get_or_none(Workspace.id == args.workspace_id) is None:
            raise NotFound(f"no workspace {args.workspace_id}")
        base_url = _dashboard_base_url(settings)
        token, expires_at = new_link(rt, args.workspace_id)
    url = f"{base_url}/dashboard/sign-in?{urlencode({'token': token})}"
    value = {"url": url, "workspace_id": args.workspace_id, "expires_at": isoformat(expires_at)}
    return value, f"{url}\nOpen it in a browser before {isoformat(expires_at)} (15 minutes); it signs in once."


def cmd_dashboard_revoke(args, settings):
    from .models import db
    from .models.dashboard import revoke

    _boot(settings)
    with db.connection_context():
        sessions, links = revoke(args.workspace_id)
    value = {"workspace_id": args.workspace_id, "sessions_ended": sessions, "links_voided": links}
    return value, (f"ended {sessions} dashboard session{'' if sessions == 1 else 's'} and voided {links} unused "
                   f"sign-in link{'' if links == 1 else 's'} of {args.workspace_id}")


# --- parsing -----------------------------------------------------------------------------


class _HelpFormatter(argparse.HelpFormatter):
    """Help that names each option's default where it has one (not for flags and unset options)."""

    def _get_help_string(self, action):
        help = action.help or ""
        if action.option_strings and action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in help:
            help += " (default: %(default)s)"
        return help


class _Renamed(argparse.Action):
    """An option's old name, kept working with a warning: `--workers` meant server processes
    for `api` and threads for `serve` and `worker`, so each now says which."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: {option_string} is deprecated and will be removed; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON value on stdout")

    parser = argparse.ArgumentParser(prog="fanout", description="Fanout: social publishing API", formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"fanout {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(parent, name: str, **kwargs) -> argparse.ArgumentParser:
        return parent.add_parser(name, formatter_class=_HelpFormatter, **kwargs)

    def listener(p, port: int) -> None:
        p.add_argument("--host", default="127.0.0.1", help="address to listen on")
        p.add_argument("--port", type=int, default=port, help="port to listen on")

    def threads(p, default: int) -> None:
        p.add_argument("--threads", type=_positive, default=default, metavar="N", help="queue worker threads")
        p.add_argument("--workers", type=_positive, dest="threads", action=_Renamed, new="--threads")

    p = command(sub, "serve", parents=[common], help="API + connect pages + a queue worker (embedded default)")
    listener(p, 8000)
    threads(p, 2)
    p.set_defaults(fn=cmd_serve)

    p = command(sub, "api", parents=[common], help="API processes only")
    listener(p, 8000)
    p.add_argument("--processes", type=_positive, default=1, metavar="N", help="API server processes")
    p.add_argument("--workers", type=_positive, dest="processes", action=_Renamed, new="--processes")
    p.set_defaults(fn=cmd_api)

    p = command(sub, "worker", parents=[common], help="queue consumer only")
    threads(p, 4)
    p.add_argument("--parent-pid", type=int, metavar="PID", help="stop once process PID is no longer this worker's parent (fanout serve passes its own)")
    p.set_defaults(fn=cmd_worker)

    p = command(sub, "listen", help="receive webhooks locally, print them and check their signatures")
    p.add_argument("--json", action="store_true", help="print one JSON object a delivery, a line each")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=9000, help="port to listen on, 0 for a free one (the first line names it)")
    p.add_argument("--secret", type=_webhook_secret, required=True, action="append", metavar="whsec_...",
                   help="the registration's secret, as POST /v1/webhooks (or rotate-secret) returned it; "
                        "repeat it during a rotation: a signature made with any of them is valid")
    p.set_defaults(fn=cmd_listen)

    p = command(sub, "migrate", parents=[common], help="create or upgrade the database schema")
    p.set_defaults(fn=cmd_migrate)

    ws = command(sub, "workspace", help="manage workspaces").add_subparsers(dest="action", required=True, metavar="ACTION")
    p = command(ws, "create", parents=[common], help="create a workspace")
    p.add_argument("name", help="the workspace's name")
    p.add_argument("--plan", type=str.upper, choices=list(PLANS), default=DEFAULT_PLAN, help="the workspace's plan")
    p.set_defaults(fn=cmd_workspace_create)
    p = command(ws, "list", parents=[common], help="list workspaces")
    p.set_defaults(fn=cmd_workspace_list)
    p = command(ws, "set-plan", parents=[common], help="change a workspace's plan")
    p.add_argument("workspace_id", help="ws_...")
    p.add_argument("plan", type=str.upper, choices=list(PLANS), help="the new plan")
    p.set_defaults(fn=cmd_workspace_set_plan)

    keys = command(sub, "key", help="manage API keys").add_subparsers(dest="action", required=True, metavar="ACTION")
    p = command(keys, "create", parents=[common], help="create a key (printed once)")
    p.add_argument("workspace_id", help="ws_...")
    p.add_argument("--mode", choices=["live", "sandbox"], required=True, help="live keys publish; sandbox keys never call a platform")
    p.add_argument("--name", help="what uses the key, shown in the dashboard's key list")
    p.set_defaults(fn=cmd_key_create)
    p = command(keys, "list", parents=[common], help="list a workspace's keys (never the key strings)")
    p.add_argument("workspace_id", help="ws_...")
    p.set_defaults(fn=cmd_key_list)
    p = command(keys, "revoke", parents=[common], help="revoke a key; refused from the next request on")
    p.add_argument("key_id", help="key_...")
    p.set_defaults(fn=cmd_key_revoke)

    p = command(sub, "dashboard-link", parents=[common],
                help="print a sign-in link to a workspace's dashboard (one use, 15 minutes)")
    p.add_argument("workspace_id", help="ws_...")
    p.set_defaults(fn=cmd_dashboard_link)
    p = command(sub, "dashboard-revoke", parents=[common],
                help="end every dashboard session of a workspace and void its unused sign-in links")
    p.add_argument("workspace_id", help="ws_...")
    p.set_defaults(fn=cmd_dashboard_revoke)
    return parser


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _webhook_secret(value: str) -> str:
    from .security.signing import check_secret

    try:
        return check_secret(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv: list[str] | None = None) -> int:
    from .http.requestlog import configure_logging

    args = build_parser().parse_args(argv)
    long_running = args.command in ("serve", "api", "worker", "listen")
    try:
        settings = Settings.from_env()
        configure_logging("INFO" if long_running else "WARNING", settings.log_format)
        value, text = args.fn(args, settings)
    except SettingsError as e:
        return _fail(args, InvalidSetting(str(e)))
    except Problem as e:
        return _fail(args, e)
    except _StopRequested as stop:
        log.info("stopped on %s", stop)
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a one-line reason, not a traceback, for operators
        log.debug("command failed", exc_info=True)
        return _fail(args, InternalError(f"{type(e).__name__}: {e}"))
    if not long_running:
        print(json.dumps(value) if args.json else text)
    return 0


def _fail(args, problem: Problem) -> int:
    """The error object on stdout with --json, else the message on stderr; exit status 1."""
    if getattr(args, "json", False):
        print(json.dumps({"error": {"code": problem.code, "message": problem.message}}))
    else:
        print(f"fanout: {problem.message}", file=sys.stderr)
    return 1
