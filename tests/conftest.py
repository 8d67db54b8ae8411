"""Fixtures as vocabulary: `settings`, `platforms`, `rt`, `app`, `client`, `workspace`, `sandbox_key`,
`live_key`, `auth`, `account`, `clock`, `resolver`, `cli`, `server`, `stand` (the session's
loopback server for an in-process app behind a real port); for outbound HTTP,
`network` (what was dialled, and routes from public addresses to loopback) and `ca` /
`ca_bundle` (a local certificate authority); for pages people look at, `page` (a tab of
a real Chromium that reaches only loopback).

The suite runs on the embedded default (a SQLite file per test, a copy of one migrated once
a session). With FANOUT_DATABASE_URL and FANOUT_QUEUE_URL set it runs on PostgreSQL and
Redis instead (tables emptied before each test); an unreachable server is then a failure,
never a skip. Under pytest-xdist (`-n auto`) each worker is a session of its own, with its
own database and Redis db on those servers (`worker_database_url`, `worker_queue_url`).

Nothing connects anywhere but loopback: the loopback guard (tests/loopback_site) refuses
any other connection, in this session and in every process the tests start, and fails the
test during which one was tried, naming the address.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import random
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from ipaddress import ip_address
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import trustme
from peewee import sort_models

from fanout.app import boot, create_app
from fanout.models import MODELS, bind, db, open_database
from fanout.models.api_key import create_key
from fanout.models.schema import migrate
from fanout.models.workspace import create_workspace
from fanout.settings import Settings, sqlite_path
from fanout.tasks import make_queue, memory_queue, register

from .loopback_site import loopback_guard

TEST_SECRET_KEY = "hTMUhjRO0RYW8h_LA-g_S9tTbcf3G_9pGxvX0fl-plA="


def worker_number() -> int | None:
    """Which pytest-xdist worker this session is (`-n`: gw0, gw1, ...), None without xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return int(worker.removeprefix("gw")) if worker else None


def worker_database_url(url: str | None, worker: int | None) -> str | None:
    """A PostgreSQL database of each xdist worker's own, named after the one given: every
    test empties its tables, so two sessions must never share one."""
    if not url or worker is None:
        return url
    parts = urlsplit(url)
    return parts._replace(path=f"{parts.path}_gw{worker}").geturl()


def worker_queue_url(url: str | None, worker: int | None) -> str | None:
    """A Redis db of each xdist worker's own, counting down from the one given (gw0 the
    given one): queues, limits and sign-in counts outlive a test, so sessions never share
    a db. The count fails, never wraps, past db 0."""
    if not url or worker is None or not url.startswith(("redis://", "rediss://")):
        return url
    base, _, number = url.rpartition("/")
    own = int(number or 0) - worker
    if own < 0:
        raise SystemExit(f"xdist worker gw{worker} would need Redis db {own} below {url}: "
                         "give a higher db or fewer workers")
    return f"{base}/{own}"


EXTERNAL_DATABASE_URL = worker_database_url(os.environ.get("FANOUT_DATABASE_URL"), worker_number())
EXTERNAL_QUEUE_URL = worker_queue_url(os.environ.get("FANOUT_QUEUE_URL"), worker_number())
PUBLIC_IP = "93.184.216.34"


@dataclass
class FakeClock:
    """Time under test control: starts at a fixed instant, moves only when told."""

    now: dt.datetime = field(default_factory=lambda: dt.datetime(2026, 11, 22, 10, 0, 0))

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta) -> dt.datetime:
        self.now += dt.timedelta(**delta)
        return self.now


@dataclass
class FakeResolver:
    """DNS under test control: names map to the addresses given, others do not resolve.

    `calls` lists the names asked for, in order.
    """

    names: dict = field(default_factory=dict)
    calls: list = field(default_factory=list)

    def __call__(self, host: str) -> list[str]:
        self.calls.append(host)
        return list(self.names.get(host.lower(), []))


@dataclass
class Network:
    """What the client did on the network: TCP connects (address as dialled) and system DNS
    lookups. `routes` sends a dialled (address, port) somewhere else, e.g. to loopback."""

    connects: list[tuple[str, int]] = field(default_factory=list)
    lookups: list[str] = field(default_factory=list)
    routes: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)


