"""The `fanout` command: run the service and manage workspaces and keys.

Human-readable output by default; with `--json` every command prints exactly one JSON
value on stdout, the error object on failure. Failures exit 1 with a one-line reason.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time

from .plans import PLANS
from .settings import Settings, SettingsError
from .times import isoformat

log = logging.getLogger("fanout.cli")


class CommandError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _boot(settings: Settings):
    from .app import boot

    return boot(settings)


def _require_current_schema() -> None:
    from .models.schema import pending

    missing = pending()
    if missing:
        raise CommandError("schema_out_of_date", f"the database needs migrations {', '.join(missing)}: run `fanout migrate`")


# --- running the service ---------------------------------------------------------------


def _settings_for_listener(settings: Settings, host: str, port: int) -> Settings:
    """Without FANOUT_BASE_URL, links point at the address the server listens on."""
    if "FANOUT_BASE_URL" in os.environ:
        return settings
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    os.environ["FANOUT_BASE_URL"] = base  # for child processes
    return settings.with_base_url(base, os.environ.get("FANOUT_CONNECT_URL"))


def cmd_migrate(args, settings):
    from .models.schema import migrate

    _boot(settings)
    applied = migrate()
    return {"applied": applied}, (f"applied {', '.join(applied)}" if applied else "the database is up to date")


def cmd_serve(args, settings):
    from .models.schema import migrate

    settings = _settings_for_listener(settings, args.host, args.port)
    _boot(settings)
    applied = migrate()
    if applied:
        log.info("applied migrations %s", ", ".join(applied))
    worker = WorkerProcess([sys.executable, "-m", "fanout", "worker", "--workers", str(args.workers)])
    worker.start()
    try:
        _run_api(settings, args.host, args.port, workers=1)
    finally:
        worker.stop()
    return None, None


def cmd_api(args, settings):
    settings = _settings_for_listener(settings, args.host, args.port)
    _boot(settings)
    _require_current_schema()
    _run_api(settings, args.host, args.port, workers=args.workers)
    return None, None


def _run_api(settings: Settings, host: str, port: int, workers: int) -> None:
    import uvicorn

    log.info("serving the API on http://%s:%d (base URL %s)", host, port, settings.base_url)
    # h11 with a bounded request head, not httptools: see fanout/httpserver.py.
    options = dict(host=host, port=port, access_log=False, log_config=None, http="fanout.httpserver:FanoutH11Protocol")
    if workers > 1:
        # Each worker process imports fanout.asgi and builds its app from the environment.
        uvicorn.run("fanout.asgi:app", workers=workers, **options)
        return
    from .app import create_app
    from .runtime import current

    uvicorn.run(create_app(settings, current()), **options)


def cmd_worker(args, settings):
    rt = _boot(settings)
    _require_current_schema()
    from .tasks.publishing import sweep

    consumer = rt.queue.create_consumer(workers=args.workers, worker_type="thread", periodic=True, shutdown_timeout=30)
    # Service managers stop with SIGTERM, which Huey takes as "interrupt running tasks";
    # let them finish instead, as on SIGINT. A task still running after 30 s is left to
    # its lease: the sweeper puts its target back.
    consumer._signal_actions[signal.SIGTERM] = (False, True)
    # Take back at once what a killed worker left behind, rather than at the next minute.
    sweep()
    log.info("queue worker running with %d thread(s)", args.workers)
    consumer.run()
    return None, None


class WorkerProcess:
    """The queue worker `fanout serve` runs beside the API, restarted if it dies."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.proc: subprocess.Popen | None = None
        self.stopping = threading.Event()

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv)
        threading.Thread(target=self._watch, daemon=True, name="worker-watch").start()

    def _watch(self) -> None:
        while not self.stopping.is_set():
            code = self.proc.wait()
            if self.stopping.is_set():
                return
            log.error("queue worker exited with %s; restarting it", code)
            time.sleep(1)
            self.proc = subprocess.Popen(self.argv)

    def stop(self, timeout: float = 30) -> None:
        self.stopping.set()
        if self.proc is None or self.proc.poll() is not None:
            return
        # SIGINT is Huey's graceful shutdown: running tasks finish first.
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# --- workspaces and keys -----------------------------------------------------------------


def _workspace_view(ws) -> dict:
    return {"id": ws.id, "name": ws.name, "plan": ws.plan, "created_at": isoformat(ws.created_at)}


def _key_view(key) -> dict:
    return {
        "id": key.id,
        "workspace_id": key.workspace_id,
        "mode": key.mode,
        "prefix": key.prefix,
        "created_at": isoformat(key.created_at),
        "revoked_at": isoformat(key.revoked_at),
    }


def _domain_errors(fn):
    from .models.errors import DomainError

    def wrapper(args, settings):
        try:
            return fn(args, settings)
        except DomainError as e:
            raise CommandError(e.code, str(e)) from None
        except ValueError as e:
            raise CommandError("validation_error", str(e)) from None

    return wrapper


@_domain_errors
def cmd_workspace_create(args, settings):
    from .models import db
    from .models.workspace import create_workspace

    rt = _boot(settings)
    with db.connection_context():
        ws = create_workspace(rt, args.name, args.plan)
    return _workspace_view(ws), f"{ws.id}  {ws.name}  {ws.plan}"


