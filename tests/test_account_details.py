"""What a platform said of an account that the service's rules read without asking it
(fanout/platforms/base.py `Grant.details`, kept as JSON on the account): stored at connect,
kept by a reconnect or a refresh that says nothing, replaced by one that says something,
given to sandbox accounts by their platform (`Platform.sandbox_details`), and read by the
upload's rules (`Platform.account_problem`: 400 at upload, on an edit and in a preflight).
"""
from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from fanout.models import Account, db
from fanout.models.account import connect_account, details_of
from fanout.models.tokens import store_grant
from fanout.platforms import REGISTRY
from fanout.platforms.base import Grant

from .conftest import assert_error, connect_sandbox_account

IMAGE = {"url": "https://cdn.example.com/a.jpg", "type": "image"}


def connected(rt, workspace, details=None, user_id="u1") -> Account:
    with db.connection_context():
        return connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id=user_id,
                               username="someone", access_token="tok", details=details)


def stored(account_id: str) -> dict | None:
    with db.connection_context():
        return details_of(Account.get_by_id(account_id))


def test_details_are_kept_at_connect_and_by_a_reconnect_that_says_nothing(rt, workspace):
    account = connected(rt, workspace, {"boards": [{"id": "1"}]})
    assert stored(account.id) == {"boards": [{"id": "1"}]}
    connected(rt, workspace, None)
    assert stored(account.id) == {"boards": [{"id": "1"}]}
    connected(rt, workspace, {"boards": []})
    assert stored(account.id) == {"boards": []}


def test_an_account_whose_platform_said_nothing_has_none(rt, workspace):
    assert stored(connected(rt, workspace).id) is None


def test_a_refresh_replaces_the_details_only_when_it_has_some(rt, workspace):
    account = connected(rt, workspace, {"n": 1})
    with db.connection_context():
        store_grant(rt, account.id, Grant(access_token="tok2"), None)
    assert stored(account.id) == {"n": 1}
    with db.connection_context():
        store_grant(rt, account.id, Grant(access_token="tok3", details={"n": 2}), None)
    assert stored(account.id) == {"n": 2}


def test_details_never_show_in_the_api(client, auth, rt, workspace):
    connected(rt, workspace, {"secretish": "kept to the rules"})
    assert "secretish" not in client.get("/v1/accounts", headers=auth).text


# --- sandbox accounts and the upload's rules, on a platform that reads them --------------------------

def needs_a_say(options, details, account_id) -> str | None:
    """A rule of the kind Pinterest's board is: the option, unless the details settle it."""
    if options.get("reply_settings") or (details or {}).get("settled"):
        return None
    return f"account {account_id} cannot take this post without overrides.x.options.reply_settings"


@pytest.fixture
def platforms():
    return {**REGISTRY, "x": dataclasses.replace(REGISTRY["x"], account_problem=needs_a_say,
                                                 sandbox_details=lambda user_id, now: {"user": user_id,
                                                                                       "at": now.isoformat()})}


def test_a_sandbox_account_gets_the_details_its_platform_gives(client, auth, clock):
    account = connect_sandbox_account(client, auth, "x")
    assert stored(account["id"]) == {"user": "sandbox-1", "at": clock.now.isoformat()}


def test_the_uploads_rules_read_each_destination_accounts_details(client, auth, rt, workspace):
    account = connect_sandbox_account(client, auth, "x")
    body = {"caption": "hello", "account_ids": [account["id"]], "media": [IMAGE]}
    message = assert_error(client.post("/v1/upload", headers=auth, json=body), 400, "validation_error")
    assert message == f"account {account['id']} cannot take this post without overrides.x.options.reply_settings"
    assert assert_error(client.post("/v1/upload/preflight", headers=auth, json=body), 400, "validation_error") == message
    given = {**body, "overrides": {"x": {"options": {"reply_settings": "following"}}}}
    assert client.post("/v1/upload", headers=auth, json=given).status_code == 201
    with db.connection_context():
        Account.update(details='{"settled": true}').where(Account.id == account["id"]).execute()
    assert client.post("/v1/upload", headers=auth, json=body).status_code == 201


def test_an_edit_is_held_to_the_same_rule(client, auth, clock):
    account = connect_sandbox_account(client, auth, "x")
    later = (clock.now + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    post = client.post("/v1/upload", headers=auth, json={
        "caption": "hello", "account_ids": [account["id"]], "media": [IMAGE], "scheduled_at": later,
        "overrides": {"x": {"options": {"reply_settings": "following"}}}}).json()
    edited = client.patch(f"/v1/posts/{post['id']}", headers=auth, json={"overrides": {}})
    assert "cannot take this post" in assert_error(edited, 400, "validation_error")
