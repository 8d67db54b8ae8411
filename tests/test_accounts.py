"""GET /v1/accounts, DELETE /v1/accounts/{id} (docs/decisions.md#accounts, #disconnecting)."""
from fanout.models import Account, db
from fanout.models.account import connect_account

from .conftest import connect_sandbox_account


def test_list_shows_connected_accounts_with_every_field(client, auth, account):
    listed = client.get("/v1/accounts", headers=auth)
    assert listed.status_code == 200
    assert listed.json() == {"data": [account]}
    assert set(account) == {"id", "platform", "username", "status", "connected_at", "sandbox"}
    assert account["id"].startswith("acc_")
    assert account["connected_at"] == "2026-11-22T10:00:00.000Z"


def test_list_is_newest_first(client, auth, clock):
    first = connect_sandbox_account(client, auth, "x")
    clock.advance(seconds=1)
    second = connect_sandbox_account(client, auth, "threads")
    ids = [a["id"] for a in client.get("/v1/accounts", headers=auth).json()["data"]]
    assert ids == [second["id"], first["id"]]


def test_list_filters_by_platform(client, auth):
    x = connect_sandbox_account(client, auth, "x")
    connect_sandbox_account(client, auth, "threads")
    listed = client.get("/v1/accounts", headers=auth, params={"platform": "x"}).json()["data"]
    assert listed == [x]


def test_list_filters_by_status(client, auth, account):
    with db.connection_context():
        Account.update(status="expired").where(Account.id == account["id"]).execute()
    assert client.get("/v1/accounts", headers=auth, params={"status": "active"}).json()["data"] == []
    expired = client.get("/v1/accounts", headers=auth, params={"status": "expired"}).json()["data"]
    assert [a["id"] for a in expired] == [account["id"]]


def test_list_filters_by_sandbox_flag(client, auth, account):
    assert client.get("/v1/accounts", headers=auth, params={"sandbox": "true"}).json()["data"] == [account]
    assert client.get("/v1/accounts", headers=auth, params={"sandbox": "false"}).json()["data"] == []


def test_sandbox_false_lists_the_live_accounts(client, rt, workspace, auth, account):
    with db.connection_context():
        live = connect_account(rt, workspace.id, platform="x", sandbox=False, platform_user_id="42",
                               username="live_x", access_token="token")
    listed = client.get("/v1/accounts", headers=auth, params={"sandbox": "false"}).json()["data"]
    assert [(a["id"], a["sandbox"]) for a in listed] == [(live.id, False)]


def test_list_rejects_an_unknown_filter_value(client, auth):
    answer = client.get("/v1/accounts", headers=auth, params={"platform": "myspace"})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"
    assert "platform" in answer.json()["error"]["message"]


def test_list_shows_only_this_workspace(client, auth, account, other_auth):
    assert client.get("/v1/accounts", headers=other_auth).json() == {"data": []}


def test_disconnect_answers_204_and_removes_the_account(client, auth, account):
    answer = client.delete(f"/v1/accounts/{account['id']}", headers=auth)
    assert answer.status_code == 204
    assert answer.content == b"" and "content-type" not in answer.headers
    assert client.get("/v1/accounts", headers=auth).json() == {"data": []}


def test_disconnect_deletes_the_tokens(client, auth, account):
    with db.connection_context():
        assert Account.get_by_id(account["id"]).access_token is not None
    client.delete(f"/v1/accounts/{account['id']}", headers=auth)
    with db.connection_context():
        assert Account.select().where(Account.access_token.is_null(False)).count() == 0


def test_disconnect_twice_is_404(client, auth, account):
    client.delete(f"/v1/accounts/{account['id']}", headers=auth)
    answer = client.delete(f"/v1/accounts/{account['id']}", headers=auth)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_disconnect_of_another_workspaces_account_is_404_and_keeps_it(client, auth, account, other_auth):
    foreign = client.delete(f"/v1/accounts/{account['id']}", headers=other_auth)
    unknown = client.delete("/v1/accounts/acc_00000000000000000000000000", headers=other_auth)
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    assert client.get("/v1/accounts", headers=auth).json()["data"] == [account]


def test_disconnect_of_an_id_of_any_shape_is_404(client, auth):
    for odd in ("x", "acc_", "%F0%9F%98%80", "a" * 500, "1"):
        answer = client.delete(f"/v1/accounts/{odd}", headers=auth)
        assert answer.status_code == 404, odd
