"""GET /v1/events, GET /v1/events/{id}: the workspace's events log."""
from __future__ import annotations

from .. import runtime
from ..http import cursors
from ..models import event_log
from ..views import event_view, page_view
from ..http.execution import api_call
from . import known_id


@api_call
def list_events(token_info, limit=20, cursor=None, type=None, post_id=None, account_id=None, after=None):
    rt = runtime.current()
    workspace_id = token_info["workspace_id"]
    if cursor is not None:
        # The cursor continues the walk it came from, newest or oldest first.
        created_at, event_id, ascending = cursors.walk(rt.keyring, workspace_id, cursor)
        position = (created_at, event_id)
    elif after is not None:
        position, ascending = event_log.position_of(workspace_id, after), True
    else:
        position, ascending = None, False
    rows, has_more = event_log.page(workspace_id, limit=limit, after=position, ascending=ascending,
                                    types=type, post_id=post_id, account_id=account_id)
    next_cursor = cursors.next_cursor(rt.keyring, workspace_id, rows, has_more, ascending=ascending)
    return page_view([event_view(e) for e in rows], next_cursor, has_more), 200


@api_call
def get_event(id, token_info):
    return event_view(event_log.get_event(token_info["workspace_id"], known_id(id, "evt", "event"))), 200