@_domain_errors
def cmd_workspace_list(args, settings):
    from .models import Workspace, db

    _boot(settings)
    with db.connection_context():
        rows = [_workspace_view(w) for w in Workspace.select().order_by(Workspace.created_at.desc(), Workspace.id.desc())]
    text = "\n".join(f"{w['id']}  {w['plan']:<8}  {w['name']}" for w in rows) or "no workspaces"
    return rows, text


@_domain_errors
def cmd_workspace_set_plan(args, settings):
    from .models import db
    from .models.workspace import set_plan

    _boot(settings)
    with db.connection_context():
        try:
            ws = set_plan(args.workspace_id, args.plan)
        except LookupError as e:
            raise CommandError("not_found", str(e)) from None
    return _workspace_view(ws), f"{ws.id} is now on {ws.plan}"


@_domain_errors
def cmd_key_create(args, settings):
    from .models import db
    from .models.api_key import create_key

    rt = _boot(settings)
    with db.connection_context():
        key, key_string = create_key(rt, args.workspace_id, args.mode)
    value = {
        "id": key.id,
        "key": key_string,
        "mode": key.mode,
        "workspace_id": key.workspace_id,
        "created_at": isoformat(key.created_at),
    }
    text = f"{key_string}\n(key {key.id}, {key.mode} mode) This is the only time the key is shown; store it now."
    return value, text


@_domain_errors
def cmd_key_list(args, settings):
    from .models import Workspace, db
    from .models.api_key import list_keys

    _boot(settings)
    with db.connection_context():
        if Workspace.get_or_none(Workspace.id == args.workspace_id) is None:
            raise CommandError("not_found", f"no workspace {args.workspace_id}")
        rows = [_key_view(k) for k in list_keys(args.workspace_id)]
    text = "\n".join(
        f"{k['id']}  {k['prefix']}…  {k['mode']:<7}  {'revoked ' + k['revoked_at'] if k['revoked_at'] else 'active'}"
        for k in rows
    ) or "no keys"
    return rows, text


@_domain_errors
def cmd_key_revoke(args, settings):
    from .models import db
    from .models.api_key import revoke_key

    rt = _boot(settings)
    with db.connection_context():
        key = revoke_key(rt, args.key_id)
    return _key_view(key), f"revoked {key.id}"


# --- parsing -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON value on stdout")

    parser = argparse.ArgumentParser(prog="fanout", description="Fanout: social publishing API")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("serve", parents=[common], help="API + connect pages + a queue worker (embedded default)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=_positive, default=2, help="queue worker threads")
    p.set_defaults(fn=cmd_serve)

    p = sub.add_parser("api", parents=[common], help="API processes only")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=_positive, default=1, help="server processes")
    p.set_defaults(fn=cmd_api)

    p = sub.add_parser("worker", parents=[common], help="queue consumer only")
    p.add_argument("--workers", type=_positive, default=4, help="worker threads")
    p.set_defaults(fn=cmd_worker)

    p = sub.add_parser("migrate", parents=[common], help="create or upgrade the database schema")
    p.set_defaults(fn=cmd_migrate)

    ws = sub.add_parser("workspace", help="manage workspaces").add_subparsers(dest="action", required=True, metavar="ACTION")
    p = ws.add_parser("create", parents=[common], help="create a workspace")
    p.add_argument("name")
    p.add_argument("--plan", type=str.upper, choices=list(PLANS), default="FREE")
    p.set_defaults(fn=cmd_workspace_create)
    p = ws.add_parser("list", parents=[common], help="list workspaces")
    p.set_defaults(fn=cmd_workspace_list)
    p = ws.add_parser("set-plan", parents=[common], help="change a workspace's plan")
    p.add_argument("workspace_id")
    p.add_argument("plan", type=str.upper, choices=list(PLANS))
    p.set_defaults(fn=cmd_workspace_set_plan)

    keys = sub.add_parser("key", help="manage API keys").add_subparsers(dest="action", required=True, metavar="ACTION")
    p = keys.add_parser("create", parents=[common], help="create a key (printed once)")
    p.add_argument("workspace_id")
    p.add_argument("--mode", choices=["live", "sandbox"], required=True)
    p.set_defaults(fn=cmd_key_create)
    p = keys.add_parser("list", parents=[common], help="list a workspace's keys (never the key strings)")
    p.add_argument("workspace_id")
    p.set_defaults(fn=cmd_key_list)
    p = keys.add_parser("revoke", parents=[common], help="revoke a key; refused from the next request on")
    p.add_argument("key_id")
    p.set_defaults(fn=cmd_key_revoke)
    return parser


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def main(argv: list[str] | None = None) -> int:
    from .requestlog import configure_logging

    args = build_parser().parse_args(argv)
    long_running = args.command in ("serve", "api", "worker")
    try:
        settings = Settings.from_env()
        configure_logging("INFO" if long_running else "WARNING", settings.log_format)
        value, text = args.fn(args, settings)
    except SettingsError as e:
        return _fail(args, "invalid_setting", str(e))
    except CommandError as e:
        return _fail(args, e.code, e.message)
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a one-line reason, not a traceback, for operators
        log.debug("command failed", exc_info=True)
        return _fail(args, "internal_error", f"{type(e).__name__}: {e}")
    if not long_running:
        print(json.dumps(value) if args.json else text)
    return 0


def _fail(args, code: str, message: str) -> int:
    if getattr(args, "json", False):
        print(json.dumps({"error": {"code": code, "message": message}}))
    else:
        print(f"fanout: {message}", file=sys.stderr)
    return 1
