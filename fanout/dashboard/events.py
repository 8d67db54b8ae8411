"""`/dashboard/events`: the workspace's events log, newest first, filtered by type or post.

Read with the events log's own function, the one `GET /v1/events` reads with
(fanout/models/event_log.py `page`), and paged with the API's sealed cursors: each event
is shown as its body, the JSON its deliveries send and the API answers. A post's events
(on its page) are the same log filtered by the post, oldest first.
"""
from __future__ import annotations

from starlette.responses import Response

from ..http import cursors
from ..ids import is_id
from ..models import event_log
from ..problems import InvalidRequest
from ..views import event_view
from .contract import contract
from .web import Visit, page

PAGE_SIZE = 25
# A post's page shows this many of its events (a target's outcome is one; a post has a
# few targets), and says so when there are more.
POST_EVENTS = 100


@page
def events(visit: Visit) -> Response:
    kinds = contract(visit.rt.settings.insecure_urls).enum("WebhookEvent")
    kind = visit.query("type") or None
    if kind is not None and kind not in kinds:
        raise InvalidRequest(f"type: {kind!r} is not one of {', '.join(kinds)}")
    post_id = visit.query("post_id") or None
    if post_id is not None and not is_id(post_id, "post"):
        raise InvalidRequest(f"post_id: {post_id!r} is not a post id")
    cursor = visit.query("cursor") or None
    position, ascending = None, False
    if cursor is not None:
        # As the API reads it: the cursor continues the walk it came from.
        created_at, event_id, ascending = cursors.walk(visit.rt.keyring, visit.workspace_id, cursor)
        position = (created_at, event_id)
    rows, has_more = event_log.page(visit.workspace_id, limit=PAGE_SIZE, after=position, ascending=ascending,
                                    types=[kind] if kind else None, post_id=post_id)
    return visit.page("events.html", "events", events=[event_view(e) for e in rows], kinds=kinds, kind=kind, post_id=post_id,
                      paged=cursor is not None,
                      next_cursor=cursors.next_cursor(visit.rt.keyring, visit.workspace_id, rows, has_more,
                                                      ascending=ascending))


def post_events(workspace_id: str, post_id: str) -> tuple[list[dict], bool]:
    """The first POST_EVENTS events of one post, oldest first, and whether more follow."""
    rows, has_more = event_log.page(workspace_id, limit=POST_EVENTS, ascending=True, post_id=post_id)
    return [event_view(e) for e in rows], has_more


ROUTES = [("/dashboard/events", events, ("GET",))]
