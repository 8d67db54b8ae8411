"""Idempotency-Key (docs/decisions.md#idempotency): `once` is all a handler calls.

A request with a key first *claims* it through the unique index (workspace, key), never by
reading first. The claim is completed with the response in the same transaction that
creates the post, or released if the request fails, so a key can never stand for a post
that was not made, nor a post be made twice.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Callable

from ..problems import DuplicateRequest
from .db import write_transaction
from .tables.idempotency_record import IdempotencyRecord

WINDOW = _dt.timedelta(hours=24)
# A claim still running after this long belongs to a request that died (a killed process);
# a retry may take it over.
ABANDONED_AFTER = _dt.timedelta(seconds=60)


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict
    replayed: bool = False  # the stored answer of an earlier request with this key


def once(workspace_id: str, key: str | None, path: str, body, now: _dt.datetime,
         create: Callable[[], tuple[int, dict]]) -> Answer:
    """`create()` (the status and body it answers) at most once per key of the workspace.

    Without a key, `create` simply runs. With one, the key is claimed first: a request the
    key already answered gets that answer replayed; another request, or one still
    running, DuplicateRequest. `create` then runs in the transaction that stores its
    answer under the key (a transaction `create` opens becomes a savepoint of it), and the
    claim is released if anything fails, so the key may be retried.
    """
    if key is None:
        return Answer(*create())
    claim_ = claim(workspace_id, key, fingerprint(path, body), now)
    if claim_.record_id is None:
        return Answer(claim_.replay_status, claim_.replay_body, replayed=True)
    try:
        with write_transaction():
            status, answer = create()
            _complete(claim_, status, answer)
    except BaseException:
        _release(claim_)
        raise
    return Answer(status, answer)


def fingerprint(path: str, body) -> str:
    """The request path plus the canonical JSON of the parsed body."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{path}\n{canonical}".encode()).hexdigest()


@dataclass(frozen=True)
class Claim:
    record_id: int | None = None  # set when this request owns the key
    token: str | None = None
    replay_status: int | None = None  # set when the stored response is to be replayed
    replay_body: dict | None = None


def claim(workspace_id: str, key: str, print_: str, now: _dt.datetime) -> Claim:
    """Own the key, or get the stored response to replay, or DuplicateRequest."""
    token = os.urandom(16).hex()
    with write_transaction():
        # Past the window a key matches nothing: make room for a fresh claim.
        IdempotencyRecord.delete().where(
            (IdempotencyRecord.workspace == workspace_id)
            & (IdempotencyRecord.key == key)
            & (IdempotencyRecord.created_at <= now - WINDOW)
        ).execute()
        IdempotencyRecord.insert(
            workspace=workspace_id, key=key, fingerprint=print_, state="running",
            claim_token=token, created_at=now, claimed_at=now,
        ).on_conflict_ignore().execute()
        record = IdempotencyRecord.get((IdempotencyRecord.workspace == workspace_id) & (IdempotencyRecord.key == key))
    if record.claim_token == token:
        return Claim(record_id=record.id, token=token)
    if record.fingerprint != print_:
        raise DuplicateRequest("this Idempotency-Key was used with a different request in the last 24 hours; use a new key")
    if record.state == "done":
        return Claim(replay_status=record.response_status, replay_body=json.loads(record.response_body))
    if record.claimed_at <= now - ABANDONED_AFTER and _take_over(record, token, now):
        return Claim(record_id=record.id, token=token)
    raise DuplicateRequest("a request with this Idempotency-Key is still being processed; retry after it finishes")


def _take_over(record: IdempotencyRecord, token: str, now: _dt.datetime) -> bool:
    with write_transaction():
        return bool(
            IdempotencyRecord.update(claimed_at=now, claim_token=token)
            .where(
                (IdempotencyRecord.id == record.id)
                & (IdempotencyRecord.state == "running")
                & (IdempotencyRecord.claim_token == record.claim_token)
            )
            .execute()
        )


def _owned(claim_: Claim):
    return (
        (IdempotencyRecord.id == claim_.record_id)
        & (IdempotencyRecord.claim_token == claim_.token)
        & (IdempotencyRecord.state == "running")
    )


def _complete(claim_: Claim, status: int, body: dict) -> None:
    """Store the response; call inside the transaction that made it, which must roll back on
    DuplicateRequest (another request took the claim over after this one stalled)."""
    updated = (
        IdempotencyRecord.update(state="done", response_status=status, response_body=json.dumps(body))
        .where(_owned(claim_))
        .execute()
    )
    if not updated:
        raise DuplicateRequest("this request took too long and a retry with the same Idempotency-Key took over")


def _release(claim_: Claim) -> None:
    """Forget a claim whose request failed, so the key may be retried."""
    with write_transaction():
        IdempotencyRecord.delete().where(_owned(claim_)).execute()


def purge_expired(now: _dt.datetime) -> int:
    with write_transaction():
        return IdempotencyRecord.delete().where(IdempotencyRecord.created_at <= now - WINDOW).execute()
