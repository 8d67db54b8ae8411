"""Meta's Graph API as Threads and Instagram speak it (docs/platforms.md#threads, #instagram).

Both answer errors in one envelope, issue long-lived tokens that refresh themselves, and
publish through containers. This module holds what they share: the mapping table's
machinery (`Rule`, `Answer`, `classify`), the token calls' answers, and `Containers`, the
publishing sequence over saved state, which each adapter subclasses with its paths and
parameters:

1. create the container: one for a single post; for a carousel, one per item
   (`is_carousel_item`) and then the parent (`CAROUSEL` with `children`);
2. read each container's status until it is FINISHED, returning `Wait` in between (a
   video is processed for a while) on the schedule of fanout/platforms/polling.py, and
   fail `container_expired` once the platform's window is over (a setting, counted from
   the container's creation): no wait and no retry of a read goes past it;
3. read the publishing limit, then publish the container;
4. read the post's permalink.
A target with a thread (Threads) publishes each further part the same way, as a reply to
the part before it (`reply_param`); its first comment comes last, once every part is out:
on Threads a reply to the first post, on Instagram a comment on the media (each platform's
`publish_comment`). The target is published with the first post's permalink.

Never twice (docs/architecture.md#never-twice): each call that creates something (a
container, the publish) is preceded by `step.save` of a marker naming it (`creating`), and
its result is saved after it. A step that finds a marker without its result reconciles
before sending anything again: a lost container is simply made again (one never published
expires on its own), a lost publish is looked up through the container's status. This
holds for every part of a thread and for the comment: each is saved before its call and
read back before it is sent again. An answer that breaks the Graph contract (a 200 that is
not JSON, an id of the wrong shape, a container status Meta does not list:
fanout/platforms/contract.py) fails the target at once. A publish answered so is read back
in the same step, through the container's status and the account's posts, and never sent
again; once the post is known to be out, a broken read settles it without its permalink.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..target_errors import EXPIRED, RATE, UNKNOWN
from .base import AuthFailed, Done, Job, Outcome, Result, Retry, Step, Stop, Wait, failed
from .contract import UnusableAnswer, document, identifier, may_be_out, one_of
from . import mapping
from .http import PlatformResponse, PlatformUnreachable
from .mapping import Rule, classify, number, quoted, scrub
from .oauth import answered
from .polling import next_check
from .steps import RETRY_AFTER, ThreadSteps

# Not a failure: the container is not ready to publish yet; poll it again.
NOT_READY = "not_ready"
# Graph ids are strings of digits (some objects' joined by `_`); a container's status is
# one of these (Threads' `status`, Instagram's `status_code`).
GRAPH_ID = re.compile(r"[0-9]{1,32}(?:_[0-9]{1,32})?")
CONTAINER_STATUSES = ("IN_PROGRESS", "FINISHED", "PUBLISHED", "ERROR", "EXPIRED")

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


# --- answers, for a mapping table -------------------------------------------------------

@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What the platform said, reduced to the signals a mapping table reads (`text`: the
    error object's strings, lower case)."""

    code: int | None = None
    subcode: int | None = None
    container_status: str | None = None
    container_error: str | None = None


def read_answer(response: PlatformResponse, *secrets: str | None) -> Answer:
    """An error answer: the Graph envelope `{"error": {...}}`, or the flat one of Instagram's
    OAuth host (`{"error_type", "code", "error_message"}`)."""
    body = response.json()
    raw = quoted(response, *secrets)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        if not (isinstance(body, dict) and isinstance(body.get("error_message"), str)):
            return Answer(raw=raw, http=response.status)
        error = body
    strings = [str(v) for v in error.values() if isinstance(v, str)]
    message = error.get("error_user_msg") or error.get("message") or error.get("error_message") or ""
    return Answer(
        raw=raw, http=response.status, code=number(error.get("code")), subcode=number(error.get("error_subcode")),
        text=" ".join(strings).lower(), message=scrub(str(message), *secrets),
    )


def outcome_of(title: str, mapping: tuple[Rule, ...], answer: Answer) -> tuple[Rule | None, Outcome]:
    """The target's failure for an answer, and the row that decided it (None: unmatched)."""
    rule = classify(mapping, answer)
    code = rule.code if rule else UNKNOWN
    if code == UNKNOWN:
        message = f"{title} answered {answer.raw}"
    elif code == EXPIRED:
        message = f"{title} let the container expire before it was published"
    elif answer.container_error:
        message = f"{title} could not use the media: {answer.container_error}"
    else:
        message = f"{title}: {answer.message or answer.raw}"
    return rule, Outcome(error_code=code, error_message=message)


