"""Caps hold under concurrent writers (SQLite BEGIN IMMEDIATE, PostgreSQL row locks)."""
from concurrent.futures import ThreadPoolExecutor

from fanout.models import Account, ApiKey, Webhook, db
from fanout.models.api_key import create_key
from fanout.models.webhook import create_webhook
from fanout.models.connect_session import SessionUnusable, consume_session, start_session
from fanout.models.workspace import create_workspace
from fanout.models.sandbox_account import connect_sandbox_account
from fanout.problems import PlanLimitExceeded


def in_threads(fn, count: int) -> list:
    def run(i):
        with db.connection_context():
            try:
                return fn(i)
            except PlanLimitExceeded:
                return "capped"

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def test_parallel_connect_completions_never_pass_the_account_cap(rt):
    with db.connection_context():
        ws = create_workspace(rt, "Small", "FREE")
        tokens = [start_session(rt, ws.id, platform="x", sandbox=True, redirect_url=None) for _ in range(4)]
        # All four sessions were made under the cap; completing them races for the places.
        Account.create(id="acc_existing", workspace=ws, platform="threads", sandbox=True, platform_user_id="sandbox-1",
                       username="sandbox_threads_1", connected_at=rt.now(), created_at=rt.now())
    outcomes = in_threads(lambda i: connect_sandbox_account(rt, consume_session(rt, tokens[i], "x")).id, 4)
    assert outcomes.count("capped") == 1
    with db.connection_context():
        assert Account.select().where(Account.workspace == ws.id).count() == 4
        usernames = sorted(a.username for a in Account.select().where(Account.platform == "x"))
    assert usernames == ["sandbox_x_1", "sandbox_x_2", "sandbox_x_3"]


def test_parallel_key_creation_never_passes_the_key_cap(rt):
    with db.connection_context():
        ws = create_workspace(rt, "Team", "STARTER")
    outcomes = in_threads(lambda i: create_key(rt, ws.id, "live")[0].id, 10)
    assert len([o for o in outcomes if o != "capped"]) == 3
    with db.connection_context():
        assert ApiKey.select().where(ApiKey.workspace == ws.id).count() == 3


def test_parallel_webhook_registrations_never_pass_ten(rt):
    with db.connection_context():
        ws = create_workspace(rt, "Team", "BUSINESS")
    url = "https://hooks.example.com/fanout"
    outcomes = in_threads(lambda i: create_webhook(rt, ws.id, url=url, events=["post.failed"])[0].id, 16)
    assert outcomes.count("capped") == 6
    with db.connection_context():
        assert Webhook.select().where(Webhook.workspace == ws.id).count() == 10


def test_a_session_can_be_consumed_only_once_under_a_race(rt):
    with db.connection_context():
        ws = create_workspace(rt, "Team", "PRO")
        token = start_session(rt, ws.id, platform="x", sandbox=True, redirect_url=None)

    def consume(_):
        try:
            return consume_session(rt, token, "x").id
        except SessionUnusable as e:
            return e.reason

    outcomes = in_threads(consume, 8)
    assert outcomes.count("used") == 7
