"""Posts and their targets read back (one post, a page of posts, the backlog), and the one
rule that derives a post's status from its targets."""
from __future__ import annotations

from peewee import Tuple, fn

from ..problems import NotFound
from .db import Compiled, children_of
from .tables.post import Post
from .tables.post_platform import PostPlatform
from .tables.target import Target

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
