"""The checks a target meets before its platform is asked to publish, in the order it
meets them (docs/decisions.md#posts-in-time). One sequence for two callers: the engine
(fanout/tasks/publishing.py) takes the first problem, and since the sequence is lazy no
media is fetched after a problem of the content; a preflight (fanout/preflight.py) lists
them all.

1. sandbox: the sandbox's own check, and nothing else (fanout/platforms/sandbox.py `check`);
2. live: the platform's app on this server (`unconfigured`), the last check if missing;
3. the content's own checks (fanout/content.py `target_problems`);
4. the account's token, refreshed now if due (`_token_problem`), the last check if refused;
5. each media file fetched and judged by its bytes, the post's then each thread part's
   (`media_problems`);
6. the adapter's `foresee`.

`publishing` is the one difference. The engine's adapter publishes next and meets 4 to 6
itself (an auth error earns a refresh; an adapter with `UPLOADS_MEDIA` fetches its media
to upload it, judged the same way; the platform's limits answer), so the engine makes 5
only for the other adapters. A preflight publishes nothing, so it makes them all, to
foresee what the publish would meet (tests/test_before_platform.py).
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator

from .content import Content, job_of
from .content import target_problems as content_problems
from .models.lifecycle import published_in_workspace, published_last_24h, published_since
from .models.tables.account import Account
from .platforms import sandbox as sandbox_platform
from .platforms.base import Outcome, limit_key
from .platforms.setup import live_setup
from .target_errors import AUTH, UNKNOWN


def problems(rt, account: Account, content: Content, *, sandbox: bool, publishing: bool,
             simulate_error: str | None = None, started: bool = False) -> Iterator[Outcome]:
    """The problems a target to `account` publishing `content` (its platform's, from
    fanout/content.py `content_for`) meets before its platform is asked, in order; none
    when it may go. `publishing`: the engine's call, whose adapter checks the rest itself.
    `started`: a step after the target's first (its state saved), which meets only what
    may have changed since, the server's configuration; the rest was judged before."""
    platform = rt.platforms[account.platform]
    if sandbox:
        refusal = None if started else sandbox_platform.check(platform.rules, content, simulate_error)
        if refusal is not None:
            yield refusal
        return
    problem = unconfigured(rt, platform)
    if problem is not None:
        yield problem
        return
    if started:
        return
    for found in content_problems(platform.rules, content):
        yield Outcome(error_code=found.code, error_message=found.message)
    if not publishing:
        problem = _token_problem(rt, platform, account)
        if problem is not None:
            yield problem  # the platform cannot be asked with this account any more
            return
    if not (publishing and getattr(platform.adapter, "UPLOADS_MEDIA", False)):
        for number, part in enumerate((content, *content.thread)):
            yield from media_problems(rt, platform, part.media, where=f"thread[{number - 1}]." if number else "")
    foresee = getattr(platform.adapter, "foresee", None)
    if not publishing and foresee is not None:
        account = Account.get_by_id(account.id)  # its token may have been refreshed just now
        recent = published_last_24h(account.id, rt.now())
        job = job_of(rt, account, content, target_id="preflight", published_last_24h=recent)
        yield from foresee(Foresight(rt, platform, account), job)


def unconfigured(rt, platform) -> Outcome | None:
    """unknown_platform_error for a platform (of the runtime's) this server cannot publish to."""
    if live_setup(rt, platform.name) is not None:
        return None
    return Outcome(error_code=UNKNOWN, error_message=(
        f"publishing to {platform.title} is not configured on this server "
        f"({platform.env_prefix}CLIENT_ID and {platform.env_prefix}CLIENT_SECRET)"))


def media_problems(rt, platform, media, *, where: str = "") -> Iterator[Outcome]:
    """Each media item the platform would refuse once fetched (through the guard, judged by
    its bytes: fanout/outbound/media_fetch.py), in order, each fetched only when asked for.
    `where` prefixes the items' names (a thread part's, `thread[0].`)."""
    # Imported here: Pillow and mutagen load only in the processes that fetch media.
    from .outbound.media_fetch import MediaProblem, inspect

    limits = platform.rules.media_limits
    for index, item in enumerate(media):
        try:
            inspect(rt.media_outbound, item["url"], limits, kind=item["type"], label=f"{where}media[{index}]")
        except MediaProblem as e:
            yield Outcome(error_code=e.code, error_message=e.message)


def _token_problem(rt, platform, account: Account) -> Outcome | None:
    """platform_auth_expired when the account's token needs a refresh now (expired, or its
    refresh due) and the platform refuses it; the refresh is the one a worker would make."""
    from .tasks.tokens import Refresh, refresh_account  # the tasks import this module

    now = rt.now()
    expired = account.token_expires_at is not None and account.token_expires_at <= now
    due = account.refresh_at is not None and account.refresh_at <= now
    if not (expired or due):
        return None
    if refresh_account(rt, account.id) is not Refresh.EXPIRED:
        return None
    return Outcome(error_code=AUTH, error_message=(
        f"the account's token {'has expired' if expired else 'was due for a refresh'} and {platform.title} refused to "
        "refresh it; the account is expired now: reconnect it"))


class Foresight:
    """The `Step` (fanout/platforms/base.py) a preflight hands an adapter's `foresee`: the
    platform's API and the service's counts, recording nothing. `save` refuses, since a
    preflight creates nothing, and `per_minute` only looks at the window."""

    def __init__(self, rt, platform, account: Account):
        self.rt, self.platform, self.account = rt, platform, account
        self.http = rt.platform_http
        self.outbound = rt.media_outbound
        self.settings = rt.settings

    def now(self) -> _dt.datetime:
        return self.rt.now()

    def sleep(self, seconds: float) -> None:
        pass

    def save(self, state) -> None:
        raise RuntimeError("a preflight creates nothing: foresee must not save state")

    def published(self, since: _dt.datetime, *, workspace: bool = False) -> int:
        if workspace:
            return published_in_workspace(self.account.workspace_id, self.account.platform, since)
        return published_since(self.account.id, since)

    def per_minute(self, key: str, limit: int) -> bool:
        return self.rt.throttle.would_admit(limit_key(key), limit)
