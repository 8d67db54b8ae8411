"""GET /v1/accounts/{id}/boards (openapi.yaml `list_account_boards`): the boards kept on a
Pinterest account, a sandbox account's one board, 404 for an account of another platform,
404 for one that is not the workspace's. Live accounts' boards, read at connect and at a
refresh, are in tests/platforms/pinterest/test_live.py."""
from __future__ import annotations

from .conftest import assert_error, connect_sandbox_account


def boards(client, auth, account_id: str):
    return client.get(f"/v1/accounts/{account_id}/boards", headers=auth)


def test_a_sandbox_pinterest_account_has_one_board(client, auth, clock):
    account = connect_sandbox_account(client, auth, "pinterest")
    answer = boards(client, auth, account["id"])
    assert answer.status_code == 200, answer.text
    [board] = answer.json()["data"]
    assert board["name"] == "Sandbox board" and board["privacy"] == "public" and board["id"].isdigit()
    assert answer.json()["read_at"] == "2026-11-22T10:00:00.000Z"


def test_an_account_of_another_platform_has_no_boards_404_naming_it(client, auth):
    account = connect_sandbox_account(client, auth, "x")
    message = assert_error(boards(client, auth, account["id"]), 404, "not_found")
    assert message == f"account {account['id']} is on x, not pinterest: only Pinterest accounts have boards"


def test_an_account_not_in_the_workspace_is_404(client, auth, other_auth):
    theirs = connect_sandbox_account(client, other_auth, "pinterest")
    assert_error(boards(client, auth, theirs["id"]), 404, "not_found")
    assert_error(boards(client, auth, "acc_nope"), 404, "not_found")


def test_it_needs_the_key(client, auth):
    account = connect_sandbox_account(client, auth, "pinterest")
    assert_error(client.get(f"/v1/accounts/{account['id']}/boards"), 401, "missing_api_key")
