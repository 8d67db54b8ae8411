"""X (API v2, OAuth 2.0 with PKCE): the OAuth flow, media uploads and posts
(docs/platforms.md#the-x-adapter).

Authorize on x.com, everything else on api.x.com under `/2` (the OAuth flow: oauth.py;
the answers: errors.py).

A post is published in steps over saved state:
1. each media file is fetched once (fanout/outbound/media_fetch.py checks it as it streams) and
   uploaded, then what X processes (videos, GIFs) is read back until it succeeded (media.py);
2. `POST /2/tweets` with the text and up to 4 media ids (and the post's options, on the
   first post); `external_url` is `https://x.com/{username}/status/{id}`.
A thread's further parts follow the same steps, each a reply to the part before it
(`reply.in_reply_to_tweet_id`), then the first comment, a reply to the first post; the
target is published, with the first post's permalink, once every part is out.

Never twice: the post is the one call that must not be repeated blindly, for each part and
the comment. A marker is saved before it; a step that finds the marker without the post's
id reads the account's recent posts for the same text (and parent) first (lookup.py), and
sends again only when it is not there (X itself then
refuses a duplicate, which is taken as the sign that the first one went out). Uploads may
be repeated: media nobody posts expires. An answer that breaks X's contract (a 2xx that is
not JSON, an id that is not digits, a processing state X does not list:
fanout/platforms/contract.py) fails the target at once; the post's own answer is first
read back in the same step, among the recent posts, and the post is never sent again.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import Any
from urllib.parse import quote

from ...target_errors import AUTH, UNKNOWN
from ..base import Done, Job, Outcome, Result, Step, Stop, Wait, failed
from ..contract import UnusableAnswer, identifier, may_be_out, member
from .errors import ENVELOPE, MAPPING, X_ID
from .lookup import posted, recent_posts, same_text
from .media import MediaSteps
from .oauth import API, SCOPES, TITLE, authorize, exchange, refresh, refresh_due
from .rules import RULES

HOSTS = ("x.com", "api.x.com")
UPLOADS_MEDIA = True

# Per account, 100 posts in 15 minutes; per app 10,000 in 24 hours, which Fanout holds each
# workspace's X accounts to (docs/platforms.md#the-x-adapter).
ACCOUNT_POSTS, ACCOUNT_WINDOW = 100, _dt.timedelta(minutes=15)
WORKSPACE_POSTS, WORKSPACE_WINDOW = 10_000, _dt.timedelta(hours=24)
LOOKUPS = 3  # reads of the recent posts before a lost post is settled published without a URL
CLOCK_SKEW = _dt.timedelta(minutes=10)
# openapi.yaml `XOptions`: sent as X names them, on the first post of a thread.
OPTIONS = ("reply_settings", "quote_tweet_id")


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before calling X: its windows, as this
    service counts them (a preflight)."""
    posting = _Posting(step, job)
    return posting.foreseen(posting.check_limits)


def permalink(username: str, post_id: str) -> str:
    return f"https://x.com/{quote(username, safe='')}/status/{quote(post_id, safe='')}"


