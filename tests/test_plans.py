"""The plan table (docs/decisions.md#plans), and the plan a new workspace starts on."""
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
