"""GET /v1/accounts, POST /v1/accounts/{platform}/connect, DELETE /v1/accounts/{id}."""
from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from .. import runtime
from ..models.account import disconnect_account as _disconnect
from ..models.account import list_accounts as _list
from ..models.connect_session import start_session
from ..problems import InvalidRequest
from ..views import account_view, list_view
from . import api_call, known_id, no_content


@api_call
def list_accounts(token_info, platform=None, status=None, sandbox=None):
    accounts = _list(token_info["workspace_id"], platform=platform, status=status, sandbox=sandbox)
    return list_view([account_view(a) for a in accounts]), 200


def _check_redirect_url(url: str) -> str:
    problem = InvalidRequest("redirect_url: must be an absolute http(s) URL without user info")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise problem from None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        raise problem
    return url


@api_call
def start_connect(platform, token_info, body=None):
    redirect_url = (body or {}).get("redirect_url")
    if redirect_url is not None:
        _check_redirect_url(redirect_url)
    rt = runtime.current()
    token = start_session(
        rt,
        token_info["workspace_id"],
        platform=platform,
        sandbox=token_info["mode"] == "sandbox",
        redirect_url=redirect_url,
    )
    return {"url": f"{rt.settings.connect_url}/connect/{platform}?{urlencode({'session': token})}"}, 200


@api_call
def disconnect_account(id, token_info):
    rt = runtime.current()
    for delivery_id in _disconnect(rt, token_info["workspace_id"], known_id(id, "acc", "account")):
        rt.tasks.deliver(delivery_id)
    return no_content()
