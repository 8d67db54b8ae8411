"""The scaffolding of an adapter's publish step (docs/architecture.md#platforms).

`Steps` is one step of publishing a job over the state the last step saved: a working
copy of it (`state`), handed back as JSON (`snapshot`), stored before a call that creates
something (`saved`), and the answer to a transient failure (`retry`). An adapter
subclasses it with its sequence in `next`; a `Stop` raised anywhere in the step ends it
with its result (fanout/platforms/base.py), and an `UnusableAnswer` with the target failed
at once (fanout/platforms/contract.py).

`call` is every API call's skeleton: the request with the account's token, the 2xx read
(`accept`), an answer with a meaning of its own (the call's `special`), then the mapping
table's verdict (`envelope`, `table`, `outcome_of`), the file's fault for an upload, the
limit's reset (`reset_at`) and the end of the step (`refused`). `fetch`, `chunks`,
`put_ranges` and `put_resumable` are the media steps, `read_back` the look for a create
whose answer broke the contract.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from typing import Any

from ..target_errors import MEDIA, RATE
from .base import Done, Job, Outcome, Part, Result, Retry, Step, Stop, bearer, failed
from .contract import UnusableAnswer, document, may_be_out, outcome
from .envelope import Envelope
from .http import PlatformResponse, PlatformUnreachable
from .transfer import Stream
from .mapping import Answer, Rule, number, outcome_of

# A transient failure is tried again after this (the engine stretches it and bounds retries).
RETRY_AFTER = _dt.timedelta(seconds=30)


class Steps:
    """One step of publishing `job`; subclasses write `next`, the sequence, and name the
    platform in `title` (what a broken answer's message says answered), its error answers'
    `envelope` and its mapping `table`, and its media `rules`."""

    title = ""
    envelope = Envelope()
    table: tuple[Rule, ...] = ()
    rules = None  # the platform's PlatformRules, for the media it fetches
    accepted = range(200, 300)  # the statuses `accept` reads
    # Statuses of an upload's refusal that are not the file's fault (the token's, the URL's).
    not_the_file: tuple[int, ...] = (403, 404)
    unknown_in_words = False  # mapping.outcome_of

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
            if not e.sent:
                self.unsent()
            raise Stop(self.retry(e.message)) from None

    def unsent(self) -> None:
        """A request that never left: a subclass whose marker says a create may be in
        flight takes it back here (nothing to reconcile)."""

    def refusal(self, rule: Rule | None, outcome: Outcome, answer) -> Stop:
        """How a clear refusal ends the step: again later when its row of the mapping says it
        is transient, otherwise with `outcome`. `answer` is the platform's, read."""
        if rule is not None and rule.transient:
            return Stop(self.retry(outcome.error_message or answer.raw))
        return Stop(Done(outcome))

    # -- calls

    def call(self, method: str, url: str, what: str | None = None, *, token: str | None = None,
             upload: bool = False, special=None, accepted=None, **kwargs) -> Any:
        """One API call with the account's token (or `token`; "" for none), answering what
        `accept` reads of a 2xx (or of the call's `accepted` statuses; `what`, as the
        contract promises it); a clear failure ends the step (Stop). `special(response,
        answer)`, when given, may take a refusal as an answer (what it returns) or end the
        step its own way; `upload`: a refusal no row names is the file's fault."""
        token = self.job.access_token if token is None else token
        headers = {**(kwargs.pop("headers", None) or {}), **self.headers(url), **(bearer(token) if token else {})}
        response = self.send(method, url, headers=headers, **kwargs)
        if response.status in (self.accepted if accepted is None else accepted):
            found = self.accept(response, what, token)
            if found is not None:
                return found
        answer = self.envelope.read(response, self.job.access_token, token)
        if special is not None and (found := special(response, answer)) is not None:
            return found
        rule, outcome_ = self.outcome_of(answer)
        raise self.refused(response, answer, rule, outcome_, upload=upload)

    def headers(self, url: str) -> dict:
        """Headers every call to `url` names besides the token (an API version...)."""
        return {}

    def accept(self, response: PlatformResponse, what: str | None, token: str | None = None) -> Any:
        """What a 2xx answers: its JSON object ({} for a call whose answer is not read:
        `what` None); None when the platform's envelope says it is a refusal after all."""
        return {} if what is None else document(response, what, self.job.access_token, token)

    def outcome_of(self, answer: Answer) -> tuple[Rule | None, Outcome]:
        return outcome_of(self.table, self.title, answer, unknown_in_words=self.unknown_in_words)

    def refused(self, response: PlatformResponse, answer: Answer, rule: Rule | None, outcome_: Outcome, *,
                upload: bool = False) -> Stop:
        """How a refusal ends the step: an upload's that no row names is the file's fault; a
        limit's says when it resets."""
        if rule is None and upload and 400 <= response.status < 500 and response.status not in self.not_the_file:
            outcome_ = Outcome(error_code=MEDIA, error_message=f"{self.title} refused the media: "
                                                               f"{answer.message or answer.raw}")
        if outcome_.error_code == RATE:
            moment = number(self.reset_at({k.lower(): v for k, v in response.headers.items()}))
            if moment is not None:
                when = _dt.datetime.fromtimestamp(moment, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                outcome_ = Outcome(error_code=RATE, error_message=f"{outcome_.error_message} (the limit resets at "
                                                                  f"{when})")
        return self.refusal(rule, outcome_, answer)

    def reset_at(self, headers: dict) -> Any:
        """When a limit hit resets (unix seconds), by the answer's headers (lower case)."""
        return None

    # -- media and read-backs

    def fetch(self, item, label: str, *, whole: bool = True, renew: bool = True):
        """Media `item` fetched once, checked as it streams (fanout/outbound/media_fetch.py):
        `whole`, the file to upload (a context manager), else only what it is (for a
        platform that pulls it); a file the rules refuse fails the target. `renew` saves the
        state first, renewing the lease before a long upload."""
        # Imported here: Pillow and mutagen load only in the processes that publish.
        from ..outbound.media_fetch import MediaProblem, fetch, inspect

        if renew:
            self.saved()  # stops here if the lease was lost
        try:
            return (fetch if whole else inspect)(self.step.outbound, item["url"], self.rules.media_limits,
                                                 item["type"], label=label)
        except MediaProblem as e:
            raise Stop(failed(e.code, e.message)) from None

    def put_ranges(self, url: str, file, size: int, ranges, *, mime: str, accepted, special=None,
                   token: str | None = "") -> None:
        """A chunked or resumable upload's bytes: each (first, length) of `ranges`
        (fanout/platforms/transfer.py) PUT to `url` with its Content-Range, streamed from
        `file`; `accepted`, the statuses of a piece taken; `token` as `call` takes it (none
        by default: the upload URL is the credential)."""
        for first, length in ranges:
            self.put_range(url, file, size, first, length, mime=mime, accepted=accepted, special=special, token=token)

    def put_resumable(self, url: str, file, size: int, first: int, *, chunk_size: int, next_byte, mime: str,
                      accepted, special=None, token: str | None = "") -> Any:
        """A resumable upload from byte `first`: a piece of `chunk_size` at a time (the last
        the remainder), each PUT with its Content-Range; after each, `next_byte(answer)`
        says where the server wants the next to start (it may hold less than was sent), or
        None once it holds the whole file, whose answer is returned. The state is saved after
        each piece, which renews the lease of a long upload."""
        while True:
            answer = self.put_range(url, file, size, first, min(chunk_size, size - first), mime=mime,
                                    accepted=accepted, special=special, token=token)
            at = next_byte(answer)
            if at is None:
                return answer
            first = at
            self.saved()

    def put_range(self, url: str, file, size: int, first: int, length: int, *, mime: str, accepted, special=None,
                  token: str | None = "") -> Any:
        """Bytes `first` to `first + length - 1` of `file` PUT to `url` with their
        Content-Range, streamed: what `call` answers."""
        file.seek(first)
        return self.call("PUT", url, None, token=token, special=special, accepted=accepted, data=Stream(file, length),
                         headers={"Content-Type": mime, "Content-Length": str(length),
                                  "Content-Range": f"bytes {first}-{first + length - 1}/{size}"})

    def chunks(self, file, size: int, *, first: int = 0, save_every: int = 8):
        """(index, bytes) of `file`'s chunks of `size` from chunk `first` on; the state is
        saved every `save_every` chunks, which renews the lease of a long upload."""
        if first:
            file.seek(first * size)
        index = first
        while chunk := file.read(size):
            if index > first and (index - first) % save_every == 0:
                self.saved()
            yield index, chunk
            index += 1

    def read_back(self, error: UnusableAnswer, find, *, missing: str | None = None):
        """A create answered with what the contract does not promise may be out: `find()`
        looks for it now (what it finds, or None), and it is never sent again. Not found, or
        not readable, the target fails with the break, saying so (`missing`)."""
        try:
            found = find()
        except (Stop, UnusableAnswer):
            raise error.after(may_be_out(self.title)) from None
        if found is None:
            raise error.after(missing or may_be_out(self.title))
        return found

    def foreseen(self, *checks) -> list[Outcome]:
        """What `checks` (each ending the step when a publish now would fail) foresee, for a
        preflight: the first failure met, or none."""
        for check in checks:
            try:
                check()
            except Stop as stop:
                return [stop.result.outcome]
        return []

    def under_cap(self, since: _dt.datetime, most: int, words, *, workspace: bool = False) -> None:
        """The platform's cap on posts, as this service counts them: the account's targets
        published since `since` (its workspace's accounts of the platform, `workspace`) are
        fewer than `most`, or the step ends rate limited, `words(made)` saying so without a
        call."""
        made = self.step.published(since, workspace=workspace)
        if made >= most:
            raise Stop(failed(RATE, words(made)))

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
