"""Finding a post X took without saying so among the account's recent ones
(docs/platforms.md#the-x-adapter): X shortens every link (t.co), escapes &, < and >, may end
a post with its media's link and start a reply with the handles it answers, so the text is
compared as X shows it."""
from __future__ import annotations

import datetime as _dt
import html
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from ..contract import identifier
from .errors import X_ID
from .oauth import API

# A read of the recent posts goes back to the lost post's time, page after page of
# RECENT_PAGE (X's largest), at most RECENT_PAGES of them: the account may have posted
# many since.
RECENT_PAGE, RECENT_PAGES = 100, 5
_URL = re.compile(r"https?://\S+", re.IGNORECASE)
_MENTIONS = re.compile(r"^(?:@\w+\s+)+")


def same_text(sent: str, stored: str, *, reply: bool = False) -> bool:
    """Whether a post X lists is the one we sent (see the module's docstring)."""
    def norm(text: str) -> str:
        return " ".join(_URL.sub("\u2060", unicodedata.normalize("NFC", text)).split())
    ours, theirs = norm(sent), norm(html.unescape(stored))
    if reply and not ours.startswith("@"):
        theirs = _MENTIONS.sub("", theirs)
    return theirs == ours or (theirs.startswith(ours) and not theirs[len(ours):].replace("\u2060", "").strip())


def posted(recent: list[Mapping[str, Any]], caption: str, reply_to: str | None, since: _dt.datetime) -> str | None:
    """The id of the post being made among `recent` ones (its text, its parent, not older
    than `since`), or None."""
    for post in recent:
        if not same_text(caption, str(post.get("text") or ""), reply=bool(reply_to)):
            continue
        replied = [r.get("id") for r in post.get("referenced_tweets") or ()
                   if isinstance(r, dict) and r.get("type") == "replied_to"]
        if reply_to and replied and replied != [reply_to]:
            continue
        created = platform_time(post.get("created_at"))
        if created is None or created >= since:
            return identifier(post, "id", "the account's posts", X_ID)
    return None


def recent_posts(call: Callable[..., Mapping[str, Any]], user_id: str, since: _dt.datetime) -> list[Mapping[str, Any]]:
    """The account's posts, newest first, page after page back to `since`, read with the
    step's `call` (a page that cannot be read stops the step): the lost post may lie under
    many newer ones."""
    posts: list[Mapping[str, Any]] = []
    token = None
    for _ in range(RECENT_PAGES):
        params = {"max_results": str(RECENT_PAGE), "tweet.fields": "created_at,referenced_tweets"}
        if token:
            params["pagination_token"] = token
        body = call("GET", f"{API}/users/{quote(user_id, safe='')}/tweets", "the account's posts", params=params)
        page = [post for post in body.get("data") or [] if isinstance(post, dict)]
        posts += page
        meta = body.get("meta") if isinstance(body.get("meta"), dict) else {}
        token = meta.get("next_token")
        oldest = platform_time(page[-1].get("created_at")) if page else None
        if not page or not token or (oldest is not None and oldest < since):
            break
    return posts


def platform_time(value: Any) -> _dt.datetime | None:
    """X's `2026-11-22T10:00:00.000Z` as naive UTC, like our clock."""
    if not isinstance(value, str):
        return None
    try:
        moment = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(_dt.UTC).replace(tzinfo=None) if moment.tzinfo else moment
