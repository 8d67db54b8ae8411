"""Opaque list cursors: the position of the last item shown, sealed to its workspace.

A cursor is encrypted with the service's keyring, so clients cannot read or forge one, and
a cursor from another workspace (or garbage) is refused with 400 rather than misread.
"""
from __future__ import annotations

import datetime as _dt
import json

from ..problems import InvalidRequest


def encode(keyring, workspace_id: str, created_at: _dt.datetime, item_id: str) -> str:
    return keyring.encrypt(json.dumps({"w": workspace_id, "t": created_at.isoformat(), "i": item_id}))


def after(keyring, workspace_id: str, cursor: str | None) -> tuple[_dt.datetime, str] | None:
    """Where the requested page starts: None for the first page."""
    return None if cursor is None else decode(keyring, workspace_id, cursor)


def next_cursor(keyring, workspace_id: str, rows: list, has_more: bool) -> str | None:
    """The cursor after the last row of a page (rows have `created_at` and `id`), or None."""
    return encode(keyring, workspace_id, rows[-1].created_at, rows[-1].id) if has_more else None


def decode(keyring, workspace_id: str, cursor: str) -> tuple[_dt.datetime, str]:
    bad = InvalidRequest("cursor is not a next_cursor this workspace was given; start again without one")
    try:
        data = json.loads(keyring.decrypt(cursor))
        if data["w"] != workspace_id:
            raise bad
        return _dt.datetime.fromisoformat(data["t"]), str(data["i"])
    except (ValueError, KeyError, TypeError):
        raise bad from None
