"""The upload as a service (`POST /v1/upload`): what the API's handler and the dashboard's
post form both call, so a post made either way meets the same rules, caps and
idempotency (docs/decisions.md#the-workspace-dashboard)."""
from __future__ import annotations

import logging

from .models import idempotency
from .models.upload import create_post, draft_from_request, wake_time
from .tasks.publishing import wake
from .times import parse_isoformat
from .views import post_view

# The path an Idempotency-Key is kept under, whichever way the upload came.
UPLOAD_PATH = "/v1/upload"
log = logging.getLogger(__name__)


def upload(rt, workspace_id: str, key_mode: str, body: dict, idempotency_key: str | None) -> idempotency.Answer:
    """What `POST /v1/upload` does with a body that passed its schema, for the API and the
    dashboard's post form alike: the upload's rules, the post, its count and its key's
    answer in one transaction (or the answer replayed), then its publishers woken."""
    draft = draft_from_request(body, key_mode, now=rt.now(), insecure_urls=rt.settings.insecure_urls)

    def create() -> tuple[int, dict]:
        return 201, post_view(*create_post(rt, workspace_id, draft))

    answer = idempotency.once(workspace_id, idempotency_key, UPLOAD_PATH, body, rt.now(), create)
    if not answer.replayed:
        rt.metrics.post_created(draft.sandbox)
        _wake_publishers(rt, answer.body)
    return answer


def _wake_publishers(rt, post: dict) -> None:
    """Enqueue the targets' wake-ups after the post committed: at once, or for its
    scheduled time when that is near (fanout/models/upload.py `wake_time`, the rule the
    upload marked its targets by); the sweeper enqueues the others' later."""
    try:
        due_at = parse_isoformat(post["scheduled_at"])
        if due_at is not None and wake_time(due_at, parse_isoformat(post["created_at"])) is None:
            return
        wake(rt, [target["id"] for target in post["targets"]], due_at)
    except Exception:
        # The post is safely stored; the sweeper re-enqueues its targets within a minute of
        # their time.
        log.exception("could not enqueue publishing for %s; the sweeper will", post["id"])
