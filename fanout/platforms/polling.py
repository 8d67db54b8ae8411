"""When to look again at work a platform is still doing: a container processing, uploaded
media being transcoded, a post being published (docs/platforms.md#waiting-for-a-platform).

One rule for every adapter. Checks come on a short, growing schedule counted from when the
work started, so that work done in a few seconds is seen done within a few seconds, and
long work is read at the pace the platform's documentation asks for:

    1, 2, 4, 8, 15, 30 s apart (1, 3, 7, 15, 30, 60 s after the start), then every `most`;

no wait longer than `most`, and none past `deadline` (the end of the platform's window:
the last check falls on it). Counted from the start, a check that ran late does not push
the next ones later. A platform that says when to look again (X's `check_after_secs`) is
taken at its word, within 1 s and `most`.
"""
from __future__ import annotations

import datetime as _dt

GAPS = tuple(_dt.timedelta(seconds=s) for s in (1, 2, 4, 8, 15, 30))
SOONEST = GAPS[0]  # the shortest wait a platform's hint is read as


def next_check(started: _dt.datetime, now: _dt.datetime, *, most: _dt.timedelta,
               deadline: _dt.datetime | None = None, hint: float | None = None) -> _dt.datetime:
    """When to check again, at `now`, work that started at `started`."""
    if hint is not None:
        # Bounded as a number first: a timedelta of whatever a platform sent may overflow.
        at = now + _dt.timedelta(seconds=min(max(hint, SOONEST.total_seconds()), most.total_seconds()))
    else:
        at = started
        for gap in GAPS:
            at += min(gap, most)
            if at > now:
                break
        else:
            # Past the growing part: every `most`, counted from where it ended.
            at += most * ((now - at) // most + 1)
    return min(at, deadline) if deadline is not None else at
