"""POST /v1/upload, POST /v1/upload/preflight, GET /v1/posts, GET, PATCH and DELETE
/v1/posts/{id}."""
from __future__ import annotations

import logging

from connexion import request

from .. import runtime
from ..http import cursors
from ..http.execution import api_call, network_call
from ..models.edits import cancel_post, edit_post
from ..models.post import get_post as _get_post
from ..models.post import list_posts as _list_posts
from ..models.post import targets_of
from ..preflight import preflight
from ..tasks.publishing import wake
from ..uploads import upload
from ..views import page_view, post_summary, post_view, preflight_view
from . import known_id, no_content

log = logging.getLogger(__name__)


@api_call
def create_post(body, token_info):
    answer = upload(runtime.current(), token_info["workspace_id"], token_info["mode"], body,
                    request.headers.get("idempotency-key"))
    if answer.replayed:
        return answer.body, answer.status, {"Idempotent-Replayed": "true"}
    return answer.body, answer.status


@network_call
def preflight_post(body, token_info):
    # In the thread pool: it fetches media and may ask the platforms.
    rt = runtime.current()
    return preflight_view(preflight(rt, token_info["workspace_id"], body, token_info["mode"])), 200


@api_call
def get_post(id, token_info):
    return post_view(*_get_post(token_info["workspace_id"], known_id(id, "post", "post"))), 200


@api_call
def update_post(id, body, token_info):
    rt = runtime.current()
    edited = edit_post(rt, token_info["workspace_id"], known_id(id, "post", "post"), body, token_info["mode"])
    if edited.wake_at is not None:
        try:
            wake(rt, [t.id for t in edited.targets], edited.wake_at)
        except Exception:
            log.exception("could not enqueue publishing for %s; the sweeper will", edited.post.id)
    return post_view(edited.post, edited.targets), 200


@api_call
def delete_post(id, token_info):
    cancel_post(token_info["workspace_id"], known_id(id, "post", "post"), token_info["mode"])
    return no_content()


@api_call
def list_posts(token_info, limit=20, cursor=None, status=None, platform=None, scheduled=None):
    rt = runtime.current()
    workspace_id = token_info["workspace_id"]
    after = cursors.after(rt.keyring, workspace_id, cursor)
    posts, has_more = _list_posts(workspace_id, limit=limit, after=after, status=status, platform=platform,
                                  scheduled=scheduled, now=rt.now())
    targets = targets_of([p.id for p in posts])
    summaries = [post_summary(p, targets[p.id]) for p in posts]
    return page_view(summaries, cursors.next_cursor(rt.keyring, workspace_id, posts, has_more), has_more), 200
