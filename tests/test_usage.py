"""GET /v1/usage: the plan and, per cap, its limit, what is used and when it resets."""
import datetime as dt

from fanout.models import db
from fanout.models.api_key import create_key, revoke_key

from .conftest import connect_sandbox_account, make_key


def usage(client, auth) -> dict:
    answer = client.get("/v1/usage", headers=auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_new_workspace_shows_its_plan_and_every_cap(client, auth):
    assert usage(client, auth) == {
        "plan": "PRO",
        "posts": {"limit": 2000, "used": 0, "resets_at": "2026-12-01T00:00:00.000Z"},
        "accounts": {"limit": 50, "used": 0, "resets_at": None},
        "api_keys": {"limit": 10, "used": 1, "resets_at": None},
        "webhooks": {"limit": 10, "used": 0, "resets_at": None},
        "requests": {"limit": 300, "used": 1, "resets_at": "2026-11-22T10:01:00.000Z"},
    }


def test_posts_count_this_month_uploads(client, auth, account):
    for _ in range(3):
        assert client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]}).status_code == 201
    assert usage(client, auth)["posts"]["used"] == 3


def test_posts_reset_on_the_first_of_next_month_utc(client, auth, clock):
    clock.now = dt.datetime(2026, 12, 31, 23, 59, 59, 500000)
    assert usage(client, auth)["posts"]["resets_at"] == "2027-01-01T00:00:00.000Z"


def test_accounts_count_every_connected_account(client, auth):
    connect_sandbox_account(client, auth, "x")
    connect_sandbox_account(client, auth, "threads")
    assert usage(client, auth)["accounts"]["used"] == 2


def test_api_keys_count_only_active_keys(client, rt, workspace, auth):
    make_key(rt, workspace.id, "live")
    with db.connection_context():
        revoked, _ = create_key(rt, workspace.id, "live")
        revoke_key(rt, revoked.id)
    assert usage(client, auth)["api_keys"]["used"] == 2


def test_requests_count_this_window_including_this_request(client, auth, clock):
    for _ in range(4):
        client.get("/v1/accounts", headers=auth)
    clock.advance(seconds=10)
    assert usage(client, auth)["requests"] == {"limit": 300, "used": 5, "resets_at": "2026-11-22T10:01:10.000Z"}


def test_requests_that_left_the_window_are_not_counted(client, auth, clock):
    client.get("/v1/accounts", headers=auth)
    clock.advance(seconds=60)
    assert usage(client, auth)["requests"]["used"] == 1


def test_usage_is_per_workspace(client, auth, other_auth, account):
    client.post("/v1/upload", headers=auth, json={"caption": "hi", "platforms": ["x"]})
    other = usage(client, other_auth)
    assert other["plan"] == "FREE"
    assert (other["posts"]["used"], other["accounts"]["used"], other["requests"]["used"]) == (0, 0, 1)


def test_webhooks_count_the_registrations(client, auth):
    for _ in range(2):
        hook = {"url": "https://hooks.example.com/fanout", "events": ["post.failed"]}
        assert client.post("/v1/webhooks", headers=auth, json=hook).status_code == 201
    assert usage(client, auth)["webhooks"] == {"limit": 10, "used": 2, "resets_at": None}
