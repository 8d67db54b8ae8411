"""The monthly post count: per workspace, per UTC calendar month, sandbox and live together."""
from __future__ import annotations

import datetime as _dt

from peewee import CharField, ForeignKeyField, IntegerField

from ..problems import PlanLimitExceeded
from .db import BaseModel
from .workspace import Workspace


class MonthlyUsage(BaseModel):
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    month = CharField(max_length=7)  # "2026-11"
    posts = IntegerField(default=0)

    class Meta:
        primary_key = False
        indexes = ((("workspace", "month"), True),)


def month_of(now: _dt.datetime) -> str:
    return now.strftime("%Y-%m")


def next_month_start(now: _dt.datetime) -> _dt.datetime:
    """When the monthly post count starts again from zero: the next 1st, 00:00 UTC."""
    if now.month == 12:
        return _dt.datetime(now.year + 1, 1, 1)
    return _dt.datetime(now.year, now.month + 1, 1)


def posts_this_month(workspace_id: str, now: _dt.datetime) -> int:
    row = MonthlyUsage.get_or_none((MonthlyUsage.workspace == workspace_id) & (MonthlyUsage.month == month_of(now)))
    return row.posts if row else 0


def count_post(workspace: Workspace, now: _dt.datetime) -> None:
    """Count one post, or PlanLimitExceeded; call inside the transaction that creates the post.

    The increment is conditional, so parallel requests can never take the count past the cap:
    the database refuses the update that would.
    """
    month = month_of(now)
    cap = workspace.limits.posts_per_month
    MonthlyUsage.insert(workspace=workspace.id, month=month, posts=0).on_conflict_ignore().execute()
    updated = (
        MonthlyUsage.update(posts=MonthlyUsage.posts + 1)
        .where((MonthlyUsage.workspace == workspace.id) & (MonthlyUsage.month == month) & (MonthlyUsage.posts < cap))
        .execute()
    )
    if not updated:
        raise PlanLimitExceeded(
            f"the {workspace.plan} plan allows {cap} posts per month and this month's are used; "
            "the count resets on the 1st (UTC), or upgrade the plan"
        )
