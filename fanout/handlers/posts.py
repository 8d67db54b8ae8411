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
    answer = upload(runtime.current(), token_info["workspace_id"], token_info["mode"], body,
                    request.headers.get("idempotency-key"))
    if answer.replayed:
        return answer.body, answer.status, {"Idempotent-Replayed": "true"}
    return answer.body, answer.status


def upload(rt, workspace_id: str, key_mode: str, body: dict, idempotency_key: str | None) -> idempotency.Answer:
    """What `POST /v1/upload` does with a body that passed its schema, for the API and the
    dashboard's post form alike: the upload's rules, the post, its count and its key's
    answer in one transaction (or the answer replayed), then its publishers woken."""
    draft = draft_from_request(body, key_mode, insecure_urls=rt.settings.insecure_urls)

    def create() -> tuple[int, dict]:
        return 201, post_view(*_create_post(rt, workspace_id, draft))

    answer = idempotency.once(workspace_id, idempotency_key, UPLOAD_PATH, body, rt.now(), create)
    if not answer.replayed:
        rt.metrics.post_created(draft.sandbox)
        _wake_publishers(rt, answer.body)
    return answer


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
