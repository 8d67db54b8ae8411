"""Meta's Graph API as Threads and Instagram speak it (docs/platforms.md#threads, #instagram).

Both answer errors in one envelope, issue long-lived tokens that refresh themselves, and
publish through containers. What they answer (the envelope, the ids, the token calls'
answers) is fanout/platforms/graph_errors.py; this module holds `Containers`, the
publishing sequence over saved state on the adapter kit (fanout/platforms/steps.py), which
each adapter subclasses with its paths and parameters:

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
expires on its own), a lost publish is looked up through the container's status
(fanout/platforms/graph_lookup.py). This holds for every part of a thread and for the
comment: each is saved before its call and read back before it is sent again. An answer
that breaks the Graph contract (a 200 that is not JSON, an id of the wrong shape, a
container status Meta does not list: fanout/platforms/contract.py) fails the target at
once. A publish answered so is read back in the same step, through the container's status
and the account's posts, and never sent again; once the post is known to be out, a broken
read settles it without its permalink.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ..target_errors import EXPIRED, UNKNOWN
from .base import Done, Job, Outcome, Result, Retry, Step, Stop, Wait, failed
from .contract import UnusableAnswer, identifier, one_of
from .graph_errors import CONTAINER_STATUSES, ENVELOPE, GRAPH_ID, NOT_READY, Answer
from .graph_lookup import Lookups
from .polling import next_check
from .steps import RETRY_AFTER


class Containers(Lookups):
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

    envelope = ENVELOPE
    accepted = (200,)
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
            return self.published_anyway(e)
        self.saved()
        return self.read_permalink()

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
        body = self.read_container(container) if body is None else body
        status = self.status_of(body)
        if status == "FINISHED":
            container["ready"] = True
            return None
        if status == "PUBLISHED":
            container["published"] = True  # from here on it is out: its window no longer applies
            raise Stop(self.recover_post())
        if status in ("EXPIRED", "ERROR"):
            raise Stop(Done(self.outcome_of(self.container_answer(body))[1]))
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

    # -- calls (fanout/platforms/steps.py `call`, the token as a parameter)

    @property
    def user(self) -> str:
        return quote(self.job.user_id, safe="")

    def read_container(self, container: Mapping[str, Any]) -> Mapping[str, Any]:
        """The container's status as the platform reads it (`status_fields`)."""
        return self.get(f"{self.api}/{quote(container['id'], safe='')}", "the container's status",
                        fields=self.status_fields)

    def status_of(self, body: Mapping[str, Any]) -> str:
        return one_of(self.container_status(body), CONTAINER_STATUSES, "the container's status")

    def get(self, url: str, what: str, **params) -> Mapping[str, Any]:
        """A read of `what`: safe to repeat, so any transient failure is a Retry. The token
        goes as a parameter, as Meta's examples send it."""
        return self.call("GET", url, what, token="", params={**params, "access_token": self.job.access_token})

    def send_creating(self, marker: str, url: str, params: dict, what: str) -> Mapping[str, Any]:
        """A call that creates something: the marker is saved first. When no clear answer
        comes back the marker stays, and the next step reconciles before sending again."""
        self.state["creating"] = marker
        self.saved()
        body = self.call("POST", url, what, token="", data={**params, "access_token": self.job.access_token})
        del self.state["creating"]
        return body

    def accept(self, response, what, token=None):
        """A 200's JSON object, unless it holds an `error` object."""
        body = super().accept(response, what, token)
        return None if isinstance(body.get("error"), dict) else body

    def outcome_of(self, answer: Answer):
        """An expired container, or one whose media failed, said in words of its own."""
        rule, outcome_ = super().outcome_of(answer)
        if outcome_.error_code == EXPIRED:
            outcome_ = dataclasses.replace(outcome_, error_message=f"{self.title} let the container expire before "
                                                                   "it was published")
        elif outcome_.error_code != UNKNOWN and answer.container_error:
            outcome_ = dataclasses.replace(outcome_, error_message=f"{self.title} could not use the media: "
                                                                   f"{answer.container_error}")
        return rule, outcome_

    def refused(self, response, answer, rule, outcome_, *, upload=False) -> Stop:
        """A container not ready is read again, within its window; a row's `repeats` are
        tried again before its code applies."""
        if rule is not None and rule.code == NOT_READY and "container" in self.state:
            # Refused, so not published: read the container again on its schedule, within
            # its window (the next step reconciles the publish marker first).
            self.state["container"]["ready"] = False
            return Stop(self.wait_for(self.state["container"]))
        if rule is not None and rule.repeats and self.state.get("repeats", 0) < rule.repeats:
            self.state["repeats"] = self.state.get("repeats", 0) + 1
            return Stop(self.retry(outcome_.error_message or answer.raw))
        if outcome_.error_code == NOT_READY and not (rule and rule.transient):
            outcome_ = Outcome(error_code=UNKNOWN, error_message=f"{self.title} answered {answer.raw}")
        return super().refused(response, answer, rule, outcome_, upload=upload)

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
