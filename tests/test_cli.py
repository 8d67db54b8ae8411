"""The `fanout` command (the operators' "workspace dashboard").

The `cli` fixture runs most commands by their `main` in this process (what they print and
do); the tests saying so run a real `python -m fanout` process, for what only one shows."""
import importlib.metadata
import json
import re
import pytest

from fanout.cli import build_parser

from .conftest import Cli


def test_workspace_create_prints_one_json_value(cli):
    ws = cli.json("workspace", "create", "Acme Inc")
    assert set(ws) == {"id", "name", "plan", "created_at"}
    assert ws["id"].startswith("ws_") and ws["name"] == "Acme Inc" and ws["plan"] == "FREE"


def test_workspace_create_takes_a_plan(cli):
    assert cli.json("workspace", "create", "Big", "--plan", "business")["plan"] == "BUSINESS"


def test_workspace_list_shows_every_workspace(cli):
    a = cli.json("workspace", "create", "A")
    b = cli.json("workspace", "create", "B")
    listed = cli.json("workspace", "list")
    assert {w["id"] for w in listed} == {a["id"], b["id"]}
    assert "A" in cli("workspace", "list").stdout


def test_set_plan_changes_the_plan(cli):
    ws = cli.json("workspace", "create", "A")
    assert cli.json("workspace", "set-plan", ws["id"], "PRO")["plan"] == "PRO"


def test_key_create_prints_the_key_once_with_its_record(cli):
    ws = cli.json("workspace", "create", "A")
    key = cli.json("key", "create", ws["id"], "--mode", "sandbox")
    assert set(key) == {"id", "key", "mode", "workspace_id", "created_at"}
    assert re.fullmatch(r"svc_sandbox_[0-9A-Za-z]{50}", key["key"])
    assert key["workspace_id"] == ws["id"] and key["mode"] == "sandbox"


def test_key_create_human_output_warns_it_is_shown_once(cli):
    ws = cli.json("workspace", "create", "A")
    out = cli("key", "create", ws["id"], "--mode", "live").stdout
    assert out.startswith("svc_live_") and "only time" in out


def test_key_list_never_shows_key_strings(cli):
    ws = cli.json("workspace", "create", "A", "--plan", "STARTER")
    key = cli.json("key", "create", ws["id"], "--mode", "live")
    listed = cli("key", "list", ws["id"], "--json").stdout
    assert key["key"] not in listed
    [row] = json.loads(listed)
    assert row["id"] == key["id"] and row["revoked_at"] is None
    assert key["key"].startswith(row["prefix"])


def test_key_create_past_the_plan_cap_fails_with_plan_limit_exceeded(cli):
    ws = cli.json("workspace", "create", "A")
    cli.json("key", "create", ws["id"], "--mode", "live")
    failed = cli("key", "create", ws["id"], "--mode", "live", "--json", check=False)
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["error"]["code"] == "plan_limit_exceeded"
    human = cli("key", "create", ws["id"], "--mode", "live", check=False)
    assert human.returncode == 1 and len(human.stderr.strip().splitlines()) == 1
    assert "plan allows 1" in human.stderr


def test_key_revoke_marks_the_key_revoked(cli):
    ws = cli.json("workspace", "create", "A")
    key = cli.json("key", "create", ws["id"], "--mode", "live")
    revoked = cli.json("key", "revoke", key["id"])
    assert revoked["id"] == key["id"] and revoked["revoked_at"]


@pytest.mark.parametrize(
    "args, code",
    [
        (("key", "revoke", "key_nope"), "not_found"),
        (("key", "list", "ws_nope"), "not_found"),
        (("key", "create", "ws_nope", "--mode", "live"), "not_found"),
        (("workspace", "set-plan", "ws_nope", "PRO"), "not_found"),
        (("workspace", "create", "   "), "validation_error"),
    ],
)
def test_failures_exit_1_with_the_error_object(cli, args, code):
    failed = cli(*args, "--json", check=False)
    assert failed.returncode == 1
    body = json.loads(failed.stdout)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"].strip()


def test_a_worker_given_a_parent_pid_that_is_not_its_parent_exits_1_saying_so(cli):
    """A process (as `cli` runs every serving command): its parent is the test's."""
    failed = cli("worker", "--parent-pid", "1", check=False)
    assert failed.returncode == 1
    assert "--parent-pid 1 is not this worker's parent" in failed.stderr


def test_a_bad_setting_is_refused_with_a_message_naming_it(cli):
    cli.env["FANOUT_BASE_URL"] = "not a url"
    failed = cli("workspace", "list", check=False)
    assert failed.returncode == 1
    assert "FANOUT_BASE_URL" in failed.stderr and "Traceback" not in failed.stderr


def test_migrate_is_idempotent(cli):
    assert "up to date" in cli("migrate").stdout
    assert cli.json("migrate") == {"applied": []}


