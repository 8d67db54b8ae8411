"""Threads (Meta): the OAuth flow and publishing through containers (docs/platforms.md#threads).

Wire format: authorize on threads.net, everything else on graph.threads.net under `v1.0`,
Graph-style error envelopes. A post is published in steps over saved state:

1. create the container: one for a text, image or video post; for a carousel, one per
   item (`is_carousel_item`) and then the parent (`CAROUSEL` with `children`);
2. read each container's `status` until it is FINISHED, returning `Wait` in between (a
   video is processed for a while), and fail `container_expired` past the window
   (`FANOUT_THREADS_CONTAINER_WINDOW` seconds from the container's creation);
3. read `threads_publishing_limit`, then `threads_publish` the container;
4. read the post's permalink: `Done(Outcome(external_url=permalink))`.

Never twice: each call that creates something (a container, the publish) is preceded by
`step.save` of a marker naming it (`creating`), and its result is saved after it. A step
that finds a marker without its result reconciles before sending anything again.
"""
from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from .base import App, AuthFailed, Authorization, Done, Grant, Job, Outcome, Result, Retry, Step, Wait, failed
from .http import PlatformResponse, PlatformUnreachable

HOSTS = ("threads.net", "graph.threads.net")
SCOPES = ("threads_basic", "threads_content_publish")
# The names base.Adapter reads.
hosts, scopes = HOSTS, SCOPES

VERSION = "v1.0"
AUTHORIZE_URL = "https://threads.net/oauth/authorize"
GRAPH = "https://graph.threads.net"
API = f"{GRAPH}/{VERSION}"
TITLE = "Threads"

# 250 API-published posts per profile in a rolling 24 h (a carousel counts one).
DAILY_POSTS = 250
# Meta suggests waiting about 30 s before publishing a container, and polling once a minute.
POLL = _dt.timedelta(seconds=30)
# A transient failure is tried again after this (the engine stretches it and bounds retries).
RETRY_AFTER = _dt.timedelta(seconds=30)
# Long-lived tokens last 60 days and can be refreshed once a day old: a week before the end
# leaves room for several failed attempts.
REFRESH_BEFORE = _dt.timedelta(days=7)
# How many times the account's recent posts are read looking for a post that a lost publish
# call made, before it is settled as published without a URL.
LOOKUPS = 3
# The platform's own time may differ from ours: a recovered post may be this much older
# than the container we saved.
CLOCK_SKEW = _dt.timedelta(minutes=10)
RAW_LIMIT = 500


# --- the one mapping table: what Threads answers -> the target's error code -------------

@dataclass(frozen=True)
class Rule:
    """One row: a signal of the answer, the values that match, the target code."""

    signal: str  # subcode | message | code | container_status | container_error | http
    values: tuple
    code: str
    transient: bool = False  # worth trying again (bounded by the engine)


AUTH, RATE, MEDIA, DOWNLOAD, CAPTION, EXPIRED, UNKNOWN = (
    "platform_auth_expired", "platform_rate_limited", "platform_rejected_media", "media_download_failed",
    "caption_too_long", "container_expired", "unknown_platform_error",
)

# Read top to bottom, the first matching row wins: the body before the HTTP status, and in
# the body the subcode before the code (code 4 with subcode 2207051 is suspected spam, not a
# rate limit). Anything unmatched is unknown_platform_error with the raw answer.
MAPPING: tuple[Rule, ...] = (
    Rule("subcode", (2207051,), MEDIA),  # "we restrict certain activity" (our choice: spam)
    Rule("subcode", (2207042,), RATE),  # the daily publishing quota
    Rule("subcode", (2207052,), DOWNLOAD),  # "the media could not be fetched from this URI"
    Rule("subcode", (4279013,), UNKNOWN),  # "user restricted"
    Rule("message", ("error validating access token",), AUTH),
    Rule("message", ("text must be at most 500 characters", "threads_api__link_limit_exceeded"), CAPTION),
    Rule("message", ("media could not be fetched from this uri",), DOWNLOAD),
    Rule("code", (190, 10, *range(200, 300)), AUTH),
    Rule("code", (4, 9, 17, 32, 613), RATE),
    Rule("code", (4279013,), UNKNOWN),
    Rule("container_status", ("EXPIRED",), EXPIRED),
    Rule("container_error", ("FAILED_DOWNLOADING_VIDEO",), DOWNLOAD),
    Rule("container_error", (
        "FAILED_PROCESSING_AUDIO", "FAILED_PROCESSING_VIDEO", "INVALID_ASPEC_RATIO", "INVALID_BIT_RATE",
        "INVALID_DURATION", "INVALID_FRAME_RATE", "INVALID_AUDIO_CHANNELS", "INVALID_AUDIO_CHANNEL_LAYOUT",
    ), MEDIA),
    Rule("container_error", ("UNKNOWN",), UNKNOWN),
    Rule("http", (429,), RATE),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)


