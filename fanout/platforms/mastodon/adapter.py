"""Mastodon (the Mastodon API of the instance each user names): connecting on the server
the user names (oauth.py), and statuses with media and threads (docs/platforms.md#mastodon).

Every call goes to the account's instance, `https://<host>` of its user id
(`<account id>@<host>`). Before each step the host is checked again as at connect: a host
FANOUT_PLATFORM_HOSTS lists, or one resolving to public addresses only (instance.py).

A post is published in steps over saved state, part after part (a thread's later parts
reply to the one before, `in_reply_to_id`):
1. the instance is read (`/api/v2/instance`): the parts are checked against what it states
   (its character cap, counted as Mastodon counts; its media count and alt text cap), and
   its file limits and types are the ones each file is fetched against;
2. each file is uploaded (`POST /api/v2/media`, alt text as `description`) and what the
   instance processes in the background is read back until ready (media.py);
3. the status (`POST /api/v1/statuses`) with the options (`visibility`, public unless
   told, and `spoiler_text`, on every part) and an `Idempotency-Key` of the target and
   the part; `external_url` is the first status's `url`.

Never twice: the moment a status is first sent is saved before the call. The instance
keeps each key for an hour and answers any repeat with the status it made first [C], so a
step that finds the moment saved without the status sends the same call again, with the
same key, while the hour lasts (less a margin for the clocks). Past it, or when a status's
answer breaks the contract, the account's statuses are read back (the public ones: the
token has no read scope) and the part is settled when found, failed saying it may be out
when not; never sent again.
"""
from __future__ import annotations

import datetime as _dt
import html
import re
from typing import Any

from ...target_errors import CAPTION, UNKNOWN, UNSUPPORTED
from ..base import SERVER, Done, Job, Outcome, Result, Step, Stop, Wait, failed
from ..contract import UnusableAnswer, identifier
from .errors import ENVELOPE, MAPPING
from .instance import TITLE, V1, V2, Instance, host_problem, parse, server_of
from .media import MediaSteps
from .oauth import SCOPES, authorize, exchange, refresh, refresh_due, register, server_field
from .rules import RULES
from .text import local_mentions, mastodon_length

CONNECT_STYLE = SERVER
# Instances are the hosts users name; the one the connect page names as its example is
# the largest (docs/platforms.md#mastodon).
HOSTS = ("mastodon.social",)
UPLOADS_MEDIA = True

