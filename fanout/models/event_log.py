"""The workspace's events log, read: pages newest first, catching up oldest first after an
event, one event; and pruning past the retention (docs/decisions.md#the-events-log).

Events are written by fanout/models/event.py `record_event`, in the order they commit.
"""
from __future__ import annotations

import datetime as _dt

from peewee import Tuple

from ..ids import is_id
from ..problems import InvalidRequest, NotFound
from .db import write_transaction
from .tables.event import Event

# What a page reads of an event: its body is the entry; time and id are its position.
_COLUMNS = (Event.id, Event.created_at, Event.body)


def page(workspace_id: str, *, limit: int, **filters) -> tuple[list[Event], bool]:
    """One page of events and whether more follow (see `page_query`)."""
    rows = list(page_query(workspace_id, limit=limit, **filters))
    return rows[:limit], len(rows) > limit


def page_query(workspace_id: str, *, limit: int, after: tuple[_dt.datetime, str] | None = None,
               ascending: bool = False, types: list[str] | None = None, post_id: str | None = None,
               account_id: str | None = None):
    """Newest first by (created_at, id), or oldest first when `ascending`, from the position
    `after` (excluded): one index range scan, so a page deep in a long log costs what the
    first does. One row more than `limit`, to tell whether more follow."""
    query = Event.select(*_COLUMNS).where(Event.workspace == workspace_id)
    if types:
        query = query.where(Event.type.in_(types))
    if post_id is not None:
        query = query.where(Event.post == post_id)
    if account_id is not None:
        query = query.where(Event.account_id == account_id)
    position = Tuple(Event.created_at, Event.id)
    if after is not None:
        query = query.where(position > Tuple(*after) if ascending else position < Tuple(*after))
    order = (Event.created_at.asc(), Event.id.asc()) if ascending else (Event.created_at.desc(), Event.id.desc())
    return query.order_by(*order).limit(limit + 1)


def position_of(workspace_id: str, event_id: str) -> tuple[_dt.datetime, str]:
    """Where an event of the workspace's log stands, for `after`; 400 when it is not there
    (unknown, another workspace's, or pruned)."""
    found = None
    if is_id(event_id, "evt"):
        found = Event.select(Event.id, Event.created_at).where(
            (Event.id == event_id) & (Event.workspace == workspace_id)).first()
    if found is None:
        raise InvalidRequest(
            "after names no event of this workspace's log (events are kept a limited time); "
            "list without after to start from the newest")
    return found.created_at, found.id


def get_event(workspace_id: str, event_id: str) -> Event:
    event = Event.select(*_COLUMNS).where((Event.id == event_id) & (Event.workspace == workspace_id)).first()
    if event is None:
        raise NotFound("no such event in this workspace")
    return event


def prune(before: _dt.datetime, batch: int = 1000) -> int:
    """Delete events recorded before `before`, with their deliveries and attempts, a batch
    a transaction (writers elsewhere wait on none for long); returns how many."""
    pruned = 0
    while True:
        with write_transaction():
            ids = [e.id for e in Event.select(Event.id).where(Event.created_at < before)
                   .order_by(Event.created_at).limit(batch)]
            if ids:
                Event.delete().where(Event.id.in_(ids)).execute()
        pruned += len(ids)
        if len(ids) < batch:
            return pruned
