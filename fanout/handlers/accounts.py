"""GET /v1/accounts, POST /v1/accounts/{platform}/connect, DELETE /v1/accounts/{id},
GET /v1/accounts/{id}/boards."""
from __future__ import annotations

from .. import connect_flow, runtime
from ..models.account import details_of, get_account
from ..models.account import disconnect_account as _disconnect
from ..models.account import list_accounts as _list
from ..platforms.pinterest.boards import boards_of
from ..problems import NotFound
from ..views import account_view, boards_view, list_view
from ..http.execution import api_call
from . import known_id, no_content


@api_call
def list_accounts(token_info, platform=None, status=None, sandbox=None):
    accounts = _list(token_info["workspace_id"], platform=platform, status=status, sandbox=sandbox)
    return list_view([account_view(a) for a in accounts]), 200


@api_call
def start_connect(platform, token_info, body=None):
    url = connect_flow.start(
        runtime.current(), token_info["workspace_id"], platform,
        sandbox=token_info["mode"] == "sandbox", redirect_url=(body or {}).get("redirect_url"),
    )
    return {"url": url}, 200


@api_call
def disconnect_account(id, token_info):
    rt = runtime.current()
    for delivery_id in _disconnect(rt, token_info["workspace_id"], known_id(id, "acc", "account")):
        rt.tasks.deliver(delivery_id)
    return no_content()


@api_call
def list_account_boards(id, token_info):
    """The boards kept on a Pinterest account (fanout/platforms/pinterest/boards.py): Pinterest
    is not asked; an account of another platform has none: 404 (openapi.yaml)."""
    account = get_account(token_info["workspace_id"], known_id(id, "acc", "account"))
    if account.platform != "pinterest":
        raise NotFound(f"account {account.id} is on {account.platform}, not pinterest: only Pinterest accounts "
                       "have boards")
    boards, read_at = boards_of(details_of(account)) or ([], None)
    return boards_view(boards, read_at), 200
