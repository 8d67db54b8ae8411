"""The plan table (docs/decisions.md#plans), and the plan a new workspace starts on."""
import ast
from pathlib import Path

from fanout import cli
from fanout.models import db
from fanout.models.workspace import create_workspace
from fanout.plans import DEFAULT_PLAN, PLANS

# docs/decisions.md#plans: posts a month, connected accounts, API keys, requests a minute.
SPEC_TABLE = {
    "FREE": (30, 4, 1, 30),
    "STARTER": (300, 15, 3, 120),
    "PRO": (2000, 50, 10, 300),
    "BUSINESS": (20000, 250, 50, 600),
}


def test_the_plans_are_the_spec_table():
    assert {
        name: (p.posts_per_month, p.accounts, p.keys, p.requests_per_minute) for name, p in PLANS.items()
    } == SPEC_TABLE


def test_a_new_workspace_is_on_free(rt):
    with db.connection_context():
        assert create_workspace(rt, "New").plan == DEFAULT_PLAN == "FREE"


def test_the_commands_default_plan_is_the_plans_and_the_command_spells_out_no_plan():
    """`fanout workspace create` without `--plan` starts on DEFAULT_PLAN, and fanout/cli.py
    writes no plan name of its own: the plans are fanout/plans.py's."""
    assert cli.build_parser().parse_args(["workspace", "create", "A"]).plan == DEFAULT_PLAN
    spelled = [node.lineno for node in ast.walk(ast.parse(Path(cli.__file__).read_text()))
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.upper() in PLANS]
    assert spelled == []