def test_a_command_prints_no_warning_on_the_plain_install(cli, tmp_path):
    # The README's `pip install -e .` has no httpx2, and Starlette warns whenever its test
    # client is imported without it: hide the test extras' httpx2 to be that install.
    plain = tmp_path / "plain-install"
    plain.mkdir()
    (plain / "httpx2.py").write_text("raise ModuleNotFoundError(\"No module named 'httpx2'\", name='httpx2')\n")
    cli.env["PYTHONPATH"] = str(plain)
    # A process of its own: what a new interpreter imports is the point.
    assert cli.process("workspace", "list").stderr == ""


def embedded_default(cli) -> dict:
    """The `cli` environment without any FANOUT_ setting: SQLite files in ./var."""
    return {k: v for k, v in cli.env.items() if not k.startswith("FANOUT_")}


def test_where_there_is_no_database_a_command_says_where_it_looked_and_creates_nothing(cli, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = Cli(embedded_default(cli), cwd=elsewhere)("workspace", "list", check=False)
    assert done.returncode == 1
    assert done.stderr == (
        f"fanout: no database at {elsewhere / 'var' / 'fanout.db'} (in the default data folder ./var): "
        "run `fanout migrate` to create it, or set FANOUT_DATA_DIR to where yours is\n")
    assert list(elsewhere.iterdir()) == []


def test_a_database_without_the_schema_is_named_with_what_to_run(cli, tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "fanout.db").touch(mode=0o600)
    cli.env = {**embedded_default(cli), "FANOUT_DATA_DIR": str(data)}
    failed = cli("workspace", "list", check=False)
    assert failed.returncode == 1
    assert failed.stderr.startswith(f"fanout: the database at {data / 'fanout.db'} (in FANOUT_DATA_DIR) needs migrations 0001_initial")
    assert failed.stderr.endswith(": run `fanout migrate`\n")


def test_version_is_the_installed_packages(cli):
    """The entry point itself, as a process: `python -m fanout` runs the command and exits 0."""
    assert cli.process("--version").stdout == f"fanout {importlib.metadata.version('fanout')}\n"


def test_workspace_create_and_list_print_the_same_columns_and_list_has_a_header(cli):
    created = cli("workspace", "create", "Acme Inc", "--plan", "PRO").stdout
    header, row = cli("workspace", "list").stdout.splitlines()
    assert header.split() == ["ID", "PLAN", "CREATED", "NAME"]
    assert row.split() == created.split()


def test_key_list_has_a_header_and_aligned_columns_like_workspace_list(cli):
    ws = cli.json("workspace", "create", "A", "--plan", "PRO")
    live = cli.json("key", "create", ws["id"], "--mode", "live")
    sandbox = cli.json("key", "create", ws["id"], "--mode", "sandbox")
    revoked = cli.json("key", "revoke", live["id"])
    header, *rows = cli("key", "list", ws["id"]).stdout.splitlines()
    assert header.split() == ["ID", "MODE", "PREFIX", "CREATED", "STATUS"]
    cells = {row.split()[0]: row.split() for row in rows}
    assert cells[live["id"]][1] == "live" and cells[live["id"]][4:] == ["revoked", revoked["revoked_at"]]
    assert cells[sandbox["id"]][1] == "sandbox" and cells[sandbox["id"]][4:] == ["active"]
    assert {row.index(cells[row.split()[0]][2]) for row in rows} == {header.index("PREFIX")}
    assert {row.index(cells[row.split()[0]][4]) for row in rows} == {header.index("STATUS")}


@pytest.mark.parametrize("args, defaults", [
    (("serve",), ["--host HOST  address to listen on (default: 127.0.0.1)", "(default: 8000)", "(default: 2)"]),
    (("api",), ["(default: 127.0.0.1)", "(default: 8000)", "API server processes (default: 1)"]),
    (("worker",), ["queue worker threads (default: 4)"]),
    (("listen",), ["(default: 9000)"]),
    (("workspace", "create"), ["(default: FREE)"]),
], ids=["serve", "api", "worker", "listen", "workspace-create"])
def test_help_shows_each_options_default(cli, args, defaults):
    shown = " ".join(cli(*args, "--help").stdout.split())
    for default in defaults:
        assert " ".join(default.split()) in shown


def test_serve_and_worker_count_threads_and_api_counts_processes():
    parse = build_parser().parse_args
    assert (parse(["serve"]).threads, parse(["worker"]).threads, parse(["api"]).processes) == (2, 4, 1)
    assert parse(["serve", "--threads", "3"]).threads == 3
    assert parse(["worker", "--threads", "5"]).threads == 5
    assert parse(["api", "--processes", "2"]).processes == 2


@pytest.mark.parametrize("command, new_name", [("serve", "threads"), ("worker", "threads"), ("api", "processes")])
def test_the_old_workers_option_keeps_its_meaning_with_a_warning(capsys, command, new_name):
    assert getattr(build_parser().parse_args([command, "--workers", "3"]), new_name) == 3
    assert capsys.readouterr().err == f"fanout {command}: --workers is deprecated and will be removed; use --{new_name}\n"


@pytest.mark.parametrize("command", ["serve", "api", "worker"])
def test_help_no_longer_names_the_workers_option(cli, command):
    assert "--workers" not in cli(command, "--help").stdout
