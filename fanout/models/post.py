"""Posts, their targets, and the one rule that derives a post's status from its targets."""
from __future__ import annotations

import json

from peewee import BooleanField, CharField, DateTimeField, ForeignKeyField, IntegerField, TextField, Tuple, fn

from ..content import Content, content_for, parse_overrides
from ..problems import NotFound
from .db import BaseModel, Compiled, children_of
from .workspace import Workspace

IN_FLIGHT = ("pending", "processing")


def derive_status(target_statuses: list[str]) -> str:
    """docs/decisions.md#post-status, in-flight rule included: the only place post status is decided."""
    if any(s in IN_FLIGHT for s in target_statuses):
        return "pending" if all(s == "pending" for s in target_statuses) else "processing"
    if all(s == "published" for s in target_statuses):
        return "completed"
    if all(s == "failed" for s in target_statuses):
        return "failed"
    return "partial"


class Post(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, backref="posts", on_delete="CASCADE")
    sandbox = BooleanField()
    caption = TextField()
    media = TextField()  # JSON list of {"url", "type"}
    simulate_error = CharField(max_length=40, null=True)
    # Per-platform content (JSON by platform, fanout/content.py), null when there is none.
    overrides = TextField(null=True)
    # Stored (re-derived whenever a target moves) so the status filter is an indexed query.
    status = CharField(max_length=20)
    created_at = DateTimeField()
    # When it publishes (docs/decisions.md#posts-in-time); null: at once.
    scheduled_at = DateTimeField(null=True)

    class Meta:
        indexes = (
            (("workspace", "created_at", "id"), False),
            (("workspace", "status", "created_at", "id"), False),
        )

    @property
    def media_list(self) -> list[dict]:
        return json.loads(self.media)

    def content_for(self, platform: str) -> Content:
        """What this post's targets on `platform` publish (fanout/content.py)."""
        return content_for(self.caption, self.media_list, parse_overrides(self.overrides), platform)


class Target(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    post = ForeignKeyField(Post, backref="targets", on_delete="CASCADE")
    # No foreign key: a disconnected account's targets stay readable.
    account_id = CharField(max_length=40, index=True)
    platform = CharField(max_length=20)
    position = IntegerField()
    status = CharField(max_length=20, default="pending")
    external_url = TextField(null=True)
    published_at = DateTimeField(null=True)
    error_code = CharField(max_length=40, null=True)
    error_message = TextField(null=True)
    # Why the first comment was not posted, on a published target (openapi.yaml, `Target`).
    first_comment_error = TextField(null=True)
    # A thread's parts that are out, as the last step said (JSON, fanout/platforms/base.py
    # `PublishedParts`); null before any step said, and on a target without a thread.
    published_parts = TextField(null=True)
    # Each claim by a worker bumps `attempts`; a finish must name the attempt it belongs to,
    # so a worker whose lease was taken back can no longer settle the target.
    attempts = IntegerField(default=0)
    lease_expires_at = DateTimeField(null=True)
    # What the platform adapter saved between steps (JSON: container ids, upload ids...) and
    # when its next step is due, for a `processing` target nobody holds (fanout/platforms/base.py).
    state = TextField(null=True)
    next_check_at = DateTimeField(null=True)
    updated_at = DateTimeField()
    # When a `pending` target may be claimed: its post's scheduled time, or its creation
    # (fanout/models/lifecycle.py). `wake_at`: the due time a wake-up task was enqueued for,
    # so the sweeper enqueues one for each target falling due soon, once
    # (fanout/tasks/publishing.py).
    due_at = DateTimeField(null=True)
    wake_at = DateTimeField(null=True)

    class Meta:
        indexes = (
            (("post", "position"), True),
            (("status", "updated_at"), False),
            (("status", "next_check_at"), False),
            (("status", "due_at"), False),
        )

    @property
    def saved_state(self) -> dict:
        return json.loads(self.state) if self.state else {}

    @property
    def parts_out(self) -> list:
        """The permalinks of the thread's parts that are out, in order ([] before any is)."""
        return json.loads(self.published_parts) if self.published_parts else []


class PostPlatform(BaseModel):
    """One row per (post, platform): keyset pages filtered by platform walk this index."""

    post = ForeignKeyField(Post, on_delete="CASCADE")
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    platform = CharField(max_length=20)
    created_at = DateTimeField()

    class Meta:
        primary_key = False
        indexes = (
            (("post", "platform"), True),
            (("workspace", "platform", "created_at", "post"), False),
        )


def count_in_flight(now) -> dict[str, int]:
    """Targets not final yet and due by `now`, by status: {"pending": n, "processing": m}.
    A scheduled post's targets count once their time has come: the backlog, not the plans."""
    counts = dict.fromkeys(IN_FLIGHT, 0)
    due = (Target.status == "processing") | ((Target.status == "pending") & (Target.due_at <= now))
    query = (Target.select(Target.status, fn.COUNT(Target.id).alias("n"))
             .where(due).group_by(Target.status))
    for row in query:
        counts[row.status] = row.n
    return counts


def targets_of(post_ids: list[str]) -> dict[str, list[Target]]:
    """Targets of several posts in one query, each post's in position order."""
    return children_of(Target, Target.post, post_ids, Target.position)


_POST = Compiled(Post, lambda post_id, workspace_id: (
    Post.select().where((Post.id == post_id) & (Post.workspace == workspace_id)).limit(1)))
_TARGETS = Compiled(Target, lambda post_id: Target.select().where(Target.post == post_id).order_by(Target.position))


def get_post(workspace_id: str, post_id: str) -> tuple[Post, list[Target]]:
    """One post and its targets, by queries compiled once: GET /v1/posts/{id} is hot."""
    post = _POST.first(post_id, workspace_id)
    if post is None:
        raise NotFound("no such post in this workspace")
    return post, _TARGETS.rows(post_id)


def page_query(workspace_id: str, *, limit: int, after=None, status=None, platform=None, scheduled=None, now=None):
    """Newest first by (created_at, id), keyset-paged: one index range scan, so a page deep
    in the list costs what the first does. `after` is the (created_at, id) of the last post
    of the previous page. `scheduled`: True for the posts whose `scheduled_at` is after
    `now`, False for the others. Fetches one extra row to tell whether more follow."""
    if platform is None:
        query = Post.select().where(Post.workspace == workspace_id)
        order_time, order_id = Post.created_at, Post.id
    else:
        query = (
            Post.select()
            .join(PostPlatform, on=(PostPlatform.post == Post.id))
            .where((PostPlatform.workspace == workspace_id) & (PostPlatform.platform == platform))
        )
        order_time, order_id = PostPlatform.created_at, PostPlatform.post
    if status is not None:
        query = query.where(Post.status == status)
    if scheduled is not None:
        future = Post.scheduled_at.is_null(False) & (Post.scheduled_at > now)
        query = query.where(future if scheduled else ~future)
    if after is not None:
        query = query.where(Tuple(order_time, order_id) < Tuple(*after))
    return query.order_by(order_time.desc(), order_id.desc()).limit(limit + 1)


def list_posts(workspace_id: str, *, limit: int, **filters) -> tuple[list[Post], bool]:
    """One page of posts and whether more follow."""
    posts = list(page_query(workspace_id, limit=limit, **filters))
    return posts[:limit], len(posts) > limit
