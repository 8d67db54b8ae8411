"""POST /v1/upload, GET /v1/posts, GET /v1/posts/{id}."""
from __future__ import annotations

import logging

from connexion import request

from .. import runtime
from ..http import cursors
from ..models import idempotency
from ..models.post import get_post as _get_post
from ..models.post import list_posts as _list_posts
from ..models.post import targets_of
from ..models.upload import create_post as _create_post
from ..models.upload import draft_from_request
from ..views import page_view, post_summary, post_view
from . import api_call, known_id

UPLOAD_PATH = "/v1/upload"
log = logging.getLogger(__name__)


@api_call
def create_post(body, token_info):
    rt = runtime.current()
    workspace_id = token_info["workspace_id"]
    draft = draft_from_request(body, token_info["mode"], insecure_urls=rt.settings.insecure_urls)

    def create() -> tuple[int, dict]:
        return 201, post_view(*_create_post(rt, workspace_id, draft))

    key = request.headers.get("idempotency-key")
    answer = idempotency.once(workspace_id, key, UPLOAD_PATH, body, rt.now(), create)
    if answer.replayed:
        return answer.body, answer.status, {"Idempotent-Replayed": "true"}
    rt.metrics.post_created(draft.sandbox)
    _wake_publishers(rt, answer.body)
    return answer.body, answer.status


def _wake_publishers(rt, post: dict) -> None:
    """Enqueue one publish task per target, after the post committed."""
    try:
        for target in post["targets"]:
            rt.tasks.publish(target["id"])
    except Exception:
        # The post is safely stored; the sweeper re-enqueues its targets within a minute.
        log.exception("could not enqueue publishing for %s; the sweeper will", post["id"])


@api_call
def get_post(id, token_info):
    return post_view(*_get_post(token_info["workspace_id"], known_id(id, "post", "post"))), 200


@api_call
def list_posts(token_info, limit=20, cursor=None, status=None, platform=None):
    rt = runtime.current()
    workspace_id = token_info["workspace_id"]
    after = cursors.after(rt.keyring, workspace_id, cursor)
    posts, has_more = _list_posts(workspace_id, limit=limit, after=after, status=status, platform=platform)
    targets = targets_of([p.id for p in posts])
    summaries = [post_summary(p, targets[p.id]) for p in posts]
    return page_view(summaries, cursors.next_cursor(rt.keyring, workspace_id, posts, has_more), has_more), 200
