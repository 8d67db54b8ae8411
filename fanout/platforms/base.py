"""The seam between the publishing engine and a platform (docs/architecture.md#platforms).

An adapter takes plain values (an app's credentials, a token, a caption, media, the state
it saved last time) and returns plain values; it imports no models and writes nothing
itself. The engine (fanout/tasks/publishing.py) owns the database: it saves what an
adapter hands to `Step.save` before the adapter makes a call that creates something, and
it decides what happens after a `Done`, `Wait` or `Retry`.

Publishing is a sequence of steps. Each `publish` call does one short piece of work (one
or a few platform calls) and answers:
- `Done(outcome)`: the target is settled, published or failed;
- `Wait(until, state)`: the platform is working (a container processing); call again at
  `until` with `state`;
- `Retry(after, state, reason, deadline)`: a transient failure before anything was
  created, or an ambiguous one after which the next step must read back what exists; the
  engine bounds how many retries a target gets, and spaces them out, never past
  `deadline` when there is one (the end of a platform's window).
The state is the adapter's alone: the engine keeps its count of retries beside it, on the
target, so `Job.state` is exactly what the adapter saved or answered last
(tests/test_engine_counts.py).
A worker thread never sleeps between steps: a scheduled task or the sweeper runs the next.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

State = Mapping[str, Any]


# The permalinks of a thread's parts that are out, in the parts' order (the first post
# first); None for a part that is out without a known permalink (openapi.yaml
# `Target.published_parts`).
PublishedParts = tuple  # tuple[str | None, ...]


@dataclass(frozen=True)
class Outcome:
    """What publishing a target came to: an external URL, or an error code and message.
    A published target whose first comment could not be posted says why in
    `first_comment_error` (it stays published: the post is out). A thread's target says
    which of its parts are out in `published_parts` (None: not a thread, or not said).
    `warnings`: what the platform did differently from what was asked, on a published
    target (openapi.yaml `Target.warnings`)."""

    external_url: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    first_comment_error: str | None = None
    published_parts: PublishedParts | None = None
    warnings: tuple[str, ...] = ()

    @property
    def published(self) -> bool:
        return self.error_code is None


def failed(code: str, message: str) -> "Done":
    return Done(Outcome(error_code=code, error_message=message))


def published(external_url: str) -> "Done":
    return Done(Outcome(external_url=external_url))


@dataclass(frozen=True)
class Done:
    outcome: Outcome


@dataclass(frozen=True)
class Wait:
    until: _dt.datetime
    state: State
    published_parts: PublishedParts | None = None  # a thread's parts out so far


@dataclass(frozen=True)
class Retry:
    after: _dt.datetime
    state: State
    reason: str
    # The latest the next step may come (a container's window ends): the engine's backoff
    # stops there, and the step then settles what the window's end means.
    deadline: _dt.datetime | None = None
    # What the target comes to when the engine gives up retrying, instead of failing: a
    # published post whose first comment was being posted (the engine puts its reason in
    # `first_comment_error`).
    settles: Outcome | None = None
    # Said after the engine's reason when it gives up and fails the target: the thread
    # part that was being published and the permalinks of those already out.
    context: str | None = None
    published_parts: PublishedParts | None = None  # a thread's parts out so far


Result = Done | Wait | Retry


@dataclass(frozen=True)
class App:
    """The credentials of the app registered with a platform (FANOUT_<P>_CLIENT_ID/SECRET)."""

    client_id: str
    client_secret: str = field(repr=False)


@dataclass(frozen=True)
class Grant:
    """Tokens and the identity a platform granted, from a connect flow or a refresh.

    `refresh_token` None means the platform did not send one: the stored one is kept
    (a refresh never replaces a refresh token with nothing). `details`: what the platform
    said of the account that the service's rules read without asking it (a Pinterest
    account's boards: `Platform.account_problem`), a JSON object kept on the account; None
    keeps what is stored.
    """

    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: _dt.datetime | None = None
    user_id: str | None = None
    username: str | None = None
    details: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Choices:
    """Several accounts one consent granted (a Facebook user's Pages): the connect page
    offers them by `noun`, and its form posts the chosen one's `user_id` as `field`
    (docs/architecture.md#connect-styles). One of them is connected at once."""

    field: str
    noun: str
    grants: tuple[Grant, ...]


@dataclass(frozen=True)
class Authorization:
    """Where to send the browser, and what the callback will need again (a PKCE verifier)."""

    url: str
    verifier: str | None = None


class AuthFailed(Exception):
    """The platform refused a code exchange or a refresh: the user must connect again.

    `reason` is for the log and the account's page; it never holds a token.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ClientRefused(Exception):
    """The platform refused this server's app credentials (FANOUT_<P>_CLIENT_ID/SECRET): a
    setting to fix, not the account's fault, so a refresh is tried again later and the
    account stays active (fanout/tasks/tokens.py treats it as transient)."""


class AccountNotEligible(AuthFailed):
    """The platform granted access, but to an account that cannot publish through its API
    (an Instagram personal account): the connect flow ends with `account_not_eligible`."""


@dataclass(frozen=True)
class Part:
    """A further post of a thread: published as a reply to the part before it."""

    caption: str
    media: tuple[Mapping[str, str], ...] = ()


@dataclass(frozen=True)
class Job:
    """One target to publish, as plain values: its platform's content (fanout/content.py),
    the post's or its override's."""

    target_id: str
    platform: str
    user_id: str  # the platform's id of the account
    username: str
    access_token: str = field(repr=False)
    caption: str
    media: tuple[Mapping[str, str], ...]  # {"url", "type"} items, in the post's order
    state: State  # what the last step saved ({} at first)
    simulate_error: str | None = None  # sandbox posts only
    # The account's targets published in the last 24 hours, counted by the engine, for
    # platforms with a daily publishing cap.
    published_last_24h: int = 0
    # openapi.yaml `<Platform>Options`, as sent (checked against the content already).
    options: Mapping[str, Any] = field(default_factory=dict)
    thread: tuple[Part, ...] = ()  # further parts, each a reply to the one before
    first_comment: str | None = None  # posted once every part is out, never twice

    @property
    def parts(self) -> tuple[Part, ...]:
        """Every post of the target in order: the first, then its thread."""
        return (Part(self.caption, self.media), *self.thread)


class Step(Protocol):
    """What an adapter may use while it runs one step."""

    http: Any  # fanout.platforms.http.PlatformHttp: the platform's API, hosts rewritten
    outbound: Any  # fanout.outbound.client.Outbound: the guard for URLs clients choose (media)
    settings: Any  # fanout.settings.Settings
    platform: Any  # fanout.platforms.description.Platform: the target's, from the runtime's platforms

    def now(self) -> _dt.datetime: ...

    def sleep(self, seconds: float) -> None:
        """Time a call is in flight (the sandbox's simulated latency); never used to wait."""

    def save(self, state: State) -> None:
        """Store `state` on the target before a call that creates something; raises
        LeaseLost if the target is no longer this worker's to publish."""

    def published(self, since: _dt.datetime, *, workspace: bool = False) -> int:
        """Targets on this platform published since `since` by this account, or with
        `workspace` by every account of the workspace (a platform's per-window caps)."""

    def per_minute(self, key: str, limit: int) -> bool:
        """Count one call against a per-minute limit shared by every worker (a platform's
        per-token limits); False, counting nothing, when `limit` calls lie in the last 60 s.
        A preflight's step (fanout/before_platform.py) counts nothing: it answers whether
        one more call would be admitted."""


class Stop(Exception):
    """Ends an adapter's step with `result` (a failure, a retry or a wait) from wherever in
    the step it is found; `publish` answers `stop.result`."""

    def __init__(self, result: "Result"):
        super().__init__()
        self.result = result


def expiry(now: _dt.datetime, answer: Mapping[str, Any]) -> _dt.datetime | None:
    """When a token answered with `expires_in` seconds expires, on the engine's clock."""
    try:
        seconds = int(answer.get("expires_in"))
    except (TypeError, ValueError):
        return None
    return now + _dt.timedelta(seconds=seconds) if seconds > 0 else None


def limit_key(key: str) -> str:
    """The limiter's key for a step's `per_minute(key, limit)`: the engine counts under it,
    a preflight only looks, and no workspace's own key (the API's limit) is ever one."""
    return f"platform:{key}"


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class LeaseLost(Exception):
    """The target was taken back from this worker (its lease ran out): stop, send nothing."""


Clock = Callable[[], _dt.datetime]


# --- connect styles (docs/architecture.md#platforms) ------------------------------------
# How a platform's user grants Fanout access. An adapter declares its style with a module
# attribute CONNECT_STYLE; without one it is OAUTH, the redirect. What each style asks of
# an adapter: fanout/platforms/surface.py.

OAUTH = "oauth"
CREDENTIALS = "credentials"
SERVER = "server"  # the user names a server (a Mastodon instance), then OAuth on it


@dataclass(frozen=True)
class Field:
    """One input of a credentials form: the identifier, or the (app) password when `secret`."""

    name: str  # the form field's name
    label: str  # what the page asks for
    secret: bool = False
    hint: str | None = None  # a line under the input (where to make an app password)


class SignInRefused(AuthFailed):
    """The platform refused the identifier and password: the form is shown again."""


def connect_style(adapter) -> str:
    return getattr(adapter, "CONNECT_STYLE", OAUTH)
