"""Finding what a creating call made when its answer was lost or broke the contract, by reads
that create nothing (docs/platforms.md#facebook, never twice): a feed post among the
Page's posts (its message, its photos, not older than the call), a Page video among its
videos, a comment among the object's. Facebook offers no idempotency key, so the text and
the time decide, and a post's photos when it has them."""
from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..graph_errors import GRAPH_ID
from ..graph_lookup import CLOCK_SKEW, platform_time

# A look goes back to the call's time, RECENT_PAGE items at a time, at most RECENT_PAGES reads.
RECENT_PAGE, RECENT_PAGES = 50, 5


def listed(get: Callable[..., Mapping[str, Any]], path: str, what: str, since: _dt.datetime | None,
           fields: str, **extra: str) -> list[Mapping[str, Any]]:
    """The items of a Graph list at `path`, newest first, page after page back to `since`
    (unix `since` sent when given), read with the step's `get`."""
    items: list[Mapping[str, Any]] = []
    after = None
    for _ in range(RECENT_PAGES):
        params = {"fields": fields, "limit": str(RECENT_PAGE), **extra}
        if since is not None:
            params["since"] = str(int(since.replace(tzinfo=_dt.UTC).timestamp()))
        if after:
            params["after"] = after
        body = get(path, what, **params)
        page = [item for item in body.get("data") or () if isinstance(item, Mapping)]
        items += page
        paging = body.get("paging") if isinstance(body.get("paging"), Mapping) else {}
        cursors = paging.get("cursors") if isinstance(paging.get("cursors"), Mapping) else {}
        after = cursors.get("after")
        if len(page) < RECENT_PAGE or not after:
            break
    return items


def attached(post: Mapping[str, Any]) -> set[str]:
    """The ids of the photos a listed post shows (`attachments`, an album's subattachments)."""
    found: set[str] = set()
    attachments = post.get("attachments") if isinstance(post.get("attachments"), Mapping) else {}
    for item in attachments.get("data") or ():
        if not isinstance(item, Mapping):
            continue
        subs = item.get("subattachments") if isinstance(item.get("subattachments"), Mapping) else {}
        for each in (item, *(s for s in subs.get("data") or () if isinstance(s, Mapping))):
            target = each.get("target") if isinstance(each.get("target"), Mapping) else {}
            if isinstance(target.get("id"), str) and each.get("type") == "photo":
                found.add(target["id"])
    return found


def first_made(items: Iterable[Mapping[str, Any]], since: _dt.datetime, same: Callable[[Mapping[str, Any]], bool]
               ) -> Mapping[str, Any] | None:
    """The oldest of `items` that is `same` and not older than `since` (less the clocks'
    difference), with an id of Graph's shape; None when there is none."""
    since = since - CLOCK_SKEW
    found = [item for item in items if same(item) and isinstance(item.get("id"), str)
             and GRAPH_ID.fullmatch(item["id"]) and (platform_time(item.get("created_time")) or since) >= since]
    return min(found, key=lambda item: platform_time(item.get("created_time")) or since) if found else None


def find_post(get, page: str, since: _dt.datetime, message: str, photos: Iterable[str]) -> Mapping[str, Any] | None:
    """The feed post a lost call made: the same message (and the same photos, when it has
    them), made since the call."""
    photos = set(photos)
    posts = listed(get, f"{page}/feed", "the Page's posts", since - CLOCK_SKEW,
                   "id,message,created_time,permalink_url,attachments")
    return first_made(posts, since, lambda post: (post.get("message") or "") == message
                      and (not photos or attached(post) == photos))


def find_video(get, page: str, since: _dt.datetime, description: str) -> Mapping[str, Any] | None:
    """The Page video a lost call made: the same description, made since the call."""
    videos = listed(get, f"{page}/videos", "the Page's videos", since - CLOCK_SKEW, "id,description,created_time")
    return first_made(videos, since, lambda video: (video.get("description") or "") == description)


def find_comment(get, target: str, page: str, since: _dt.datetime, message: str) -> Mapping[str, Any] | None:
    """The Page's comment a lost call made on `target`: its message, by the Page."""
    comments = listed(get, f"{target}/comments", "the post's comments", None, "id,message,from,created_time",
                      order="reverse_chronological")
    return first_made(comments, since, lambda comment: comment.get("message") == message
                      and isinstance(comment.get("from"), Mapping) and comment["from"].get("id") == page)
