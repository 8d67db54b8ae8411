"""PATCH and DELETE /v1/posts/{id}: changing or cancelling a post before it publishes
(docs/decisions.md#posts-in-time).

Both are allowed while every target of the post is `pending`, that is while no worker has
claimed any (fanout/models/lifecycle.py: a claim is the only way out of `pending` but a
failure before publishing). The race with a claim is settled by row locks, taken in one
order by everyone: a claim locks its target, then the post; an edit or a cancel locks all
the post's targets (in id order), checks them, then writes the post. So either the edit
commits first, and the claim that waited for it re-reads the target (not due any more, or
gone) and the worker reads the new content after its claim commits; or the claim commits
first, and the edit sees a target that is not `pending` and answers 409 with nothing
changed. On SQLite, write transactions run one at a time and the same checks decide.

An edit is the whole new post checked by the upload's rules (fanout/models/upload.py):
the stored post with the changes made, under the caller's key, so it answers what an
upload of it would (400, 403 `sandbox_key_not_allowed`, 422). Destinations and mode are
not changed by an edit (the schema refuses them).
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass

from ..content import parse_overrides
from ..problems import NotFound, PostNotEditable, SandboxKeyNotAllowed
from .db import locked, write_transaction
from .post import get_post
from .tables.post import Post
from .tables.target import Target
from .upload import check_destinations, draft_from_request, due_time, wake_time

# The fields an edit may change; the schema (`PostUpdate` in openapi.yaml) takes no other.
EDITABLE = ("caption", "media", "overrides", "scheduled_at")


@dataclass(frozen=True)
class Edited:
    post: Post
    targets: list[Target]
    # The due time the post's targets need a wake-up task for, enqueued once the edit has
    # committed; None when nothing changed it or it is far enough off for the sweeper.
    wake_at: _dt.datetime | None


def edit_post(rt, workspace_id: str, post_id: str, changes: dict, key_mode: str) -> Edited:
    """Change the post's caption, media, overrides (replaced as a whole) or scheduled time
    while it is unclaimed."""
    now = rt.now()
    with write_transaction():
        post, targets = _editable(workspace_id, post_id, key_mode, "changed")
        body = {
            "caption": changes.get("caption", post.caption),
            "media": changes.get("media", post.media_list),
            "overrides": changes["overrides"] if "overrides" in changes else parse_overrides(post.overrides),
            "account_ids": [t.account_id for t in sorted(targets, key=lambda t: t.position)],
            "sandbox": post.sandbox,
        }
        if post.simulate_error is not None:
            body["simulate_error"] = post.simulate_error
        if "scheduled_at" in changes:
            body["scheduled_at"] = changes["scheduled_at"]
        draft = draft_from_request(body, key_mode, now=now, insecure_urls=rt.settings.insecure_urls)
        check_destinations(rt.platforms, workspace_id, draft)
        scheduled_at = draft.scheduled_at if "scheduled_at" in changes else post.scheduled_at
        Post.update(caption=draft.caption, media=json.dumps(draft.media),
                    overrides=json.dumps(draft.overrides) if draft.overrides else None,
                    scheduled_at=scheduled_at).where(Post.id == post.id).execute()
        wake_at = None
        if "scheduled_at" in changes:
            due_at = due_time(scheduled_at, now)
            wake_at = wake_time(due_at, now)
            # A far time keeps the old `wake_at`, which no longer matches: the sweeper
            # enqueues the new time's wake-up when it comes near.
            Target.update(due_at=due_at, wake_at=wake_at or Target.wake_at, updated_at=now).where(
                Target.post == post.id).execute()
        post, targets = get_post(workspace_id, post_id)
    return Edited(post, targets, wake_at)


def cancel_post(workspace_id: str, post_id: str, key_mode: str) -> None:
    """Delete the post and its targets while it is unclaimed. The month's post count is not
    given back: it counts posts created."""
    with write_transaction():
        post, _ = _editable(workspace_id, post_id, key_mode, "cancelled")
        Post.delete().where(Post.id == post.id).execute()  # its targets and platform rows cascade


def _editable(workspace_id: str, post_id: str, key_mode: str, what: str) -> tuple[Post, list[Target]]:
    """The post and its targets, locked (in id order), if it may still be changed;
    NotFound, SandboxKeyNotAllowed or PostNotEditable otherwise."""
    post = Post.get_or_none((Post.id == post_id) & (Post.workspace == workspace_id))
    if post is None:
        raise NotFound("no such post in this workspace")
    if key_mode == "sandbox" and not post.sandbox:
        raise SandboxKeyNotAllowed("a sandbox key cannot change or cancel a live post; use a live key")
    targets = list(locked(Target.select().where(Target.post == post_id).order_by(Target.id)))
    # Read again with its targets locked: another edit may have committed while this waited.
    post = Post.get_or_none(Post.id == post_id)
    if post is None or not targets:
        raise NotFound("no such post in this workspace")  # cancelled while this waited for its lock
    for target in sorted(targets, key=lambda t: t.position):
        if target.status != "pending":
            raise PostNotEditable(
                f"the post cannot be {what}: its {target.platform} target is {target.status} "
                f"({_since(target.status)}); a post can be changed or cancelled only while every target is pending")
    return post, targets


def _since(status: str) -> str:
    if status == "processing":
        return "a worker has started publishing it"
    return "publishing it has ended"
