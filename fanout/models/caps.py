"""The plan caps (docs/decisions.md#plans): what each counts, its limit, and its refusal.

A check runs inside the write transaction that adds what it counts, with the workspace
row locked (`lock_workspace`), so concurrent requests of one workspace cannot pass a cap
together (tests/test_concurrency.py). The monthly post count needs no lock: its increment
is one conditional UPDATE the database refuses past the cap
(tests/test_upload_concurrency.py). `GET /v1/usage` reads the same counts (`usage`).
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from peewee import Value

from ..plans import WEBHOOKS_PER_WORKSPACE, Plan
from ..problems import PlanLimitExceeded
from .db import Compiled, CompiledInsert
from .tables.account import Account
from .tables.api_key import ApiKey
from .tables.monthly_usage import MonthlyUsage
from .tables.webhook import Webhook
from .tables.workspace import Workspace
from .usage import month_of, next_month_start


@dataclass(frozen=True)
class Use:
    """One cap of a workspace: its limit, how much is used, and when the count resets."""

    limit: int
    used: int
    resets_at: _dt.datetime | None = None


# --- what each cap counts --------------------------------------------------------------


def count_accounts(workspace_id: str) -> int:
    """Every account, whatever its status (docs/decisions.md#account-cap)."""
    return Account.select().where(Account.workspace == workspace_id).count()


def count_active_keys(workspace_id: str) -> int:
    """Keys not revoked."""
    return ApiKey.select().where((ApiKey.workspace == workspace_id) & ApiKey.revoked_at.is_null()).count()


def count_webhooks(workspace_id: str) -> int:
    return Webhook.select().where(Webhook.workspace == workspace_id).count()


def posts_this_month(workspace_id: str, now: _dt.datetime) -> int:
    """Posts created this UTC calendar month, sandbox and live together (docs/decisions.md#monthly-post-cap)."""
    row = MonthlyUsage.get_or_none((MonthlyUsage.workspace == workspace_id) & (MonthlyUsage.month == month_of(now)))
    return row.posts if row else 0


# --- the checks --------------------------------------------------------------------------


def check_accounts(workspace: Workspace) -> None:
    """PlanLimitExceeded if the workspace holds as many accounts as its plan allows."""
    limit = workspace.limits.accounts
    if count_accounts(workspace.id) >= limit:
        raise PlanLimitExceeded(
            f"the {workspace.plan} plan allows {limit} connected accounts; disconnect one or upgrade the plan"
        )


def holds_account_on(workspace_id: str, platform: str, sandbox: bool) -> bool:
    """Whether the workspace holds an account on `platform` in this mode, whatever its status."""
    return Account.select().where(
        (Account.workspace == workspace_id) & (Account.platform == platform) & (Account.sandbox == sandbox)
    ).exists()


def check_connect(workspace: Workspace, platform: str, sandbox: bool) -> None:
    """PlanLimitExceeded for a connect flow that could only add an account past the cap.

    At the cap a flow may still end in a reconnect, which adds no account: the workspace
    holds an account on the platform in the flow's mode, and the user may consent as that
    platform user. Who consents is known only at the callback, where `account.connect_account`
    decides under the workspace's lock (docs/decisions.md#account-cap). This check adds
    nothing, so it takes no lock: it only spares a flow that could end in nothing else.
    """
    limit = workspace.limits.accounts
    if count_accounts(workspace.id) < limit or holds_account_on(workspace.id, platform, sandbox):
        return
    raise PlanLimitExceeded(
        f"the {workspace.plan} plan allows {limit} connected account{'' if limit == 1 else 's'} and this workspace holds no "
        f"{'sandbox' if sandbox else 'live'} {platform} account to reconnect; disconnect one or upgrade the plan"
    )


def check_api_keys(workspace: Workspace) -> None:
    """PlanLimitExceeded if the workspace holds as many active keys as its plan allows."""
    limit = workspace.limits.keys
    if count_active_keys(workspace.id) >= limit:
        raise PlanLimitExceeded(
            f"the {workspace.plan} plan allows {limit} active API key{'' if limit == 1 else 's'}; "
            "revoke one or upgrade the plan"
        )


def check_webhooks(workspace: Workspace) -> None:
    """PlanLimitExceeded if the workspace holds WEBHOOKS_PER_WORKSPACE registrations (every plan alike)."""
    if count_webhooks(workspace.id) >= WEBHOOKS_PER_WORKSPACE:
        raise PlanLimitExceeded(
            f"a workspace holds at most {WEBHOOKS_PER_WORKSPACE} webhook registrations; delete one first"
        )


# Compiled once (fanout/models/db.py): every upload runs both.
_NEW_MONTH = CompiledInsert(MonthlyUsage, lambda insert: insert.on_conflict_ignore())
_COUNT_POST = Compiled(MonthlyUsage, lambda workspace, month, limit: (
    MonthlyUsage.update(posts=MonthlyUsage.posts + 1).where(
        (MonthlyUsage.workspace == Value(workspace)) & (MonthlyUsage.month == Value(month))
        & (MonthlyUsage.posts < Value(limit)))))


def count_post(workspace: Workspace, now: _dt.datetime) -> None:
    """Count one post, or PlanLimitExceeded; call inside the transaction that creates the post.

    The increment is conditional, so parallel requests can never take the count past the cap:
    the database refuses the update that would.
    """
    month = month_of(now)
    limit = workspace.limits.posts_per_month
    _NEW_MONTH.execute(MonthlyUsage(workspace=workspace.id, month=month, posts=0))
    if not _COUNT_POST.execute(workspace.id, month, limit):
        raise _posts_used(workspace, limit)


def check_post(workspace: Workspace, now: _dt.datetime) -> None:
    """PlanLimitExceeded where `count_post` would refuse one more post now; counts nothing
    (a preflight)."""
    limit = workspace.limits.posts_per_month
    if posts_this_month(workspace.id, now) >= limit:
        raise _posts_used(workspace, limit)


def _posts_used(workspace: Workspace, limit: int) -> PlanLimitExceeded:
    return PlanLimitExceeded(
        f"the {workspace.plan} plan allows {limit} posts per month and this month's are used; "
        "the count resets on the 1st (UTC), or upgrade the plan"
    )


# --- what GET /v1/usage shows ----------------------------------------------------------


def usage(workspace_id: str, plan: Plan, now: _dt.datetime) -> dict[str, Use]:
    """Each cap the database holds, by the name GET /v1/usage gives it."""
    return {
        "posts": Use(plan.posts_per_month, posts_this_month(workspace_id, now), next_month_start(now)),
        "accounts": Use(plan.accounts, count_accounts(workspace_id)),
        "api_keys": Use(plan.keys, count_active_keys(workspace_id)),
        "webhooks": Use(WEBHOOKS_PER_WORKSPACE, count_webhooks(workspace_id)),
    }
