"""The monthly post count: per workspace, per UTC calendar month, sandbox and live together.

fanout/models/caps.py counts posts into it and reads it.
"""
from __future__ import annotations

import datetime as _dt

from peewee import CharField, ForeignKeyField, IntegerField

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