# --- token calls -------------------------------------------------------------------------

def json_or_refusal(title: str, response: PlatformResponse, what: str, *secrets: str | None) -> Mapping[str, Any]:
    """A 200 JSON object; AuthFailed when the platform refuses, PlatformUnreachable when it
    is busy or limited (the token stays as it is and is tried again later)."""
    body = answered(response, title, what).json()
    if response.status != 200 or not isinstance(body, dict):
        answer = read_answer(response, *secrets)
        raise AuthFailed(f"{title} refused {what}: {answer.message or answer.raw}")
    return body


def token_answer(title: str, response: PlatformResponse, what: str, *secrets: str | None) -> Mapping[str, Any]:
    body = json_or_refusal(title, response, what, *secrets)
    if not isinstance(body.get("access_token"), str) or not body["access_token"]:
        raise AuthFailed(f"{title} answered {what} without a token")
    return body


# --- publishing through containers -------------------------------------------------------

class Containers(ThreadSteps):
    """One step of publishing a job through containers (fanout/platforms/steps.py), whose
    retries stop at the containers' window. Subclasses name the platform's paths and
    parameters (the class attributes and the hooks below).

    State keys (all JSON):
    - `thread`: the parts published so far, in order: {id, permalink, container} (the first
      post first; `container` as it was when the post was published);
    - for the post being made (the next part, or the first comment once every part is out):
      `creating`: the creating call that may be in flight: `item:<i>`, `container`,
      `publish` (or `comment`); `items`: carousel item containers, in the media's order:
      {id, created_at, ready}; `container`: the container to publish (the single one, or
      the carousel's parent): {id, created_at, ready, published?} (`published`: its status
      said so); `post`: the published post's id; `lookups`: how often recent posts were
      searched; `repeats`: calls repeated on a row's advice (`Rule.repeats`);
    - `comment`: the first comment's id, once posted.
    """

    PART_KEYS = ("creating", "items", "container", "post", "lookups", "repeats")

    title: str
    mapping: tuple[Rule, ...]
    daily_posts: int  # the platform's cap, when its publishing limit cannot be read
    media_edge: str  # POST /{user}/<edge> creates a container; GET lists the posts
    publish_edge: str
    limit_edge: str
    caption_field: str  # a listed post's text
    status_fields: str  # what a container's status is read with
    poll: _dt.timedelta  # the longest wait between two reads of a processing container
    quota_first: bool = False  # read the publishing limit before creating anything too
    reply_param: str | None = None  # how a container replies to a post (threads)
    replies_edge: str = ""  # GET /{user}/<edge> lists the user's replies, newest first
    OPTIONS: tuple[str, ...] = ()  # openapi.yaml `<Platform>Options`, sent as the platform names them

    def __init__(self, step: Step, job: Job, api: str, window: _dt.timedelta):
        super().__init__(step, job)
        self.api, self.window = api, window
        self.index = 0  # the part being published; len(job.parts) for the first comment

    # -- what each platform says differently

    def single(self) -> dict:
        """The parameters of the container of a one-item (or text) post."""
        raise NotImplementedError

    def item(self, media: Mapping[str, str]) -> dict:
        """The parameters of a carousel item's container (`is_carousel_item` is added)."""
        raise NotImplementedError

    def carousel(self, children: list[str]) -> dict:
        raise NotImplementedError

    def container_status(self, body: Mapping[str, Any]) -> str | None:
        """IN_PROGRESS, FINISHED, PUBLISHED, ERROR or EXPIRED."""
        raise NotImplementedError

    def container_answer(self, body: Mapping[str, Any]) -> Answer:
        """A failed (ERROR or EXPIRED) container, for the mapping table."""
        raise NotImplementedError

    # -- the sequence: the parts in order, each a reply to the one before, then the comment

    @property
    def reply_to(self) -> str | None:
        """The post this one replies to: the part before it; the first post for the comment."""
        posted = self.state["thread"]
        if self.commenting:
            return posted[0]["id"]
        return posted[self.index - 1]["id"] if self.index else None

    def published(self) -> Outcome:
        return Outcome(external_url=self.state["thread"][0]["permalink"])

    def parts_out(self) -> tuple[str | None, ...]:
        return tuple(p.get("permalink") for p in self.state.get("thread", []))

    def where(self) -> str:
        """The part being published and the permalinks of those already out, for messages."""
        out = ", ".join(p["permalink"] or f"post {p['id']}" for p in self.state["thread"])
        return (f"part {self.index + 1} of {len(self.job.parts)} (thread[{self.index - 1}]) was not published; "
                f"already published: {out}")

    def publish_part(self) -> Result | None:
        """One post of the target, through its containers; None once it is out."""
        if self.state.get("post"):
            return self.read_permalink()
        creating = self.state.get("creating")
        if creating == "publish":
            return self.reconcile_publish()
        if creating:
            # A container may have been created without our knowing its id. Creating it
            # again is harmless: a container that is never published expires on its own.
            del self.state["creating"]
        if "container" not in self.state:
            if not self.reply_to:
                self.check_quota(read=self.quota_first and not self.state.get("items"))
            if len(self.part.media) >= 2:
                waiting = self.carousel_items()
                if waiting:
                    return waiting
                self.create_container({**self.carousel([item["id"] for item in self.state["items"]]),
                                       **self.extra()})
            else:
                self.create_container({**self.single(), **self.extra()})
        waiting = self.until_ready(self.state["container"])
        if waiting:
            return waiting
        return self.publish_container()

    def extra(self) -> dict:
        """The post's options on the first post; the post replied to on the others."""
        if self.reply_to:
            return {self.reply_param: self.reply_to}
        return {k: self.option_value(v) for k, v in self.job.options.items() if k in self.OPTIONS}

    @staticmethod
    def option_value(value) -> str:
        """An option as a form field: booleans as the platform spells them, lists as JSON."""
        if isinstance(value, bool):
            return "true" if value else "false"
        return json.dumps(value) if isinstance(value, list) else str(value)

    def publish_comment(self) -> Result | None:
        """The first comment: by default a reply to the first post, through containers."""
        return self.publish_part()

    def part_out(self, permalink: str | None) -> None:
        """The current post is out: it joins the thread (or is the comment), saved."""
        post_id, container = self.state["post"], self.state.get("container")
        for key in self.PART_KEYS:
            self.state.pop(key, None)
        if self.commenting:
            self.state["comment"] = post_id
        else:
            self.state["thread"].append({"id": post_id, "permalink": permalink, "container": container})
        self.saved()
        return None

    def carousel_items(self) -> Result | None:
        items = self.state.setdefault("items", [])
        for index in range(len(items), len(self.part.media)):
            created = self.create(f"item:{index}", {**self.item(self.part.media[index]), "is_carousel_item": "true"})
            items.append(created)
            self.saved()
        waits = [self.until_ready(item) for item in items]
        pending = [w for w in waits if w is not None]
        return min(pending, key=lambda w: w.until) if pending else None

    def publish_container(self) -> Result | None:
        if not self.reply_to:
            self.check_quota(read=True)
        try:
            body = self.send_creating("publish", f"{self.api}/{self.user}/{self.publish_edge}",
                                      {"creation_id": self.state["container"]["id"]}, "the publish")
            self.state["post"] = identifier(body, "id", "the publish", GRAPH_ID)
        except UnusableAnswer as e:
            return self.read_back(e)
        self.saved()
        return self.read_permalink()

    def read_back(self, error: UnusableAnswer) -> Result | None:
        """The publish answered what the contract does not promise, so the post may be out:
        the container's status says, now, and the publish is never sent again. Published,
        the post is looked for among the account's (out with or without its permalink); not
        published, or unreadable, the target fails with the break."""
        container = self.state["container"]
        try:
            body = self.get(f"{self.api}/{quote(container['id'], safe='')}", "the container's status",
                            fields=self.status_fields)
            status = one_of(self.container_status(body), CONTAINER_STATUSES, "the container's status")
        except (Stop, UnusableAnswer):
            raise error.after(may_be_out(self.title)) from None
        if status != "PUBLISHED":
            raise error.after(f"its container is {status}, so nothing was published")
        container["published"] = True
        post = self.find_recent()
        return self.found(post) if post is not None else self.gave_up()

    def read_permalink(self) -> Result | None:
        if self.commenting:
            return self.part_out(None)  # a comment's permalink is nowhere to be shown
        try:
            body = self.get(f"{self.api}/{quote(self.state['post'], safe='')}", "the post", fields="id,permalink")
        except Stop:
            # Whatever went wrong, the post is out: never answer a failure now (not even an
            # expired token, whose replay could start from a state without the post).
            body = {}
        except UnusableAnswer:
            return self.part_out(None)  # out, and no read of it will say more: without its permalink
        permalink = body.get("permalink")
        if isinstance(permalink, str) and permalink.startswith("https://"):
            return self.part_out(permalink)
        if permalink:
            return self.part_out(None)  # a permalink that is not a web page's is not shown
        return self.look_again(f"{self.title} did not answer the post's permalink")

    # -- never twice

    def reconcile_publish(self) -> Result:
        """A publish call may or may not have gone through: the container's status says."""
        container = self.state["container"]
        try:
            body = self.get(f"{self.api}/{quote(container['id'], safe='')}", "the container's status",
                            fields=self.status_fields)
            one_of(self.container_status(body), CONTAINER_STATUSES, "the container's status")
        except UnusableAnswer as e:
            raise e.after(may_be_out(self.title)) from None
        if self.container_status(body) == "PUBLISHED":
            return self.recover_post()
        # Not published (FINISHED, or the publish was refused): publishing now is safe.
        del self.state["creating"]
        container["ready"] = False
        waiting = self.until_ready(container, body)
        return waiting or self.publish_container()

    def recover_post(self) -> Result | None:
        """The container was published but we never heard the post's id: find the post
        among the account's recent ones (same text, not older than the container; a reply
        among the replies). From here on nothing fails the part: it is published."""
        post = self.find_recent()
        if post is not None:
            return self.found(post)
        return self.look_again(f"{self.title} published the container but the post is not among the account's "
                               "recent ones yet")

    def find_recent(self) -> Mapping[str, Any] | None:
        """The post being made among the account's recent ones: the same text, not older
        than its container, the first such; None when it is not (yet) listed."""
        since = _dt.datetime.fromisoformat(self.state["container"]["created_at"]) - CLOCK_SKEW
        found = [
            post for post in self.recent_posts(since)
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

    def recent_posts(self, since: _dt.datetime) -> list[Mapping[str, Any]]:
        """The account's posts, newest first, page after page back to `since`: the lost
        post may lie under many newer ones. A read that fails ends the list where it is."""
        posts: list[Mapping[str, Any]] = []
        after = None
        for _ in range(RECENT_PAGES):
            params = {"fields": f"id,permalink,{self.caption_field},timestamp", "limit": str(RECENT_PAGE)}
            if after:
                params["after"] = after
            edge = self.replies_edge if self.reply_to and self.replies_edge else self.media_edge
            try:
                body = self.get(f"{self.api}/{self.user}/{edge}", "the account's posts", **params)
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

    def look_again(self, reason: str) -> Result | None:
        """The post exists but its permalink (or id) is not known yet: read again later, and
        after LOOKUPS tries settle it as published without a URL (never as failed: it is
        out). A thread goes on from a post whose id is known; one whose id never came
        cannot be replied to, and that target fails saying what is out."""
        self.state["lookups"] = self.state.get("lookups", 0) + 1
        if self.state["lookups"] >= LOOKUPS:
            return self.gave_up()
        return super().retry(reason)  # the post is out: no container's window bounds it

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

    # -- containers

    def caption(self, name: str) -> dict:
        return {name: self.part.caption} if self.part.caption else {}

    def create_container(self, params: dict) -> None:
        self.state["container"] = self.create("container", params)
        self.saved()

    def create(self, marker: str, params: dict) -> dict:
        # A container never published expires on its own: a break here publishes nothing.
        body = self.send_creating(marker, f"{self.api}/{self.user}/{self.media_edge}", params, "the container")
        container_id = identifier(body, "id", "the container", GRAPH_ID)
        # Its processing started before this answer came, never after: the checks counted
        # from now find it done as soon as it can be.
        return {"id": container_id, "created_at": self.step.now().isoformat(), "ready": False}

    def until_ready(self, container: dict, body: Mapping[str, Any] | None = None) -> Wait | None:
        """None once the container is FINISHED; a Wait while it is processing; raises Stop
        with the failure when it failed or its window is over."""
        if container.get("ready"):
            return None
        if body is None:
            body = self.get(f"{self.api}/{quote(container['id'], safe='')}", "the container's status",
                            fields=self.status_fields)
        status = one_of(self.container_status(body), CONTAINER_STATUSES, "the container's status")
        if status == "FINISHED":
            container["ready"] = True
            return None
        if status == "PUBLISHED":
            container["published"] = True  # from here on it is out: its window no longer applies
            raise Stop(self.recover_post())
        if status in ("EXPIRED", "ERROR"):
            raise Stop(Done(outcome_of(self.title, self.mapping, self.container_answer(body))[1]))
        return self.wait_for(container)

    def wait_for(self, container: dict) -> Wait:
        """The next read of a container that is not ready, on the schedule, within its window;
        raises Stop with container_expired once the window is over."""
        created = _dt.datetime.fromisoformat(container["created_at"])
        deadline = created + self.window
        if self.now >= deadline:
            raise Stop(self.expired())
        return Wait(until=next_check(created, self.now, most=self.poll, deadline=deadline), state=self.snapshot())

    def window_end(self) -> _dt.datetime | None:
        """The end of the window of the containers still waited for; None when none is, or
        once the publish may have been sent (a post that may exist never expires)."""
        if self.state.get("post") or self.state.get("creating") == "publish":
            return None
        waited = [c for c in (*self.state.get("items", ()), self.state.get("container"))
                  if c and not (c.get("ready") or c.get("published"))]
        if not waited:
            return None
        return min(_dt.datetime.fromisoformat(c["created_at"]) for c in waited) + self.window

    def expired(self, reason: str | None = None) -> Done:
        seconds = int(self.window.total_seconds())
        because = f" ({reason})" if reason else ""
        return failed(EXPIRED, f"{self.title} did not finish processing the container within {seconds} s{because}")

    def foresee(self) -> list[Outcome]:
        """What a publish would fail with before creating anything, as the account's
        publishing limit says now (read from the platform): for a preflight."""
        try:
            self.check_quota(read=True)
        except Stop as stop:
            return [stop.result.outcome]
        return []

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

    # -- calls

    @property
    def user(self) -> str:
        return quote(self.job.user_id, safe="")

    def get(self, url: str, what: str, **params) -> Mapping[str, Any]:
        """A read of `what`: safe to repeat, so any transient failure is a Retry."""
        response = self.send("GET", url, params={**params, "access_token": self.job.access_token})
        return self.body_or_stop(response, what)

    def send_creating(self, marker: str, url: str, params: dict, what: str) -> Mapping[str, Any]:
        """A call that creates something: the marker is saved first. When no clear answer
        comes back the marker stays, and the next step reconciles before sending again."""
        self.state["creating"] = marker
        self.saved()
        response = self.send("POST", url, data={**params, "access_token": self.job.access_token})
        body = self.body_or_stop(response, what)
        del self.state["creating"]
        return body

    def body_or_stop(self, response: PlatformResponse, what: str) -> Mapping[str, Any]:
        """A 200's JSON object (`what`, as the reference promises it); a refusal ends the step."""
        if response.status == 200:
            body = document(response, what, self.job.access_token)
            if not isinstance(body.get("error"), dict):
                return body
        answer = read_answer(response, self.job.access_token)
        rule, outcome = outcome_of(self.title, self.mapping, answer)
        if rule is not None and rule.code == NOT_READY and "container" in self.state:
            # Refused, so not published: read the container again on its schedule, within
            # its window (the next step reconciles the publish marker first).
            self.state["container"]["ready"] = False
            raise Stop(self.wait_for(self.state["container"]))
        if rule is not None and rule.repeats and self.state.get("repeats", 0) < rule.repeats:
            self.state["repeats"] = self.state.get("repeats", 0) + 1
            raise Stop(self.retry(outcome.error_message or answer.raw))
        if outcome.error_code == NOT_READY and not (rule and rule.transient):
            outcome = Outcome(error_code=UNKNOWN, error_message=f"{self.title} answered {answer.raw}")
        raise self.refusal(rule, outcome, answer)

    def retry(self, reason: str) -> Result:
        """A transient failure: the step again later. While containers are waited for, not
        past their window: once it is over, they expired."""
        deadline = self.window_end()
        if deadline is None:
            return super().retry(reason)
        if self.now >= deadline:
            return self.expired(reason)
        return Retry(after=min(self.now + RETRY_AFTER, deadline), state=self.snapshot(), reason=reason,
                     deadline=deadline)


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
