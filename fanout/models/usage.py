"""The months of the monthly post count: UTC calendar months, sandbox and live together.

fanout/models/caps.py counts posts into fanout/models/tables/monthly_usage.py by them and
reads it.
"""
from __future__ import annotations

import datetime as _dt


def month_of(now: _dt.datetime) -> str:
    return now.strftime("%Y-%m")


def next_month_start(now: _dt.datetime) -> _dt.datetime:
    """When the monthly post count starts again from zero: the next 1st, 00:00 UTC."""
    if now.month == 12:
        return _dt.datetime(now.year + 1, 1, 1)
    return _dt.datetime(now.year, now.month + 1, 1)
