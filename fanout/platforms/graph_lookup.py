"""What a step on Meta's Graph looks up, creating nothing (docs/platforms.md#threads,
#instagram):

- never twice (docs/architecture.md#never-twice): a publish whose answer was lost, or broke
  the contract, is read back through its container's status, and the post it made is found
  among the account's recent ones (the same text, not older than its container; a reply
  among the replies) rather than published again;
- the account's publishing limit, before anything is created or published.

`Lookups` is a part of `Containers` (fanout/platforms/graph.py), whose calls (`get`,
`read_container`, `status_of`) and sequence (`until_ready`, `publish_container`,
`read_permalink`, `part_out`) it uses.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any

from ..target_errors import RATE, UNKNOWN
from .base import Done, Outcome, Result, Stop, failed
from .contract import UnusableAnswer, may_be_out
from .graph_errors import GRAPH_ID
from .http import PlatformUnreachable
from .mapping import number
from .steps import ThreadSteps

# How many times the account's recent posts are read looking for a post that a lost publish
# call made, before it is settled as published without a URL.
LOOKUPS = 3
# How far back one look reads the account's posts, newest first: pages of RECENT_PAGE back
# to the container's creation, at most RECENT_PAGES of them (more than a day's cap of
# posts, which the account's other targets may have published since).
RECENT_PAGE, RECENT_PAGES = 50, 10
# The platform's own time may differ from ours: a recovered post may be this much older
# than the container we saved.
CLOCK_SKEW = _dt.timedelta(minutes=10)


class Lookups(ThreadSteps):
    """The publish read back, the post it made found, the publishing limit read (see the
    module's docstring)."""

    # -- never twice

    def reconcile_publish(self) -> Result:
        """A publish call may or may not have gone through: the container's status says."""
        container = self.state["container"]
        try:
            body = self.read_container(container)
            status = self.status_of(body)
        except UnusableAnswer as e:
            raise e.after(may_be_out(self.title)) from None
        if status == "PUBLISHED":
            return self.recover_post()
        # Not published (FINISHED, or the publish was refused): publishing now is safe.
        del self.state["creating"]
        container["ready"] = False
        waiting = self.until_ready(container, body)
        return waiting or self.publish_container()

    def published_anyway(self, error: UnusableAnswer) -> Result | None:
        """The publish answered what the contract does not promise, so the post may be out:
        the container's status says, now (`read_back`), and the publish is never sent again.
        Published, the post is looked for among the account's (out with or without its
        permalink); not published, or unreadable, the target fails with the break."""
        container = self.state["container"]
        status = self.read_back(error, lambda: self.status_of(self.read_container(container)))
        if status != "PUBLISHED":
            raise error.after(f"its container is {status}, so nothing was published")
        container["published"] = True
        post = self.find_recent()
        return self.found(post) if post is not None else self.gave_up()

    def recover_post(self) -> Result | None:
        """The container was published but we never heard the post's id: find the post
        among the account's recent ones. From here on nothing fails the part: it is
        published."""
        post = self.find_recent()
        if post is not None:
            return self.found(post)
        return self.look_again(f"{self.title} published the container but the post is not among the account's "
                               "recent ones yet")

    def find_recent(self) -> Mapping[str, Any] | None:
        """The post being made among the account's recent ones: the same text, not older
        than its container, the first such; None when it is not (yet) listed."""
        since = _dt.datetime.fromisoformat(self.state["container"]["created_at"]) - CLOCK_SKEW
        edge = self.replies_edge if self.reply_to and self.replies_edge else self.media_edge
        found = [
            post for post in recent_posts(self.get, f"{self.api}/{self.user}/{edge}", self.caption_field, since)
            if (post.get(self.caption_field) or "") == self.part.caption
            and (platform_time(post.get("timestamp")) or since) >= since
            and isinstance(post.get("id"), str) and GRAPH_ID.fullmatch(post["id"])
        ]
        return min(found, key=lambda p: platform_time(p.get("timestamp")) or since) if found else None

    def found(self, post: Mapping[str, Any]) -> Result | None:
        """The post is out, found among the account's: the part is, with its permalink."""
        self.state.pop("creating", None)
        self.state["post"] = post["id"]
        self.saved()
        permalink = post.get("permalink")
        if isinstance(permalink, str) and permalink.startswith("https://") and not self.commenting:
            return self.part_out(permalink)
        return self.read_permalink()

    def look_again(self, reason: str) -> Result | None:
        """The post exists but its permalink (or id) is not known yet: read again later, and
        after LOOKUPS tries settle it as published without a URL (never as failed: it is
        out). A thread goes on from a post whose id is known; one whose id never came
        cannot be replied to, and that target fails saying what is out."""
        self.state["lookups"] = self.state.get("lookups", 0) + 1
        if self.state["lookups"] >= LOOKUPS:
            return self.gave_up()
        return ThreadSteps.retry(self, reason)  # the post is out: no container's window bounds it

    def gave_up(self) -> Result | None:
        """The post is out but its permalink (or id) will not be known: settled published
        without a URL, never failed; a thread cannot go on from a post whose id never came."""
        if self.state.get("post"):
            if len(self.job.parts) == 1 and self.job.first_comment is None:
                return Done(Outcome())
            return self.part_out(None)
        if self.commenting:
            return Done(dataclasses.replace(self.published(), first_comment_error=(
                f"{self.title} published the first comment but never said its id; it may be there")))
        if len(self.job.parts) == 1 and self.job.first_comment is None:
            return Done(Outcome())
        return failed(UNKNOWN, f"{self.title} published part {self.index + 1} but never said its id, so "
                               "nothing could reply to it")

    # -- the publishing limit

    def foresee(self) -> list[Outcome]:
        """What a publish would fail with before creating anything, as the account's
        publishing limit says now (read from the platform): for a preflight."""
        return self.foreseen(lambda: self.check_quota(read=True))

    def check_quota(self, *, read: bool) -> None:
        """Stops with platform_rate_limited when the account has used its daily posts: as the
        platform's publishing limit says when `read` and it answers, else by our count."""
        limit = self.publishing_limit() if read else None
        if limit is not None:
            usage, total = limit
            if usage >= total:
                raise Stop(failed(RATE, f"{self.title} allows {total} posts in 24 hours and {usage} have been "
                                        "published"))
        elif self.job.published_last_24h >= self.daily_posts:
            raise Stop(failed(RATE, f"{self.title} allows {self.daily_posts} posts in 24 hours; this account "
                                    f"published {self.job.published_last_24h}"))

    def publishing_limit(self) -> tuple[int, int] | None:
        """(posts published in 24 h, allowed), or None when the platform does not say.

        Only a hint before creating or publishing: a failed read is not a reason to stop.
        """
        try:
            response = self.step.http.get(f"{self.api}/{self.user}/{self.limit_edge}", params={
                "fields": "quota_usage,config", "access_token": self.job.access_token})
        except PlatformUnreachable:
            return None
        body = response.json() if response.status == 200 else {}
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or not data or not isinstance(data[0], dict):
            return None
        usage, config = number(data[0].get("quota_usage")), data[0].get("config") or {}
        total = number(config.get("quota_total")) if isinstance(config, dict) else None
        return (usage, total) if usage is not None and total is not None else None


def recent_posts(get: Callable[..., Mapping[str, Any]], url: str, caption_field: str,
                 since: _dt.datetime) -> list[Mapping[str, Any]]:
    """The account's posts at `url`, newest first, page after page back to `since`, read
    with the step's `get`: the lost post may lie under many newer ones. A read that fails
    ends the list where it is."""
    posts: list[Mapping[str, Any]] = []
    after = None
    for _ in range(RECENT_PAGES):
        params = {"fields": f"id,permalink,{caption_field},timestamp", "limit": str(RECENT_PAGE)}
        if after:
            params["after"] = after
        try:
            body = get(url, "the account's posts", **params)
        except (Stop, UnusableAnswer):
            break
        page = [post for post in body.get("data") or [] if isinstance(post, dict)]
        posts += page
        paging = body.get("paging") if isinstance(body.get("paging"), dict) else {}
        cursors = paging.get("cursors") if isinstance(paging.get("cursors"), dict) else {}
        after = cursors.get("after")
        oldest = platform_time(page[-1].get("timestamp")) if page else None
        if len(page) < RECENT_PAGE or not after or (oldest is not None and oldest < since):
            break
    return posts


def platform_time(value: Any) -> _dt.datetime | None:
    """Graph's `2026-11-22T10:00:00+0000` as naive UTC, like our clock; None if unreadable."""
    if not isinstance(value, str):
        return None
    for parse in (lambda v: _dt.datetime.strptime(v, "%Y-%m-%dT%H:%M:%S%z"), _dt.datetime.fromisoformat):
        try:
            moment = parse(value)
        except ValueError:
            continue
        if moment.tzinfo is not None:
            moment = moment.astimezone(_dt.UTC).replace(tzinfo=None)
        return moment
    return None