@dataclass(frozen=True)
class Answer:
    """What the platform said, reduced to the signals MAPPING reads."""

    raw: str  # clipped, tokens removed: safe for a target's error message
    http: int | None = None
    code: int | None = None
    subcode: int | None = None
    text: str = ""  # the error object's strings, lower case
    message: str = ""  # the platform's own message, for people
    container_status: str | None = None
    container_error: str | None = None

    def signal(self, name: str):
        if name == "message":
            return self.text
        return getattr(self, name)


def classify(answer: Answer) -> Rule | None:
    for rule in MAPPING:
        value = answer.signal(rule.signal)
        if rule.signal == "message":
            if any(phrase in value for phrase in rule.values):
                return rule
        elif value is not None and value in rule.values:
            return rule
    return None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


_TOKEN_IN_QUERY = re.compile(r"\b(access_token|client_secret|code)=[^&\s\"']+", re.IGNORECASE)
_TOKEN_IN_JSON = re.compile(r"(\"(?:access_token|client_secret)\"\s*:\s*\")[^\"]*", re.IGNORECASE)


def scrub(text: str, *secrets: str | None) -> str:
    """`text` clipped to one short line, with tokens and secrets taken out."""
    for secret in filter(None, secrets):
        text = text.replace(secret, "[hidden]")
    text = _TOKEN_IN_QUERY.sub(r"\1=[hidden]", text)
    text = _TOKEN_IN_JSON.sub(r"\1[hidden]", text)
    text = " ".join(text.split())
    return text if len(text) <= RAW_LIMIT else text[: RAW_LIMIT - 1] + "…"


def read_answer(response: PlatformResponse, *secrets: str | None) -> Answer:
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    raw = f"HTTP {response.status}: {scrub(response.text, *secrets) or '(empty body)'}"
    if not isinstance(error, dict):
        return Answer(raw=raw, http=response.status)
    strings = [str(v) for v in error.values() if isinstance(v, str)]
    message = error.get("error_user_msg") or error.get("message") or ""
    return Answer(
        raw=raw, http=response.status, code=_int(error.get("code")), subcode=_int(error.get("error_subcode")),
        text=" ".join(strings).lower(), message=scrub(str(message), *secrets),
    )


def container_answer(body: Mapping[str, Any]) -> Answer:
    status, problem = body.get("status"), body.get("error_message")
    return Answer(raw=scrub(f"container {body.get('id')}: status {status}, error_message {problem}"),
                  container_status=status, container_error=problem)


def outcome_of(answer: Answer) -> tuple[Rule | None, Outcome]:
    """The target's failure for an answer, and the row that decided it (None: unmatched)."""
    rule = classify(answer)
    code = rule.code if rule else UNKNOWN
    if code == UNKNOWN:
        message = f"{TITLE} answered {answer.raw}"
    elif code == EXPIRED:
        message = f"{TITLE} let the container expire before it was published"
    elif answer.container_error:
        message = f"{TITLE} could not use the media: {answer.container_error}"
    else:
        message = f"{TITLE}: {answer.message or answer.raw}"
    return rule, Outcome(error_code=code, error_message=message)


# --- OAuth -------------------------------------------------------------------------------

