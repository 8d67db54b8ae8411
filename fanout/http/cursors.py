"""Opaque list cursors: the position of the last item shown, sealed to its workspace.

A cursor is encrypted with the service's keyring, so clients cannot read or forge one, and
a cursor from another workspace (or garbage) is refused with 400 rather than misread. A
cursor also says which way its list runs: newest first (every list), or oldest first (the
events log caught up with `after`), so the next page continues the same walk.
"""
from __future__ import annotations

import datetime as _dt
import json

from ..problems import InvalidRequest

ASCENDING = "asc"


def encode(keyring, workspace_id: str, created_at: _dt.datetime, item_id: str, *, ascending: bool = False) -> str:
    data = {"w": workspace_id, "t": created_at.isoformat(), "i": item_id}
    if ascending:
        data["o"] = ASCENDING
    return keyring.encrypt(json.dumps(data))


def after(keyring, workspace_id: str, cursor: str | None) -> tuple[_dt.datetime, str] | None:
    """Where the requested page of a newest-first list starts: None for the first page."""
    return None if cursor is None else decode(keyring, workspace_id, cursor)


def next_cursor(keyring, workspace_id: str, rows: list, has_more: bool, *, ascending: bool = False) -> str | None:
    """The cursor after the last row of a page (rows have `created_at` and `id`), or None."""
    return encode(keyring, workspace_id, rows[-1].created_at, rows[-1].id, ascending=ascending) if has_more else None


def decode(keyring, workspace_id: str, cursor: str) -> tuple[_dt.datetime, str]:
    return walk(keyring, workspace_id, cursor)[:2]


def walk(keyring, workspace_id: str, cursor: str) -> tuple[_dt.datetime, str, bool]:
    """The position a cursor holds, and whether its list runs oldest first."""
    bad = InvalidRequest("cursor is not a next_cursor this workspace was given; start again without one")
    try:
        data = json.loads(keyring.decrypt(cursor))
        if data["w"] != workspace_id:
            raise bad
        return _dt.datetime.fromisoformat(data["t"]), str(data["i"]), data.get("o") == ASCENDING
    except (ValueError, KeyError, TypeError):
        raise bad from None