@pytest.fixture
def network(monkeypatch) -> Network:
    net = Network()
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(sock, address):
        dialled = (address[0], address[1])
        net.connects.append(dialled)
        return real_connect(sock, net.routes.get(dialled, address))

    def getaddrinfo(host, *args, **kwargs):
        net.lookups.append(host)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return net


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def ca_bundle(ca, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


# --- the loopback guard --------------------------------------------------------------------

LOOPBACK_SITE = Path(__file__).resolve().parent / "loopback_site"


@dataclass
class RefusalLog:
    """The file started processes append their refusals to, read from where we left off."""

    path: Path
    offset: int = 0

    def read_new(self) -> list[str]:
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            new = f.read()
        complete = new[: new.rfind(b"\n") + 1]  # a line being written is read next time
        self.offset += len(complete)
        return complete.decode("utf-8", "replace").splitlines()


_refusal_logs: list[RefusalLog] = []


def loopback_guarded(env: dict) -> dict:
    """`env` for a Python process that installs the loopback guard at start and records
    each refusal where the session reads it (needs `_loopback_only` to have run)."""
    paths = [str(LOOPBACK_SITE), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    return {
        **env,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
        loopback_guard.LOG_VARIABLE: str(_refusal_logs[0].path),
    }


def take_refusals() -> list[str]:
    """The refusals recorded since the last call, in this process and in started ones.
    The guard's own tests take theirs, so that they are asserted on instead of failing."""
    return loopback_guard.take_refused() + [line for log in _refusal_logs for line in log.read_new()]


@pytest.fixture(scope="session", autouse=True)
def _loopback_only(tmp_path_factory):
    """Guards this process, and through the environment every process the tests start."""
    loopback_guard.install()
    if not _refusal_logs:
        path = tmp_path_factory.mktemp("loopback-guard") / "refused.log"
        path.touch()
        _refusal_logs.append(RefusalLog(path))
    names = ("PYTHONPATH", loopback_guard.LOG_VARIABLE)
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(loopback_guarded(dict(os.environ)))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


# The scale-out pass (FANOUT_DATABASE_URL set: .ci/run's second) runs again only the tests
# that reach the stores it is about: through `rt`, whose database, queue and limiter are the
# pass's, or, in a module that names the stores' settings or starts processes (which take
# them from the environment), every test. The rest (an emulator, an adapter against it, a
# rule, the spec) cannot come out otherwise on PostgreSQL and Redis (docs/testing.md).
REACHES_STORES = re.compile(r"FANOUT_(DATABASE|QUEUE|LIMITER)_URL|EXTERNAL_(DATABASE|QUEUE)_URL"
                            r"|worker_(database|queue)_url|subprocess|Popen")


def reaches_stores(item, sources: dict) -> bool:
    path = str(item.path)
    if path not in sources:
        sources[path] = bool(REACHES_STORES.search(item.path.read_text()))
    return "rt" in item.fixturenames or sources[path]


def pytest_collection_modifyitems(config, items):
    if not EXTERNAL_DATABASE_URL:
        return
    sources: dict = {}
    kept = [item for item in items if reaches_stores(item, sources)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in set(kept)])
        items[:] = kept


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A test during which a connection off loopback was tried fails, whatever it caught."""
    report = yield
    refused = take_refusals()
    if refused:
        listed = "\n".join(refused)
        report.sections.append(("loopback guard", listed))
        if not report.failed:
            report.outcome = "failed"
            report.longrepr = f"{listed}\n(tried during the test's {call.when})"
    return report


@pytest.fixture(scope="session", autouse=True)
def _external_backends_reachable():
    """With FANOUT_DATABASE_URL / FANOUT_QUEUE_URL set, an unreachable server fails the run."""
    if EXTERNAL_DATABASE_URL:
        from fanout.models import open_database

        if worker_number() is not None:
            _create_worker_database(os.environ["FANOUT_DATABASE_URL"], EXTERNAL_DATABASE_URL)
        database = open_database(EXTERNAL_DATABASE_URL)
        try:
            database.connect()
            database.close()
        except Exception as e:
            pytest.exit(f"PostgreSQL at FANOUT_DATABASE_URL is unreachable: {e}", returncode=3)
    if EXTERNAL_QUEUE_URL:
        import redis

        try:
            redis.Redis.from_url(EXTERNAL_QUEUE_URL).ping()
        except Exception as e:
            pytest.exit(f"Redis at FANOUT_QUEUE_URL is unreachable: {e}", returncode=3)


def _create_worker_database(given: str, own: str) -> None:
    """The worker's own database, made on the server of the one given if it is missing."""
    import psycopg2
    from psycopg2 import sql

    name = urlsplit(own).path.lstrip("/")
    try:
        conn = psycopg2.connect(given)
        try:
            conn.autocommit = True  # CREATE DATABASE runs outside any transaction
            with conn.cursor() as cursor:
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
                if cursor.fetchone() is None:
                    cursor.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        finally:
            conn.close()
    except psycopg2.Error as e:
        pytest.exit(f"PostgreSQL at FANOUT_DATABASE_URL could not give this worker a database {name!r}: {e}",
                    returncode=3)


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch):
    # Every test starts from a known environment; only the backend choice passes through.
    for name in list(os.environ):
        if name.startswith("FANOUT_"):
            monkeypatch.delenv(name)


