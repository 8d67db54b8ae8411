"""POST /v1/upload/preflight: what an upload of a body would come to, creating and counting
nothing (docs/decisions.md#posts-in-time).

The request's rules are the upload's own (fanout/models/upload.py, then the monthly cap
read, not counted): a body an upload would refuse is refused with the same status and
code. Otherwise each destination is judged by `target_problems`, the checks its target
meets before its platform is asked to publish, each made as the engine
(fanout/tasks/publishing.py) and the adapter make it:

- sandbox: the sandbox's own check (its simulated error, then the content's checks and
  its media rules; fanout/platforms/sandbox.py `check`);
- live: the platform configured on this server; the content's own checks (the caps of
  its caption, thread parts and first comment, its options: fanout/content.py
  `target_problems`, which the engine and the sandbox run too); the account's token,
  refreshed now if its refresh is due or it has expired, as a worker would (a refusal
  expires the account, as it would then); each media file fetched through the guard and
  judged by its bytes, the post's and each thread part's (`media_problems`, which the
  engine runs too); then the platform's own checks (its adapter's `foresee`: Instagram's
  and Threads' publishing limits read from the platform, X's and TikTok's windows as this
  service counts them, TikTok's pulls from unverified hosts), which count nothing.

A target's checks take the content that target would publish: the post's, or its
platform's override (`overrides`: caption, media, options, thread, first comment), worked
out by fanout/content.py `content_for` as the upload, the engine and the views do. What
only the platform's answer to a publish can show (a video it fails to process, an option
it refuses for this account) is not foreseen.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator
from dataclasses import dataclass

from .content import Content, content_for, job_of
from .content import target_problems as content_problems
from .models import Account, Workspace, caps
from .models.lifecycle import published_in_workspace, published_last_24h, published_since
from .models.upload import check_destinations, draft_from_request
from .platforms import sandbox as sandbox_platform
from .platforms.base import Outcome, limit_key
from .platforms.setup import live_setup
from .target_errors import AUTH, UNKNOWN


@dataclass(frozen=True)
class Foreseen:
    """One destination of a preflight: its account and the failures its target would meet."""

    account: Account
    problems: list[Outcome]


def preflight(rt, workspace_id: str, body: dict, key_mode: str) -> list[Foreseen]:
    """The upload's request rules (their Problems, as the upload raises them), then each
    destination's foreseen failures, in the upload's order."""
    now = rt.now()
    draft = draft_from_request(body, key_mode, now=now, insecure_urls=rt.settings.insecure_urls)
    destinations = check_destinations(rt.platforms, workspace_id, draft)
    caps.check_post(Workspace.get_by_id(workspace_id), now)
    return [Foreseen(account, target_problems(
        rt, account, content_for(draft.caption, draft.media, draft.overrides, account.platform),
        sandbox=draft.sandbox, simulate_error=draft.simulate_error))
        for account in destinations]


def target_problems(rt, account: Account, content: Content, *, sandbox: bool,
                    simulate_error: str | None = None) -> list[Outcome]:
    """The failures a target to `account` publishing `content` (its platform's, from
    fanout/content.py `content_for`) would meet before its platform publishes (empty: none
    foreseen), in the order they would be met."""
    platform = rt.platforms[account.platform]
    if sandbox:
        refusal = sandbox_platform.check(platform.rules, content, simulate_error)
        return [refusal] if refusal is not None else []
    problem = unconfigured(rt, platform)
    if problem is not None:
        return [problem]
    # The caps of the caption, each thread part and the first comment, and the options:
    # the engine's own checks of the content (fanout/content.py), one set of rules.
    found = [Outcome(error_code=p.code, error_message=p.message)
             for p in content_problems(platform.rules, content)]
    problem = _token_problem(rt, platform, account)
    if problem is not None:
        return [*found, problem]  # the platform cannot be asked with this account any more
    for number, part in enumerate((content, *content.thread)):
        found += media_problems(rt, platform, part.media, where=f"thread[{number - 1}]." if number else "")
    foresee = getattr(platform.adapter, "foresee", None)
    if foresee is not None:
        account = Account.get_by_id(account.id)  # its token may have been refreshed just now
        recent = published_last_24h(account.id, rt.now())
        job = job_of(rt, account, content, target_id="preflight", published_last_24h=recent)
        found += foresee(Foresight(rt, platform, account), job)
    return found


# --- the checks the engine makes too -----------------------------------------------------


def unconfigured(rt, platform) -> Outcome | None:
    """unknown_platform_error for a platform (of the runtime's) this server cannot publish to."""
    if live_setup(rt, platform.name) is not None:
        return None
    return Outcome(error_code=UNKNOWN, error_message=(
        f"publishing to {platform.title} is not configured on this server "
        f"({platform.env_prefix}CLIENT_ID and {platform.env_prefix}CLIENT_SECRET)"))


def media_problems(rt, platform, media, *, where: str = "") -> Iterator[Outcome]:
    """Each media item the platform would refuse once fetched (through the guard, judged by
    its bytes: fanout/outbound/media_fetch.py), in order; lazily, so the engine stops at
    the first. `where` prefixes the items' names (a thread part's, `thread[0].`)."""
    # Imported here: Pillow and mutagen load only in the processes that fetch media.
    from .outbound.media_fetch import MediaProblem, inspect

    limits = platform.rules.media_limits
    for index, item in enumerate(media):
        try:
            inspect(rt.media_outbound, item["url"], limits, kind=item["type"], label=f"{where}media[{index}]")
        except MediaProblem as e:
            yield Outcome(error_code=e.code, error_message=e.message)


# --- what only a preflight does ------------------------------------------------------------


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


