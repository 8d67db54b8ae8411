"""`/dashboard/keys`: the workspace's API keys; create one (shown once), revoke one.

Keys are made and revoked by the functions the `fanout key` commands call
(fanout/models/api_key.py), under the plan's cap (fanout/models/caps.py).
"""
from __future__ import annotations

from starlette.responses import Response

from ..models import caps
from ..models.api_key import NAME_LENGTH, create_key, list_keys, revoke_key
from ..plans import get_plan
from ..problems import NotFound, Problem
from ..security.apikeys import PREFIXES
from .web import Visit, page, see_other

NOTICES = {"revoked": "The key was revoked: requests made with it are refused from now on."}


def _page(visit: Visit, status: int = 200, **context) -> Response:
    keys = list_keys(visit.workspace_id)
    limit = get_plan(visit.workspace.plan).keys
    context.setdefault("form", {"name": "", "mode": "sandbox"})
    return visit.page("keys.html", "keys", status, keys=keys, active=caps.count_active_keys(visit.workspace_id),
                      limit=limit, modes=tuple(PREFIXES), name_length=NAME_LENGTH,
                      notice=NOTICES.get(visit.query("done") or ""), **context)


@page
def keys(visit: Visit) -> Response:
    return _page(visit)


@page
def create(visit: Visit) -> Response:
    """The new key is in this answer only (the page is never cached), never in a URL."""
    form = {"name": visit.form.get("name"), "mode": visit.form.get("mode")}
    try:
        key, key_string = create_key(visit.rt, visit.workspace_id, form["mode"], name=form["name"])
    except Problem as e:
        return _page(visit, e.status, error=e, form=form)
    return _page(visit, 201, created=key, key_string=key_string)


def _own_key(visit: Visit):
    key_id = visit.path_id("id", "key", "API key")
    key = next((k for k in list_keys(visit.workspace_id) if k.id == key_id), None)
    if key is None:
        raise NotFound("no such API key in this workspace")
    return key


@page
def confirm_revoke(visit: Visit) -> Response:
    return visit.page("keys_revoke.html", "keys", key=_own_key(visit))


@page
def revoke(visit: Visit) -> Response:
    revoke_key(visit.rt, visit.path_id("id", "key", "API key"), workspace_id=visit.workspace_id)
    return see_other("/dashboard/keys", done="revoked")


ROUTES = [
    ("/dashboard/keys", keys, ("GET",)),
    ("/dashboard/keys", create, ("POST",)),
    ("/dashboard/keys/{id}/revoke", confirm_revoke, ("GET",)),
    ("/dashboard/keys/{id}/revoke", revoke, ("POST",)),
]
