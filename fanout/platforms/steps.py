"""The scaffolding of an adapter's publish step (docs/architecture.md#platforms).

`Steps` is one step of publishing a job over the state the last step saved: a working
copy of it (`state`), handed back as JSON (`snapshot`), stored before a call that creates
something (`saved`), and the answer to a transient failure (`retry`). An adapter
subclasses it with its sequence in `next`; a `Stop` raised anywhere in the step ends it
with its result (fanout/platforms/base.py), and an `UnusableAnswer` with the target failed
at once (fanout/platforms/contract.py).
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from typing import Any

from .base import Done, Job, Outcome, Part, Result, Retry, Step, Stop
from .contract import UnusableAnswer, outcome
from .http import PlatformResponse, PlatformUnreachable
from .mapping import Rule

# A transient failure is tried again after this (the engine stretches it and bounds retries).
RETRY_AFTER = _dt.timedelta(seconds=30)


class Steps:
    """One step of publishing `job`; subclasses write `next`, the sequence, and name the
    platform in `title` (what a broken answer's message says answered)."""

    title = ""

    def __init__(self, step: Step, job: Job):
        self.step, self.job = step, job
        self.state: dict[str, Any] = json.loads(json.dumps(dict(job.state)))
        self.now = step.now()

    def run(self) -> Result:
        try:
            result = self.next()
        except Stop as stop:
            result = stop.result
        except UnusableAnswer as error:
            result = self.unusable(error)
        return self.with_parts(result)

    def parts_out(self) -> tuple[str | None, ...]:
        """The permalinks of the job's parts that are out so far, in order (None for one out
        without a known permalink): a subclass that publishes threads says, from its state."""
        return ()

    def with_parts(self, result: Result) -> Result:
        """`result` with the thread's parts out so far (openapi.yaml `Target.published_parts`),
        whatever the step came to: published, failed, waiting or retrying. Not for a target
        without a thread."""
        if len(self.job.parts) < 2:
            return result
        out = tuple(self.parts_out())
        if isinstance(result, Done):
            return Done(dataclasses.replace(result.outcome, published_parts=out))
        return dataclasses.replace(result, published_parts=out)

    def next(self) -> Result:
        raise NotImplementedError

    def saved(self) -> None:
        self.step.save(self.snapshot())

    def snapshot(self) -> dict:
        """A copy of the state as the engine stores it (JSON)."""
        return json.loads(json.dumps(self.state))

    def send(self, method: str, url: str, **kwargs) -> PlatformResponse:
        """The request (fanout/platforms/http.py); without an answer the step ends, to be
        tried again from the state as it stands (a call that creates saved its marker first)."""
        try:
            return self.step.http.request(method, url, **kwargs)
        except PlatformUnreachable as e:
            raise Stop(self.retry(e.message)) from None

    def refusal(self, rule: Rule | None, outcome: Outcome, answer) -> Stop:
        """How a clear refusal ends the step: again later when its row of the mapping says it
        is transient, otherwise with `outcome`. `answer` is the platform's, read."""
        if rule is not None and rule.transient:
            return Stop(self.retry(outcome.error_message or answer.raw))
        return Stop(Done(outcome))

    def retry(self, reason: str) -> Result:
        """A transient failure: the step again later, from the state as it stands."""
        return Retry(after=self.now + RETRY_AFTER, state=self.snapshot(), reason=reason)

    def unusable(self, error: UnusableAnswer) -> Done:
        """A break of the platform's contract: the target fails now, never retried."""
        return Done(outcome(self.title, error))


class ThreadSteps(Steps):
    """A publish that posts the job's parts in order, each a reply to the one before, then
    its first comment: `index` is the part being posted (len(job.parts) for the comment).
    Subclasses post the current part (`publish_part`; the comment too, unless they write
    `publish_comment`), keep the parts out in `state["thread"]` and the comment's id in
    `state["comment"]`, and say what is `published` (the first part's permalink) and
    `where` a failure happened (the part, and the permalinks already out)."""

    index = 0

    def next(self) -> Result:
        """The parts in order, then the first comment; published once all are out."""
        posted = self.state.setdefault("thread", [])
        self.resume()
        while len(posted) < len(self.job.parts):
            self.index = len(posted)
            result = self.within_part(self.publish_part)
            if result is not None:
                return result
        if self.job.first_comment is not None and not self.state.get("comment"):
            self.index = len(self.job.parts)
            result = self.within_part(self.publish_comment)
            if result is not None:
                return result
        return Done(self.published())

    def resume(self) -> None:
        """Before the sequence: a state saved in an earlier form brought up to date."""

    def publish_part(self) -> Result | None:
        """Post the current part (None once it is out), or end the step with a result."""
        raise NotImplementedError

    def publish_comment(self) -> Result | None:
        return self.publish_part()

    @property
    def commenting(self) -> bool:
        return self.index == len(self.job.parts)

    @property
    def part(self) -> Part:
        """What is being posted: the current part, or the first comment as a part."""
        return Part(self.job.first_comment or "") if self.commenting else self.job.parts[self.index]

    def published(self) -> Outcome:
        raise NotImplementedError

    def where(self) -> str:
        raise NotImplementedError

    def within_part(self, publish) -> Result | None:
        """Publish the current part (None once it is out), its failures said as the part's:
        a later part's name the part and what is out; the comment's leave the target
        published with `first_comment_error`."""
        try:
            result = publish()
        except Stop as stop:
            result = stop.result
        except UnusableAnswer as error:
            result = self.unusable(error)
        if result is None or not (self.index or self.commenting):
            return result
        if self.commenting:
            if isinstance(result, Retry):
                return dataclasses.replace(result, settles=self.published())
            if isinstance(result, Done) and not result.outcome.published:
                return Done(dataclasses.replace(self.published(), first_comment_error=result.outcome.error_message))
            return result
        if isinstance(result, Retry):
            return dataclasses.replace(result, context=self.where())
        if isinstance(result, Done) and not result.outcome.published:
            return Done(dataclasses.replace(result.outcome, error_message=f"{self.where()}: "
                                                                          f"{result.outcome.error_message}"))
        return result