def authorize(app: App, redirect_uri: str, state: str) -> Authorization:
    query = urlencode({
        "client_id": app.client_id,
        "redirect_uri": redirect_uri,
        "scope": ",".join(SCOPES),
        "response_type": "code",
        "state": state,
    }, safe=",")
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime) -> Grant:
    """Code -> short-lived token -> long-lived token (60 days) -> the profile.

    AuthFailed when Threads refuses; PlatformUnreachable when it cannot be asked (or
    answers 5xx): the user can simply try again.
    """
    code = code.removesuffix("#_")  # Threads appends `#_` to the redirect; some clients keep it
    short = _token_answer(http.post(f"{GRAPH}/oauth/access_token", data={
        "client_id": app.client_id, "client_secret": app.client_secret, "code": code,
        "grant_type": "authorization_code", "redirect_uri": redirect_uri,
    }), "the code exchange", code, app.client_secret)
    long_lived = _token_answer(http.get(f"{GRAPH}/access_token", params={
        "grant_type": "th_exchange_token", "client_secret": app.client_secret,
        "access_token": short["access_token"],
    }), "the long-lived token exchange", short["access_token"], app.client_secret)
    token = long_lived["access_token"]
    profile = _json_or_refusal(http.get(f"{API}/me", params={"fields": "id,username", "access_token": token}),
                               "reading the profile", token)
    user_id = str(profile.get("id") or short.get("user_id") or "")
    if not user_id or not profile.get("username"):
        raise AuthFailed(f"{TITLE} answered the profile without an id or username")
    return Grant(access_token=token, expires_at=_expiry(now, long_lived), user_id=user_id,
                 username=str(profile["username"]))


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new long-lived token for one that has not expired yet (Threads has no refresh token:
    the access token refreshes itself). AuthFailed when Threads refuses."""
    answer = _token_answer(http.get(f"{GRAPH}/refresh_access_token", params={
        "grant_type": "th_refresh_token", "access_token": access_token,
    }), "the token refresh", access_token)
    return Grant(access_token=answer["access_token"], expires_at=_expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


def _json_or_refusal(response: PlatformResponse, what: str, *secrets: str | None) -> Mapping[str, Any]:
    if response.status >= 500 or response.status == 429:
        # Busy or limited, not a refusal: the token stays as it is and is tried again later.
        raise PlatformUnreachable(f"{TITLE} failed {what} (HTTP {response.status})", sent=True)
    body = response.json()
    if response.status != 200 or not isinstance(body, dict):
        answer = read_answer(response, *secrets)
        raise AuthFailed(f"{TITLE} refused {what}: {answer.message or answer.raw}")
    return body


def _token_answer(response: PlatformResponse, what: str, *secrets: str | None) -> Mapping[str, Any]:
    body = _json_or_refusal(response, what, *secrets)
    if not isinstance(body.get("access_token"), str) or not body["access_token"]:
        raise AuthFailed(f"{TITLE} answered {what} without a token")
    return body


def _expiry(now: _dt.datetime, answer: Mapping[str, Any]) -> _dt.datetime | None:
    seconds = _int(answer.get("expires_in"))
    if not seconds or seconds <= 0:
        return None
    return now + _dt.timedelta(seconds=seconds)


# --- publishing --------------------------------------------------------------------------

def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    try:
        return _Publishing(step, job).run()
    except _Stop as stop:
        return stop.result


class _Stop(Exception):
    """Ends the step with `result` (a failure, a retry or a wait) from wherever it is found."""

    def __init__(self, result: Result):
        super().__init__()
        self.result = result


class _Publishing:
    """State keys (all JSON):
    - `creating`: the creating call that may be in flight: `item:<i>`, `container` or `publish`;
    - `items`: carousel item containers, in the media's order: {id, created_at, ready};
    - `container`: the container to publish (the single one, or the carousel's parent):
      {id, created_at, ready};
    - `post`: the published post's id; `lookups`: how often recent posts were searched.
    """

    def __init__(self, step: Step, job: Job):
        self.step, self.job = step, job
        self.state: dict[str, Any] = json.loads(json.dumps(dict(job.state)))
        self.now = step.now()
        self.window = _dt.timedelta(seconds=step.settings.threads_container_window)

    # -- the sequence

    def run(self) -> Result:
        if self.state.get("post"):
            return self.read_permalink()
        creating = self.state.get("creating")
        if creating == "publish":
            return self.reconcile_publish()
        if creating:
            # A container may have been created without our knowing its id. Creating it
            # again is harmless: a container that is never published expires on its own.
            del self.state["creating"]
        if "container" not in self.state and self.job.published_last_24h >= DAILY_POSTS:
            return self.over_daily_limit()
        if "container" not in self.state:
            if len(self.job.media) >= 2:
                waiting = self.carousel_items()
                if waiting:
                    return waiting
                self.create_container({"media_type": "CAROUSEL", **self.caption(),
                                       "children": ",".join(item["id"] for item in self.state["items"])})
            else:
                self.create_container(self.single())
        waiting = self.until_ready(self.state["container"])
        if waiting:
            return waiting
        return self.publish_container()

    def carousel_items(self) -> Result | None:
        items = self.state.setdefault("items", [])
        for index in range(len(items), len(self.job.media)):
            item = self.job.media[index]
            created = self.create(f"item:{index}", {**self.media_params(item), "is_carousel_item": "true"})
            items.append(created)
            self.saved()
        waits = [self.until_ready(item) for item in items]
        pending = [w for w in waits if w is not None]
        return min(pending, key=lambda w: w.until) if pending else None

    def publish_container(self) -> Result:
        if self.job.published_last_24h >= DAILY_POSTS:
            return self.over_daily_limit()
        limit = self.publishing_limit()
        if limit is not None:
            usage, total = limit
            if usage >= total:
                return failed(RATE, f"{TITLE} allows {total} posts in 24 hours and {usage} have been published")
        body = self.send_creating("publish", f"{API}/{self.user}/threads_publish",
                                  {"creation_id": self.state["container"]["id"]})
        self.state["post"] = str(body["id"])
        self.saved()
        return self.read_permalink()

    def read_permalink(self) -> Result:
        try:
            body = self.get(f"{API}/{quote(self.state['post'], safe='')}", fields="id,permalink")
        except _Stop:
            # Whatever went wrong, the post is out: never answer a failure now (not even an
            # expired token, whose replay could start from a state without the post).
            body = {}
        permalink = body.get("permalink")
        if isinstance(permalink, str) and permalink:
            return Done(Outcome(external_url=permalink))
        return self.look_again(f"{TITLE} did not answer the post's permalink")

    # -- never twice

    def reconcile_publish(self) -> Result:
        """A publish call may or may not have gone through: the container's status says."""
        container = self.state["container"]
        body = self.get(f"{API}/{quote(container['id'], safe='')}", fields="status,error_message")
        if body.get("status") == "PUBLISHED":
            return self.recover_post()
        # Not published (FINISHED, or the publish was refused): publishing now is safe.
        del self.state["creating"]
        container["ready"] = False
        waiting = self.until_ready(container, body)
        return waiting or self.publish_container()

    def recover_post(self) -> Result:
        """The container was published but we never heard the post's id: find the post
        among the account's recent ones (same text, not older than the container). From
        here on nothing fails the target: it is published."""
        try:
            body = self.get(f"{API}/{self.user}/threads", fields="id,permalink,text,timestamp")
        except _Stop:
            body = {}
        since = _parse_time(self.state["container"]["created_at"]) - CLOCK_SKEW
        found = [
            post for post in body.get("data") or []
            if isinstance(post, dict) and (post.get("text") or "") == self.job.caption
            and (_platform_time(post.get("timestamp")) or since) >= since
        ]
        if found:
            post = min(found, key=lambda p: _platform_time(p.get("timestamp")) or since)
            self.state.pop("creating", None)
            self.state["post"] = str(post["id"])
            self.saved()
            if post.get("permalink"):
                return Done(Outcome(external_url=post["permalink"]))
            return self.read_permalink()
        return self.look_again(f"{TITLE} published the container but the post is not among the account's recent ones yet")

    def look_again(self, reason: str) -> Result:
        """The post exists but its permalink is not known yet: read again later, and after
        LOOKUPS tries settle it as published without a URL (never as failed: it is out)."""
        self.state["lookups"] = self.state.get("lookups", 0) + 1
        if self.state["lookups"] >= LOOKUPS:
            return Done(Outcome())
        return self.retry(reason)

    # -- containers

    def single(self) -> dict:
        if not self.job.media:
            return {"media_type": "TEXT", "text": self.job.caption}
        return {**self.media_params(self.job.media[0]), **self.caption()}

    def caption(self) -> dict:
        return {"text": self.job.caption} if self.job.caption else {}

    @staticmethod
    def media_params(item: Mapping[str, str]) -> dict:
        if item.get("type") == "video":
            return {"media_type": "VIDEO", "video_url": item["url"]}
        return {"media_type": "IMAGE", "image_url": item["url"]}

    def create_container(self, params: dict) -> None:
        self.state["container"] = self.create("container", params)
        self.saved()

    def create(self, marker: str, params: dict) -> dict:
        body = self.send_creating(marker, f"{API}/{self.user}/threads", params)
        if not body.get("id"):
            raise _Stop(failed(UNKNOWN, f"{TITLE} created a container without an id"))
        return {"id": str(body["id"]), "created_at": self.now.isoformat(), "ready": False}

    def until_ready(self, container: dict, body: Mapping[str, Any] | None = None) -> Wait | None:
        """None once the container is FINISHED; a Wait while it is processing; raises _Stop
        with the failure when it failed or its window is over."""
        if container.get("ready"):
            return None
        if body is None:
            body = self.get(f"{API}/{quote(container['id'], safe='')}", fields="status,error_message")
        status = body.get("status")
        if status == "FINISHED":
            container["ready"] = True
            return None
        if status == "PUBLISHED":
            raise _Stop(self.recover_post())
        if status in ("EXPIRED", "ERROR"):
            raise _Stop(Done(outcome_of(container_answer(body))[1]))
        deadline = _parse_time(container["created_at"]) + self.window
        if self.now >= deadline:
            seconds = int(self.window.total_seconds())
            raise _Stop(failed(EXPIRED, f"{TITLE} did not finish processing the container within {seconds} s"))
        return Wait(until=min(self.now + POLL, deadline), state=self.snapshot())

    def publishing_limit(self) -> tuple[int, int] | None:
        """(posts published in 24 h, allowed), or None when Threads does not say.

        Only a hint before the publish: a failed read is not a reason to stop.
        """
        try:
            response = self.step.http.get(f"{API}/{self.user}/threads_publishing_limit", params={
                "fields": "quota_usage,config", "access_token": self.job.access_token})
        except PlatformUnreachable:
            return None
        body = response.json() if response.status == 200 else {}
        data = body.get("data") if isinstance(body, dict) else None
        if not data or not isinstance(data[0], dict):
            return None
        usage, config = _int(data[0].get("quota_usage")), data[0].get("config") or {}
        total = _int(config.get("quota_total")) if isinstance(config, dict) else None
        return (usage, total) if usage is not None and total is not None else None

    # -- calls

    @property
    def user(self) -> str:
        return quote(self.job.user_id, safe="")

    def get(self, url: str, **params) -> Mapping[str, Any]:
        """A read: safe to repeat, so any transient failure is a Retry."""
        try:
            response = self.step.http.get(url, params={**params, "access_token": self.job.access_token})
        except PlatformUnreachable as e:
            raise _Stop(self.retry(e.message)) from None
        return self.body_or_stop(response)

    def send_creating(self, marker: str, url: str, params: dict) -> Mapping[str, Any]:
        """A call that creates something: the marker is saved first. When no clear answer
        comes back the marker stays, and the next step reconciles before sending again."""
        self.state["creating"] = marker
        self.step.save(self.snapshot())
        try:
            response = self.step.http.post(url, data={**params, "access_token": self.job.access_token})
        except PlatformUnreachable as e:
            raise _Stop(self.retry(e.message)) from None
        body = self.body_or_stop(response)
        del self.state["creating"]
        return body

    def body_or_stop(self, response: PlatformResponse) -> Mapping[str, Any]:
        body = response.json()
        if response.status == 200 and isinstance(body, dict) and not isinstance(body.get("error"), dict):
            return body
        answer = read_answer(response, self.job.access_token)
        rule, outcome = outcome_of(answer)
        if rule is not None and rule.transient:
            raise _Stop(self.retry(outcome.error_message or answer.raw))
        raise _Stop(Done(outcome))

    def saved(self) -> None:
        self.step.save(self.snapshot())

    def snapshot(self) -> dict:
        """A copy of the state as the engine stores it (JSON)."""
        return json.loads(json.dumps(self.state))

    def retry(self, reason: str) -> Retry:
        return Retry(after=self.now + RETRY_AFTER, state=self.snapshot(), reason=reason)

    def over_daily_limit(self) -> Done:
        return failed(RATE, f"{TITLE} allows {DAILY_POSTS} posts in 24 hours; this account published "
                            f"{self.job.published_last_24h}")


def _parse_time(value: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(value)


def _platform_time(value: Any) -> _dt.datetime | None:
    """Threads' `2026-11-22T10:00:00+0000` as naive UTC, like our clock; None if unreadable."""
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