class _Posting(MediaSteps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `thread`: the ids of the parts posted so far, in order (the first post first);
    - for the post being made (the next part, or the first comment once every part is out):
      `media`: per item, in its order (media.py); `creating`: "tweet" while the post may be
      in flight, with `tweet_at`; `resent`: it is being sent again after it was not found (a
      duplicate refusal then means the first one went out); `lookups`: how often recent
      posts were searched for it; `post`: its id (a state saved before the thread existed);
    - `comment`: the first comment's id, once posted.
    """

    PART_KEYS = ("media", "creating", "tweet_at", "resent", "lookups", "post")
    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES
    unknown_in_words = True  # "duplicate content" is X's to say

    # -- the sequence: the parts in order, each a reply to the one before, then the comment

    @property
    def reply_to(self) -> str | None:
        """The post this one replies to: the part before it; the first post for the comment."""
        posted_ = self.state["thread"]
        if self.commenting:
            return posted_[0]
        return posted_[self.index - 1] if self.index else None

    def resume(self) -> None:
        if self.state.get("post") and not self.state["thread"]:  # the first post, saved before threads
            self.settle(self.state["post"])

    def published(self) -> Outcome:
        return Outcome(external_url=permalink(self.job.username, self.state["thread"][0]))

    def parts_out(self) -> tuple[str, ...]:
        return tuple(permalink(self.job.username, i) for i in self.state.get("thread", []))

    def where(self) -> str:
        """The part being posted and the permalinks of those already out, for messages."""
        return (f"part {self.index + 1} of {len(self.job.parts)} (thread[{self.index - 1}]) was not posted; "
                f"already published: {', '.join(self.parts_out())}")

    def publish_part(self) -> Result | None:
        if self.state.get("creating") == "tweet":
            return self.reconcile()
        self.check_limits()
        items = self.state.setdefault("media", [])
        for index in range(len(items), len(self.part.media)):
            items.append(self.upload(index))
            self.saved()
        waiting = [w for w in (self.until_ready(item) for item in items) if w is not None]
        if waiting:
            return Wait(until=min(waiting), state=self.snapshot())
        self.check_limits()
        return self.post()

    def check_limits(self) -> None:
        """X's caps, counted here so that the excess fails without a call."""
        self.under_cap(self.now - ACCOUNT_WINDOW, ACCOUNT_POSTS, lambda made: (
            f"{TITLE} allows {ACCOUNT_POSTS} posts in 15 minutes per account; this account published {made}"))
        self.under_cap(self.now - WORKSPACE_WINDOW, WORKSPACE_POSTS, lambda made: (
            f"{TITLE} allows {WORKSPACE_POSTS} posts in 24 hours per app; this workspace's {TITLE} accounts "
            f"published {made}"), workspace=True)

    # -- the post

    def post(self) -> Result | None:
        payload: dict[str, Any] = {}
        if self.part.caption:
            payload["text"] = self.part.caption
        if self.state["media"]:
            payload["media"] = {"media_ids": [item["id"] for item in self.state["media"]]}
        if self.reply_to:
            payload["reply"] = {"in_reply_to_tweet_id": self.reply_to}
        elif self.index == 0:
            payload.update({k: v for k, v in self.job.options.items() if k in OPTIONS})
        self.state["creating"], self.state["tweet_at"] = "tweet", self.now.isoformat()
        self.saved()
        try:
            body = self.call("POST", f"{API}/tweets", "the post", json_body=payload, special=self.duplicate)
            post_id = identifier(member(body, "data", "the post"), "id", "the post", X_ID)
        except _Duplicate:
            return self.look_again(f"{TITLE} says the post already exists, but it is not among the recent ones yet")
        except UnusableAnswer as e:
            # The post may be out: looked for now among the recent posts, never sent again.
            return self.settle(self.read_back(e, lambda: self.find(self.since)))
        return self.settle(post_id)

    def duplicate(self, response, answer) -> None:
        """A post sent again that X refuses as a duplicate: the first one went out."""
        if self.state.get("resent") and "duplicate content" in answer.text:
            raise _Duplicate()

    @property
    def since(self) -> _dt.datetime:
        return _dt.datetime.fromisoformat(self.state["tweet_at"]) - CLOCK_SKEW

    def find(self, since: _dt.datetime, recent=None) -> str | None:
        recent = recent_posts(self.call, self.job.user_id, since) if recent is None else recent
        return posted(recent, self.part.caption, self.reply_to, since)

    def settle(self, post_id: str) -> None:
        """The current post is out: its id joins the thread (or is the comment's), saved."""
        for key in self.PART_KEYS:
            self.state.pop(key, None)
        if self.commenting:
            self.state["comment"] = post_id
        else:
            self.state["thread"].append(post_id)
        self.saved()
        return None

    def reconcile(self) -> Result | None:
        """A post may or may not have gone out: look for it before sending anything."""
        try:
            recent = recent_posts(self.call, self.job.user_id, self.since)
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None  # without the list, sending again could post twice
        except Stop as stop:
            failure = stop.result.outcome.error_code if isinstance(stop.result, Done) else None
            if failure is None or failure == AUTH:
                raise  # a retry, or the token (refreshed once by the engine, then this again)
            # X would not list the posts: go on as if it is not there. A text post sent
            # again is refused as a duplicate if the first went out.
            recent = []
        try:
            found = self.find(self.since, recent)
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None
        if found is not None:
            return self.settle(found)
        # Not there: the post never arrived. Sending it again is safe; if it did arrive after
        # all, X refuses the duplicate and that refusal says so.
        self.state["resent"] = True
        self.check_limits()
        return self.post()

    def look_again(self, reason: str) -> Result:
        """The post is out but its id is not known: read again later, and after LOOKUPS
        tries settle it as published without a URL (never failed: it is out). A thread
        cannot go on without it (its next part replies to it): that target fails, saying
        what is out."""
        self.state["lookups"] = self.state.get("lookups", 0) + 1
        if self.state["lookups"] >= LOOKUPS:
            if self.commenting:
                return Done(dataclasses.replace(self.published(), first_comment_error=(
                    f"{TITLE} took the first comment but never said its id; it may be there")))
            if len(self.job.parts) == 1 and self.job.first_comment is None:
                return Done(Outcome())
            out = ", ".join(self.parts_out())
            return failed(UNKNOWN, f"{TITLE} took part {self.index + 1} of the thread but never said its id, so "
                                   "nothing could reply to it" + (f"; already published: {out}" if out else ""))
        self.state["creating"] = "tweet"
        return self.retry(reason)

    # -- calls (fanout/platforms/steps.py `call`)

    def accept(self, response, what, token=None):
        body = super().accept(response, what, token)
        # A 2xx may carry `errors` beside `data` (partial errors): the data is the answer.
        return body if what is None or "data" in body or "errors" not in body else None

    def reset_at(self, headers: dict) -> Any:
        """The moment the limit that was hit resets: a 24-hour one's when it is spent."""
        reset = headers.get("x-rate-limit-reset")
        for scope in ("user", "app"):
            if headers.get(f"x-{scope}-limit-24hour-remaining") == "0":
                reset = headers.get(f"x-{scope}-limit-24hour-reset") or reset
        return reset


class _Duplicate(Exception):
    """X refused a post sent again as a duplicate: the first one went out."""


__all__ = ["HOSTS", "SCOPES", "authorize", "exchange", "foresee", "permalink", "publish", "refresh", "refresh_due",
           "same_text"]