STATUS_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
PAGE = re.compile(r"https://\S{1,2000}")
# "Idempotency keys are stored for up to 1 hour" [C]: the same key is sent again within
# this, the rest of the hour left for a clock that runs apart from the instance's.
KEY_WINDOW = _dt.timedelta(minutes=50)
CLOCK_SKEW = _dt.timedelta(minutes=10)
READ_BACK = 40  # the account's newest statuses looked through (the most one page gives)
# Creating statuses: 300 per 3 hours per account [S], counted here as targets.
STATUSES, STATUSES_WINDOW = 300, _dt.timedelta(hours=3)


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before a status is made (a preflight):
    the host, the account's statuses in 3 hours, and what the instance states now: its
    caps on each part, and each file against its limits."""
    return _Posting(step, job).foresee()


class _Posting(MediaSteps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `instance`: what the instance states (instance.py), read at the first step;
    - `thread`: {id, url} of each part's status so far, in order;
    - for the part being posted: `media`, per item (media.py); `sending`: when its status
      was first sent, while its answer is not had.
    """

    PART_KEYS = ("media", "sending")
    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES

    def __init__(self, step: Step, job: Job):
        super().__init__(step, job)
        self.account_id, self.host = server_of(job.user_id)
        self.api = f"https://{self.host}"
        self.fresh = False  # this step sends the part's status for the first time

    # -- the sequence: the instance, then the parts in order (steps.py `ThreadSteps`)

    def next(self) -> Result:
        self.check_host()
        if "instance" not in self.state:
            instance = self.read_instance()
            problems = self.problems(instance)
            if problems:
                return Done(problems[0])
            self.state["instance"] = instance.saved()
        self.rules = Instance.from_saved(self.state["instance"]).rules(RULES)
        return super().next()

    def foresee(self) -> list[Outcome]:
        try:
            self.check_host()
            self.check_limits()
            instance = self.read_instance()
        except Stop as stop:  # a retry says nothing of what the publish would meet
            return [stop.result.outcome] if isinstance(stop.result, Done) else []
        except UnusableAnswer as e:
            return [self.unusable(e).outcome]
        return self.problems(instance) + self.media_problems(instance.rules(RULES))

    def check_host(self) -> None:
        problem = host_problem(self.host, self.step.settings, self.step.outbound.resolve)
        if problem == "unresolved":
            raise Stop(self.retry(f"the instance's host {self.host} does not resolve"))
        if problem:
            raise Stop(failed(UNKNOWN, problem))

    def check_limits(self) -> None:
        self.under_cap(self.now - STATUSES_WINDOW, STATUSES, lambda made: (
            f"{TITLE} allows {STATUSES} statuses in 3 hours per account; this account published {made}"))

    def read_instance(self) -> Instance:
        """What the instance states now (with the account's token: an instance that serves
        its API to signed-in callers only answers it too)."""
        body = self.call("GET", f"{self.api}{V2}", "the instance document", special=_before_4)
        if body is _BEFORE_4:
            body = self.call("GET", f"{self.api}{V1}", "the instance document")
        return parse(self.host, body)

    def problems(self, instance: Instance) -> list[Outcome]:
        """What each part breaks of the instance's caps: its characters, its media count,
        its alt texts (what the request could not show: each instance has its own)."""
        found, spoiler = [], self.spoiler_text
        for index, part in enumerate(self.job.parts):
            where = f"thread[{index - 1}]." if index else ""
            length = mastodon_length(part.caption, spoiler)
            if length > instance.max_characters:
                found.append(Outcome(error_code=CAPTION, error_message=(
                    f"{where}caption is {length} characters as Mastodon counts them (with the content warning, a "
                    f"link 23); {instance.host} allows {instance.max_characters}")))
            if len(part.media) > instance.max_media_attachments:
                found.append(Outcome(error_code=UNSUPPORTED, error_message=(
                    f"{where}media has {len(part.media)} items; {instance.host} takes at most "
                    f"{instance.max_media_attachments} in one status")))
            for number, item in enumerate(part.media):
                alt = RULES.alt_text_of(item) or ""
                if len(alt) > instance.description_limit:
                    found.append(Outcome(error_code=UNSUPPORTED, error_message=(
                        f"{where}media[{number}]: alt_text is {len(alt)} characters; {instance.host} allows "
                        f"{instance.description_limit}")))
        return found

    def media_problems(self, rules) -> list[Outcome]:
        """Each file as the instance's limits judge it once fetched (as the publish fetches it)."""
        from ...outbound.media_fetch import MediaProblem, inspect  # loaded only where media is fetched

        found = []
        for index, part in enumerate(self.job.parts):
            for number, item in enumerate(part.media):
                label = f"thread[{index - 1}].media[{number}]" if index else f"media[{number}]"
                try:
                    inspect(self.step.outbound, item["url"], rules.media_limits, kind=item["type"], label=label)
                except MediaProblem as e:
                    found.append(Outcome(error_code=e.code, error_message=e.message))
        return found

    # -- a part

    def publish_part(self) -> Result | None:
        if self.state.get("sending"):
            return self.send_again()
        items = self.state.setdefault("media", [])
        for number in range(len(items), len(self.part.media)):
            items.append(self.upload(number, self.part.media[number]))
            self.saved()
        waiting = [w for w in (self.until_ready(n, item) for n, item in enumerate(items)) if w is not None]
        if waiting:
            return Wait(until=min(waiting), state=self.snapshot())
        self.check_limits()
        self.state["sending"], self.fresh = self.now.isoformat(), True
        self.saved()
        return self.send_status()

    @property
    def spoiler_text(self) -> str:
        return self.job.options.get("spoiler_text") or ""

    def status(self) -> dict[str, Any]:
        """The part's status as `POST /api/v1/statuses` takes it."""
        body: dict[str, Any] = {"visibility": self.job.options.get("visibility", "public")}
        if self.part.caption:
            body["status"] = self.part.caption
        if self.state["media"]:
            body["media_ids"] = [item["id"] for item in self.state["media"]]
        if self.index:
            body["in_reply_to_id"] = self.state["thread"][self.index - 1]["id"]
        if self.spoiler_text:
            body["spoiler_text"] = self.spoiler_text
        return body

    @property
    def key(self) -> str:
        return f"fanout-{self.job.target_id}-{self.index}"

    def send_status(self) -> None:
        what = "the status"
        try:
            body = self.call("POST", f"{self.api}/api/v1/statuses", what, json_body=self.status(),
                             headers={"Idempotency-Key": self.key})
            made = self.made(body, what)
        except UnusableAnswer as e:
            # The status may be out: looked for now among the account's, never sent again.
            made = self.read_back(e, self.find)
        return self.settle(made)

    def send_again(self) -> None:
        """A status sent whose answer was not had: the same call again while the instance
        keeps its key (it answers the first status), else looked for."""
        sent = _dt.datetime.fromisoformat(self.state["sending"])
        if self.now < sent + KEY_WINDOW:
            return self.send_status()
        try:
            found = self.find()
        except UnusableAnswer as e:
            raise e.after(self.lost(sent)) from None
        if found is None:
            raise Stop(failed(UNKNOWN, f"{TITLE} did not answer the status sent at {sent:%Y-%m-%dT%H:%M:%SZ}, and it "
                                       f"is not among the account's statuses it shows; {self.lost(sent)}"))
        return self.settle(found)

    def lost(self, sent: _dt.datetime) -> str:
        return (f"it was sent more than {KEY_WINDOW.seconds // 60} minutes ago, past the hour the instance keeps its "
                f"Idempotency-Key, so it is never sent again: {TITLE} may have published it all the same: check the "
                "account before posting it again")

    def made(self, body, what: str) -> dict:
        return {"id": identifier(body, "id", what, STATUS_ID), "url": identifier(body, "url", what, PAGE)}

    def settle(self, made: dict) -> None:
        for key in self.PART_KEYS:
            self.state.pop(key, None)
        self.fresh = False
        self.state["thread"].append(made)
        self.saved()
        return None

    def unsent(self) -> None:
        if self.fresh:  # the first send never left: the next step's is the first
            self.state.pop("sending", None)

    def find(self) -> dict | None:
        """The current part's status among the account's newest public and unlisted ones
        (read without the token, which has no read scope), or None: made since it was
        sent, replying to the part before, with its content warning, media and text."""
        what = "the account's statuses"
        response = self.send("GET", f"{self.api}/api/v1/accounts/{self.account_id}/statuses",
                             params={"limit": str(READ_BACK), "exclude_reblogs": "true"})
        if response.status >= 500:
            raise Stop(self.retry(f"{TITLE} could not list the account's statuses (HTTP {response.status})"))
        statuses = response.json()
        if response.status != 200 or not isinstance(statuses, list):
            raise UnusableAnswer(f"{what} with {ENVELOPE.read(response).raw}")
        since = _dt.datetime.fromisoformat(self.state["sending"]) - CLOCK_SKEW
        wanted = self.status()
        for status in statuses:
            if isinstance(status, dict) and _same(status, wanted, since):
                return self.made(status, what)
        return None

    # -- what the target comes to

    def published(self) -> Outcome:
        return Outcome(external_url=self.state["thread"][0]["url"])

    def parts_out(self) -> tuple[str, ...]:
        return tuple(made["url"] for made in self.state.get("thread", []))

    def where(self) -> str:
        return (f"part {self.index + 1} of {len(self.job.parts)} (thread[{self.index - 1}]) was not posted; "
                f"already published: {', '.join(self.parts_out())}")

    def reset_at(self, headers: dict) -> Any:
        """`X-RateLimit-Reset`, an ISO 8601 time [C], as unix seconds."""
        moment = _moment(headers.get("x-ratelimit-reset"))
        return int(moment.replace(tzinfo=_dt.UTC).timestamp()) if moment else None