def _empty_all_tables() -> None:
    # DELETE, children first, rather than TRUNCATE: on the few rows a test leaves it ends
    # with the same empty tables, where TRUNCATE's new files cost ~130 ms a test.
    for model in reversed(sort_models(MODELS)):
        db.execute_sql(f'DELETE FROM "{model._meta.table_name}"')


@pytest.fixture(scope="session")
def _migrated_sqlite(tmp_path_factory) -> Path | None:
    """A SQLite database file with every migration applied, made once a session: each test's
    database starts as a copy of it (migrating a new file costs ~50 ms a test)."""
    if EXTERNAL_DATABASE_URL:
        return None
    path = tmp_path_factory.mktemp("migrated") / "fanout.db"
    bind(open_database(f"sqlite:///{path}"))
    migrate()
    with db.connection_context():
        db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the file the tests copy
    db.close_all()
    return path


@pytest.fixture
def insecure_urls() -> bool:
    """FANOUT_INSECURE_URLS of the in-process app. A test or module that needs http receivers on
    loopback overrides it with True: the app reads it once, when it loads the spec's URL rules."""
    return False


@pytest.fixture
def settings(tmp_path, insecure_urls) -> Settings:
    return Settings(
        data_dir=tmp_path,
        database_url=EXTERNAL_DATABASE_URL or f"sqlite:///{tmp_path / 'fanout.db'}",
        queue_url=EXTERNAL_QUEUE_URL or f"sqlite:///{tmp_path / 'queue.db'}",
        limiter_url=EXTERNAL_QUEUE_URL or f"sqlite:///{tmp_path / 'limiter.db'}",
        base_url="http://testserver",
        connect_url="http://connect.testserver",
        secret_key=TEST_SECRET_KEY,
        validate_responses=True,
        insecure_urls=insecure_urls,
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def resolver() -> FakeResolver:
    return FakeResolver(
        {
            "hooks.example.com": [PUBLIC_IP],
            "example.com": [PUBLIC_IP],  # the spec's examples' webhook host, as public DNS has it
            "dual.example.com": [PUBLIC_IP, "2606:2800:220:1:248:1893:25c8:1946"],
            "internal.example.com": ["10.0.0.7"],
            "rebind.example.com": [PUBLIC_IP, "127.0.0.1"],
            "metadata.example.com": ["169.254.169.254"],
        }
    )


@pytest.fixture
def platforms() -> dict:
    """The platforms the app serves: the registry, unless a test adds one of its own
    (tests/testsky_world.py)."""
    from fanout.platforms import REGISTRY

    return REGISTRY


@pytest.fixture
def rt(settings, clock, resolver, platforms, _migrated_sqlite):
    if _migrated_sqlite and settings.database_url.startswith("sqlite:"):
        database = sqlite_path(settings.database_url)
        if not database.exists():
            shutil.copy(_migrated_sqlite, database)  # with its 0600 mode
    runtime = boot(settings, clock=clock, resolve=resolver, queue=memory_queue(), platforms=platforms)
    migrate()  # applies nothing on the copy; creates the schema in any other new file
    if EXTERNAL_DATABASE_URL:
        with db.connection_context():
            _empty_all_tables()
    yield runtime
    db.close_all()


@pytest.fixture
def app(settings, rt):
    return create_app(settings, rt)


@pytest.fixture
def client(app):
    with app.test_client() as test_client:
        yield test_client


@pytest.fixture
def workspace(rt):
    with db.connection_context():
        return create_workspace(rt, "Acme", "PRO")


def make_key(rt, workspace_id: str, mode: str) -> str:
    with db.connection_context():
        return create_key(rt, workspace_id, mode)[1]


@pytest.fixture
def sandbox_key(rt, workspace) -> str:
    return make_key(rt, workspace.id, "sandbox")


@pytest.fixture
def live_key(rt, workspace) -> str:
    return make_key(rt, workspace.id, "live")


@pytest.fixture
def auth(sandbox_key) -> dict:
    return {"Authorization": f"Bearer {sandbox_key}"}


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def workspace_with_key(rt, plan: str, name: str = "Other"):
    """A new workspace on `plan` and the headers of a sandbox key of it."""
    with db.connection_context():
        ws = create_workspace(rt, name, plan)
    return ws, bearer(make_key(rt, ws.id, "sandbox"))


@pytest.fixture
def free(rt):
    """A FREE workspace (30 requests a minute, 4 accounts, 1 key, 30 posts a month) and its key's headers."""
    return workspace_with_key(rt, "FREE", "Small")


def post_month(client, headers: dict, count: int, clock) -> None:
    """`count` text posts to x, three seconds apart: 20 requests a minute, within every plan."""
    for _ in range(count):
        answer = client.post("/v1/upload", headers=headers, json={"caption": "hi", "platforms": ["x"]})
        assert answer.status_code == 201, answer.text
        clock.advance(seconds=3)


def spend(client, headers: dict, count: int) -> list:
    """`count` authenticated requests that do nothing else."""
    return [client.get("/v1/accounts", headers=headers) for _ in range(count)]


@pytest.fixture
def other_auth(rt) -> dict:
    """Headers of a key of a second workspace, to show what one workspace cannot see of another."""
    return workspace_with_key(rt, "FREE")[1]


def assert_error(answer, status: int, code: str) -> str:
    """Check an error answer's status, content type and code; returns its message."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()["error"]
    assert error["code"] == code
    return error["message"]


def parse_sf_list(value: str) -> list[tuple[str, dict]]:
    """An RFC 9651 structured-field List, as (item value, parameters) pairs."""
    import http_sfv

    parsed = http_sfv.List()
    parsed.parse(value.encode("ascii"))
    return [(item.value, dict(item.params)) for item in parsed]


class Scrape:
    """One answer of GET /metrics, parsed: `value(name, **labels)` of a sample, 0 if absent."""

    def __init__(self, text: str):
        from prometheus_client.parser import text_string_to_metric_families

        self.samples = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                self.samples[(sample.name, frozenset(sample.labels.items()))] = sample.value

    def value(self, name: str, **labels) -> float:
        return self.samples.get((name, frozenset(labels.items())), 0.0)


def run_queue(rt, clock) -> int:
    """Run every task that is due at the test clock's time, as a worker would; returns how many."""
    queue, ran = rt.queue, 0
    while ran < 10_000:
        for task in queue.read_schedule(clock.now):
            queue.enqueue(task)
        task = queue.dequeue()
        if task is None:
            return ran
        queue.execute(task, timestamp=clock.now)
        ran += 1
    raise AssertionError("the queue never emptied")


def open_connect_url(client, url: str):
    """What the end user's browser does with a connect URL: one GET, no redirects followed."""
    parts = urlsplit(url)
    return client.get(f"{parts.path}?{parts.query}", follow_redirects=False)


def connect_sandbox_account(client, headers: dict, platform: str = "x") -> dict:
    started = client.post(f"/v1/accounts/{platform}/connect", headers=headers, json={})
    assert started.status_code == 200, started.text
    landed = open_connect_url(client, started.json()["url"])
    assert landed.status_code == 302, landed.text
    query = parse_qs(urlsplit(landed.headers["location"]).query)
    account_id = query["account_id"][0]
    accounts = client.get("/v1/accounts", headers=headers).json()["data"]
    return next(a for a in accounts if a["id"] == account_id)


@pytest.fixture
def account(client, auth) -> dict:
    return connect_sandbox_account(client, auth, "x")


@pytest.fixture
def accounts(client, auth) -> dict:
    """One sandbox account on each of x, threads and instagram, by platform."""
    return {p: connect_sandbox_account(client, auth, p) for p in ("x", "threads", "instagram")}


IMAGE = {"url": "https://cdn.example.com/a.jpg", "type": "image"}


def upload_post(client, auth, **body) -> dict:
    """The created post of an upload to the three `accounts` with one image; 201 or it fails."""
    body = {"caption": "hello", "platforms": ["x", "threads", "instagram"], "media": [IMAGE], **body}
    answer = client.post("/v1/upload", headers=auth, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


# --- processes ----------------------------------------------------------------------------


_port_holders: list[socket.socket] = []
_PORTS = random.SystemRandom()  # where free_ports looks: not the run's seeded randomness


def free_port() -> int:
    """A loopback port that no other process is given while this session runs.

    The socket that found it stays bound, never listening, with SO_REUSEADDR: the system's
    free-port choice skips the port, so a session running at the same time (`.ci/run`'s
    other pass) cannot start its server there between our choice and our server's bind,
    while our servers still bind it (uvicorn, redis-server and http.server set SO_REUSEADDR).
    Until one listens, a connection to it is refused, as to any closed port."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    _port_holders.append(holder)
    return holder.getsockname()[1]


def free_ports(count: int) -> int:
    """The first of `count` consecutive loopback ports, each held as `free_port` holds its
    own: for a command that takes a first port and uses the ones after it. Looked for below
    the system's ephemeral range, where no connection's own port (nor its TIME_WAIT, which
    a busy suite leaves by the thousand) lies between them."""
    low, _ = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()) \
        if Path("/proc/sys/net/ipv4/ip_local_port_range").exists() else (32768, 60999)
    for _ in range(200):
        first, held = _PORTS.randrange(10_000, max(10_001, low - count)), []
        for port in range(first, first + count):
            # Bound without SO_REUSEADDR first: that fails while any socket holds the port,
            # another session's holders too.
            probe = socket.socket()
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                break
            finally:
                probe.close()
            holder = socket.socket()
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            holder.bind(("127.0.0.1", port))
            held.append(holder)
        else:
            _port_holders.extend(held)
            return first
        for holder in held:
            holder.close()
    raise AssertionError(f"no {count} consecutive free ports on loopback")


@pytest.fixture
def process_env(tmp_path, rt) -> dict:
    """Environment for `fanout` processes that share this test's database, loopback-guarded."""
    env = loopback_guarded({k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")})
    env.update(
        FANOUT_DATA_DIR=str(tmp_path),
        FANOUT_DATABASE_URL=rt.settings.database_url,
        FANOUT_QUEUE_URL=rt.settings.queue_url,
        FANOUT_LIMITER_URL=rt.settings.limiter_url,
        FANOUT_SECRET_KEY=TEST_SECRET_KEY,
        PYTHONUNBUFFERED="1",
    )
    return env


# Commands that serve until stopped: they take signals, start children (serve's worker) and
# block, so they always run as a process of their own.
SERVING_COMMANDS = ("serve", "api", "worker", "listen")


@dataclass
class CliRun:
    """What `fanout ARGS` did, as subprocess.CompletedProcess reports it."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextmanager
def _process_state(env: dict, cwd: Path | None):
    """The environment and working folder of a `fanout` process, for a command run here;
    afterwards this process's environment, database binding, runtime, logging and warnings
    are as before, so nothing the command set leaks into the test or the next command."""
    import logging
    import warnings

    from fanout import runtime
    from fanout.models import db as proxy

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_db, saved_runtime = proxy.obj, runtime._current
    root = logging.getLogger()
    saved_handlers, saved_level, saved_showwarning = root.handlers[:], root.level, warnings.showwarning
    os.environ.clear()
    os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        used = proxy.obj
        if used is not None and used is not saved_db:
            used.close_all()  # the command's own connections, as its process would on exit
        proxy.initialize(saved_db)
        runtime._current = saved_runtime
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        if warnings.showwarning is not saved_showwarning:
            logging.captureWarnings(False)
            warnings.showwarning = saved_showwarning
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)


def run_cli(args: list[str], env: dict, cwd: Path | None = None) -> CliRun:
    """`fanout ARGS` run by its `main` in this process, with `env` as its whole environment:
    its stdout, stderr and exit status, as the console script would give them."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from fanout.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _process_state(env, cwd), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse: --help, --version, usage errors
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
            code = 1 if isinstance(e.code, str) else (e.code or 0)
    return CliRun(list(args), code, out.getvalue(), err.getvalue())


@dataclass
class Cli:
    """`fanout` commands on this test's database and data folder (`env`).

    `cli(...)` runs the command's `main` in this process: what it prints and does is the same
    as in a process of its own, without the second of Python start-up and imports a process
    costs. Commands that serve (SERVING_COMMANDS, unless asking for --help) and
    `cli.process(...)` start a real `python -m fanout` process: for what only a process
    shows (signals, children, exit on start-up failures, what the interpreter itself loads)."""

    env: dict
    cwd: Path | None = None

    def __call__(self, *args: str, check: bool = True):
        serving = args and args[0] in SERVING_COMMANDS and not {"--help", "-h"} & set(args)
        done = self.process(*args, check=False) if serving else run_cli(list(args), self.env, self.cwd)
        if check and done.returncode != 0:
            raise AssertionError(f"fanout {' '.join(args)} failed: {done.stderr or done.stdout}")
        return done

    def process(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, "-m", "fanout", *args], env=self.env, cwd=self.cwd, capture_output=True, text=True,
            timeout=60,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"fanout {' '.join(args)} failed: {done.stderr or done.stdout}")
        return done

    def json(self, *args: str):
        return json.loads(self(*args, "--json").stdout)


@pytest.fixture
def cli(process_env) -> Cli:
    return Cli(process_env)


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def start_server(env: dict, log_path: Path, command: str = "api", port: int | None = None,
                 args: tuple[str, ...] = ()) -> Server:
    port = port or free_port()
    log_file = open(log_path, "ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "fanout", command, "--port", str(port), *args],
        env=env, stdout=log_file, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"fanout {command} exited: {log_path.read_text()}")
        try:
            requests.get(f"{url}/v1/openapi.json", timeout=1)
            return Server(url, proc, log_path)
        except requests.ConnectionError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"fanout {command} did not start: {log_path.read_text()}")


def stop_server(server: Server) -> None:
    server.proc.send_signal(2)
    try:
        server.proc.wait(20)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


def start_worker(env: dict, log_path: Path, threads: int = 2) -> subprocess.Popen:
    """A `fanout worker` process with `threads` worker threads, logging to `log_path`."""
    log_file = open(log_path, "ab")
    return subprocess.Popen([sys.executable, "-m", "fanout", "worker", "--threads", str(threads)], env=env,
                            stdout=log_file, stderr=subprocess.STDOUT)


@pytest.fixture
def real_queue(rt):
    """The queue worker processes read (SQLite file or Redis), emptied first: its tasks."""
    queue = make_queue(rt.settings)
    queue.flush()
    return register(queue, rt)


@pytest.fixture
def insecure_env(process_env) -> dict:
    """`process_env` with the local-development setting, so loopback webhook receivers work."""
    return {**process_env, "FANOUT_INSECURE_URLS": "1"}


@pytest.fixture
def servers(process_env, tmp_path):
    """Starts `fanout` server processes sharing this test's database; all stop at teardown."""
    started: list[Server] = []

    def start(command: str = "api", env: dict | None = None, args: tuple[str, ...] = ()) -> Server:
        srv = start_server(env or process_env, tmp_path / f"{command}-{len(started)}.log", command=command, args=args)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        stop_server(srv)


@pytest.fixture
def server(servers) -> Server:
    """A `fanout api` process on a free loopback port, sharing this test's database."""
    return servers()


class Stand:
    """One loopback server for the session, in this process, serving the app a test puts on
    it (`serving`): a test that needs its app behind a real port (a browser, an emulator's
    redirect, `requests`) gets one without a server started and stopped for it, which took
    0.3 s a test. Between tests nothing is on it, and a request is answered 503."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = None
        self._server = None
        self._thread = None

    async def __call__(self, scope, receive, send) -> None:
        app = self.app
        if app is None:
            await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"no app is on the stand"})
            return
        await app(scope, receive, send)

    def start(self) -> None:
        import uvicorn

        self._server = uvicorn.Server(uvicorn.Config(self, host="127.0.0.1", port=self.port, lifespan="off",
                                                     log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline and self._thread.is_alive(), "the stand did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)

    def serving(self, app):
        """Serve `app` for the length of a fixture: yields the stand's URL."""
        self.app = app
        try:
            yield self.url
        finally:
            self.app = None


@pytest.fixture(scope="session")
def stand():
    started = Stand()
    started.start()
    yield started
    started.stop()


def connect_on_server(base_url: str, headers: dict, platform: str = "x") -> None:
    """The sandbox connect flow against a real server, as the end user's browser runs it."""
    started = requests.post(f"{base_url}/v1/accounts/{platform}/connect", headers=headers, json={}, timeout=10)
    assert started.status_code == 200, started.text
    link = urlsplit(started.json()["url"])
    landed = requests.get(f"{base_url}{link.path}?{link.query}", allow_redirects=False, timeout=10)
    assert landed.status_code == 302, landed.text


def wait_for(predicate, seconds: float = 30, what: str = "condition"):
    """The first truthy value of `predicate`, polled every 0.1 s, or AssertionError."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class LoopbackSite(ThreadingHTTPServer):
    """A loopback HTTP(S) server for outbound tests: it records every connection accepted
    (before any TLS or HTTP), does the TLS handshake in the handler's thread (a failing one
    stalls nobody), and holds handlers that wait on `release` until the test ends."""

    daemon_threads = True

    def __init__(self, handler, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.tls = tls
        self.connections: list[tuple] = []
        self.release = threading.Event()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}{path}"

    def process_request(self, request, client_address) -> None:
        self.connections.append(client_address)
        super().process_request(request, client_address)

    def finish_request(self, request, client_address) -> None:
        if self.tls is None:
            return super().finish_request(request, client_address)
        with self.tls.wrap_socket(request, server_side=True) as wrapped:
            self.RequestHandlerClass(wrapped, client_address, self)

    def handle_error(self, request, client_address) -> None:
        pass  # clients cut off on purpose, and rejected handshakes, are expected here


class ExampleEndpoints:
    """An outbound client for tests whose registrations name hosts off loopback (the spec's
    examples' `hooks.example.com`, which the `resolver` fixture resolves to a public
    address): a POST to such a URL is answered `status` without connecting anywhere, and
    recorded in `sent`; loopback URLs go through `real`, the service's own client."""

    def __init__(self, real, status: int = 204):
        self.real, self.status = real, status
        self.sent: list[tuple[str, bytes, dict]] = []

    def post(self, url: str, body: bytes, headers: dict):
        if is_loopback_url(url):
            return self.real.post(url, body, headers)
        from fanout.outbound.client import OutboundResponse

        self.sent.append((url, body, headers))
        return OutboundResponse(self.status, {}, b"", 0.0)


def serving(server):
    """Serve a test HTTP server (a `ThreadingHTTPServer` with a `release` event) on a thread
    for the length of a fixture; its handlers are released and the thread joined after."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- a real browser -------------------------------------------------------------------------

IN_CI = os.environ.get("CI") == "true"
# Nothing but loopback resolves, and Chromium's own background calls stay off.
CHROMIUM_ARGS = [
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run", "--disable-gpu",
]


def _without_browser(reason: str) -> None:
    """A machine without the browser skips the browser tests; CI (CI=true) must run them."""
    if IN_CI:
        pytest.fail(f"{reason}: CI runs the browser tests (.ci/run installs chromium)", pytrace=False)
    pytest.skip(reason)


def is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture
def refused_requests() -> list[str]:
    """The URLs off loopback that `page` refused, in order; left non-empty, they fail the test."""
    return []


@pytest.fixture
def page(tmp_path, refused_requests):
    """A tab of Debian's Chromium (`/usr/bin/chromium`), driven by Playwright; never a
    downloaded browser. Every request to anything but a loopback address is refused, and
    fails the test naming it; a test may answer such a URL itself (`page.route(url,
    handler)`, which comes first), so no request leaves the browser. The page's last
    state is saved as `page.png` in the test's folder, failing or not.

    Per test, not per session: while Playwright's sync API runs, this thread counts as
    inside a running event loop, and `asyncio.run` elsewhere in the suite would fail."""
    executable = shutil.which("chromium")
    if executable is None:
        _without_browser("needs Debian's chromium (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _without_browser("needs playwright (pip install -e '.[test]')")

    def loopback_only(route) -> None:
        if is_loopback_url(route.request.url):
            route.fallback()
        else:
            refused_requests.append(route.request.url)
            route.abort("blockedbyclient")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 900, "height": 700})
            context.route("**/*", loopback_only)
            tab = context.new_page()
            yield tab
            tab.screenshot(path=tmp_path / "page.png", full_page=True)
            context.close()
        finally:
            browser.close()
    assert not refused_requests, f"the page asked for addresses off loopback: {refused_requests}"
