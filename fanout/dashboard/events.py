"""`/dashboard/events`: the workspace's events, newest first, each with its deliveries.

Read from the events table (`reads.events_page`), paged with the API's sealed cursors.
"""
from __future__ import annotations

from starlette.responses import Response

from ..http import cursors
from ..problems import InvalidRequest
from . import reads
from .contract import contract
from .web import Visit, page

PAGE_SIZE = 25


@page
def events(visit: Visit) -> Response:
    kinds = contract(visit.rt.settings.insecure_urls).enum("WebhookEvent")
    kind = visit.query("type") or None
    if kind is not None and kind not in kinds:
        raise InvalidRequest(f"type: {kind!r} is not one of {', '.join(kinds)}")
    cursor = visit.query("cursor") or None
    after = cursors.after(visit.rt.keyring, visit.workspace_id, cursor)
    shown, rows, has_more = reads.events_page(visit.workspace_id, limit=PAGE_SIZE, after=after,
                                              types=[kind] if kind else None)
    return visit.page("events.html", "events", events=shown, kinds=kinds, kind=kind, paged=cursor is not None,
                      next_cursor=cursors.next_cursor(visit.rt.keyring, visit.workspace_id, rows, has_more))


ROUTES = [("/dashboard/events", events, ("GET",))]