_BEFORE_4 = object()


def _before_4(response, answer):
    """`/api/v2/instance` unknown (a server before 4.0): v1 is read instead."""
    return _BEFORE_4 if response.status == 404 else None


def _moment(value: Any) -> _dt.datetime | None:
    """An ISO 8601 time the instance wrote, in UTC without its zone (the engine's clock's)."""
    try:
        moment = _dt.datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return moment.astimezone(_dt.UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _same(status: dict, wanted: dict, since: _dt.datetime) -> bool:
    """Whether `status` (as the instance lists it) is the one `wanted` made after `since`."""
    created = _moment(status.get("created_at"))
    if created is None:
        return False
    media = [m.get("id") for m in status.get("media_attachments") or () if isinstance(m, dict)]
    return (created >= since and status.get("in_reply_to_id") == wanted.get("in_reply_to_id")
            and (status.get("spoiler_text") or "") == wanted.get("spoiler_text", "")
            and media == wanted.get("media_ids", [])
            and _words(plain_text(str(status.get("content") or ""))) == _words(local_mentions(wanted.get("status", ""))))


def plain_text(content: str) -> str:
    """A status's `content` (HTML: paragraphs, line breaks, links cut for display in spans)
    as its text."""
    text = re.sub(r"<br\s*/?>", "\n", content)
    text = re.sub(r"</p>\s*<p>", "\n\n", text)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def _words(text: str) -> str:
    return " ".join(text.split())


__all__ = ["CONNECT_STYLE", "HOSTS", "SCOPES", "authorize", "exchange", "foresee", "publish", "refresh",
           "refresh_due", "register", "server_field"]
