"""`/dashboard/accounts`: the workspace's accounts; connect, reconnect, disconnect.

"Connect" runs the connect flow the API starts (fanout/connect_flow.py, `begin`: the same
sessions, rules and caps), with this page as the place the browser comes back to: the
flow's outcome arrives in the query (`platform`, `account_id` and `status`, or `error`)
and is shown here. Disconnecting is the API's `DELETE /v1/accounts/{id}`'s model function.
"""
from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from .. import connect_flow
from ..connect_flow import OUTCOMES, remedy
from ..models.account import disconnect_account, list_accounts
from ..models import caps
from ..plans import get_plan
from ..platforms.setup import live_setup
from ..problems import InvalidRequest, NotFound, Problem
from ..pages.render import HEADERS
from .web import Alert, Visit, page, see_other

PAGE = "/dashboard/accounts"
NOTICES = {"disconnected": "The account was disconnected; its tokens are deleted."}


def _outcome(visit: Visit) -> tuple[str | None, Alert | None]:
    """What the connect flow that came back here says: a notice, or a refusal."""
    names = {name: p.title for name, p in visit.rt.platforms.items()}
    name = names.get(visit.query("platform") or "", "The")
    if visit.query("status") == "connected":
        account = next((a for a in list_accounts(visit.workspace_id) if a.id == visit.query("account_id")), None)
        if account is not None:
            return f"{name} account {account.username} is connected.", None
        return None, None
    code = visit.query("error")
    if code:
        words = f"{OUTCOMES.get(code, 'the connect flow did not finish')}. {remedy(visit.rt, code, visit.query('platform'))}"
        return None, Alert(words.strip(), code)
    return NOTICES.get(visit.query("done") or ""), None


def _page(visit: Visit, status: int = 200, error: Problem | None = None) -> Response:
    notice, refused = _outcome(visit)
    platforms = [(name, p.title) for name, p in visit.rt.platforms.items()]
    live = [(name, title) for name, title in platforms if live_setup(visit.rt, name) is not None]
    return visit.page("accounts.html", "accounts", status, accounts=list_accounts(visit.workspace_id),
                      platforms=platforms, live=live, used=caps.count_accounts(visit.workspace_id),
                      limit=get_plan(visit.workspace.plan).accounts, notice=notice, error=error or refused)


@page
def accounts(visit: Visit) -> Response:
    return _page(visit)


@page
def connect(visit: Visit) -> Response:
    """A "Connect" or "Reconnect" button: 303 to a new connect link, which comes back here."""
    platform, mode = visit.form.get("platform"), visit.form.get("mode")
    try:
        if platform not in visit.rt.platforms or mode not in ("live", "sandbox"):
            raise InvalidRequest("pick a platform and a mode from this page")
        url = connect_flow.begin(visit.rt, visit.workspace_id, platform, sandbox=mode == "sandbox",
                                 back=f"{visit.rt.settings.base_url}{PAGE}")
    except Problem as e:
        return _page(visit, e.status, error=e)
    return RedirectResponse(url, status_code=303, headers=HEADERS)


def _own_account(visit: Visit):
    account_id = visit.path_id("id", "acc", "account")
    account = next((a for a in list_accounts(visit.workspace_id) if a.id == account_id), None)
    if account is None:
        raise NotFound("no such account in this workspace")
    return account


@page
def confirm_disconnect(visit: Visit) -> Response:
    return visit.page("accounts_disconnect.html", "accounts", account=_own_account(visit))


@page
def disconnect(visit: Visit) -> Response:
    rt = visit.rt
    for delivery_id in disconnect_account(rt, visit.workspace_id, visit.path_id("id", "acc", "account")):
        rt.tasks.deliver(delivery_id)
    return see_other(PAGE, done="disconnected")


ROUTES = [
    (PAGE, accounts, ("GET",)),
    ("/dashboard/accounts/connect", connect, ("POST",)),
    ("/dashboard/accounts/{id}/disconnect", confirm_disconnect, ("GET",)),
    ("/dashboard/accounts/{id}/disconnect", disconnect, ("POST",)),
]
