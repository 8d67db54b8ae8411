"""The monthly post cap (docs/decisions.md#monthly-post-cap)."""
import datetime as dt

import pytest

from fanout.models import db
from fanout.models.account import connect_account
from fanout.models.caps import posts_this_month
from fanout.models.workspace import set_plan

from .conftest import bearer, connect_sandbox_account, make_key, post_month


@pytest.fixture
def free(free, client):
    """The FREE workspace (30 posts a month) with one account on each platform its uploads use."""
    _, headers = free
    connect_sandbox_account(client, headers, "x")
    connect_sandbox_account(client, headers, "threads")
    return free


def upload(client, headers, **body):
    return client.post("/v1/upload", headers=headers, json={"caption": "hi", "platforms": ["x"], **body})


def used(ws, clock) -> int:
    with db.connection_context():
        return posts_this_month(ws.id, clock.now)


def test_each_post_counts_one_whatever_its_targets(client, free, clock):
    ws, headers = free
    upload(client, headers, platforms=["x", "threads"])
    upload(client, headers)
    assert used(ws, clock) == 2


def test_past_the_cap_upload_is_403(client, free, clock):
    _, headers = free
    post_month(client, headers, 30, clock)
    answer = upload(client, headers)
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "plan_limit_exceeded"


def test_sandbox_and_live_posts_share_the_cap(client, free, rt, clock):
    ws, headers = free
    with db.connection_context():
        set_plan(ws.id, "STARTER")  # room for a second key
    live = bearer(make_key(rt, ws.id, "live"))
    upload(client, headers)
    upload(client, live, sandbox=True)
    assert used(ws, clock) == 2
    with db.connection_context():
        connect_account(rt, ws.id, platform="x", sandbox=False, platform_user_id="42", username="live_x",
                        access_token="token")
    assert upload(client, live).json()["sandbox"] is False
    assert used(ws, clock) == 3


def test_requests_that_fail_count_nothing(client, free, clock):
    ws, headers = free
    upload(client, headers, platforms=["tiktok"])  # 422: no account
    upload(client, headers, sandbox=False)  # 403
    client.post("/v1/upload", headers=headers, json={"platforms": ["x"]})  # 400
    assert used(ws, clock) == 0


def test_refused_at_the_cap_counts_nothing_more(client, free, clock):
    ws, headers = free
    post_month(client, headers, 30, clock)
    upload(client, headers)
    assert used(ws, clock) == 30


def test_the_count_starts_again_on_the_first_of_the_month_utc(client, free, clock):
    ws, headers = free
    clock.now = dt.datetime(2026, 11, 30, 23, 57, 0)
    post_month(client, headers, 30, clock)
    assert upload(client, headers).status_code == 403
    clock.now = dt.datetime(2026, 12, 1, 0, 0, 0)
    assert upload(client, headers).status_code == 201
    assert used(ws, clock) == 1


def test_upgrading_raises_the_cap_at_once(client, free, clock):
    ws, headers = free
    post_month(client, headers, 30, clock)
    with db.connection_context():
        set_plan(ws.id, "STARTER")
    assert upload(client, headers).status_code == 201


def test_a_request_failing_validation_at_the_cap_still_gets_its_own_error(client, free, clock):
    _, headers = free
    post_month(client, headers, 30, clock)
    assert upload(client, headers, platforms=["tiktok"]).status_code == 422
