"""Platform tokens over an account's life: stored encrypted, refreshed by one worker at a
time, and the account `expired` (with its `account.expired` event) when a refresh fails.

The refresh call itself is made by fanout/tasks/tokens.py; these functions are its
database half, each one short transaction (no platform call ever runs inside one).
"""
from __future__ import annotations

import datetime as _dt
import logging

from ..platforms.base import Grant
from .account import stored_details
from .db import write_transaction
from .event import lock_log, record_event
from .tables.account import Account

log = logging.getLogger(__name__)

# How long one worker holds an account's refresh: others leave the token alone meanwhile,
# so a rotating refresh token (TikTok, X) is never spent twice.
REFRESH_HOLD = _dt.timedelta(seconds=60)


def refresh_time(due: _dt.datetime, now: _dt.datetime, randbytes) -> _dt.datetime:
    """`due` moved earlier by a jitter of up to a tenth of the time left, so tokens granted
    together (a batch of connects) are not all refreshed in the same minute."""
    left = max((due - now).total_seconds(), 0)
    fraction = int.from_bytes(randbytes(2), "big") / 65535
    return due - _dt.timedelta(seconds=left * 0.1 * fraction)


def refresh_at(adapter, grant: Grant, now: _dt.datetime, randbytes) -> _dt.datetime | None:
    """When the periodic task should refresh a token just granted: the adapter's
    `refresh_due` for its expiry, jittered; None for a token that does not expire."""
    if grant.expires_at is None:
        return None
    return refresh_time(adapter.refresh_due(grant.expires_at), now, randbytes)


def claim_refresh(account_id: str, now: _dt.datetime) -> bool:
    """Hold the account's refresh for REFRESH_HOLD; False if another worker holds it or the
    account is not active."""
    with write_transaction():
        return bool(Account.update(refresh_claimed_until=now + REFRESH_HOLD).where(
            (Account.id == account_id) & (Account.status == "active")
            & (Account.refresh_claimed_until.is_null() | (Account.refresh_claimed_until <= now))
        ).execute())


def store_grant(rt, account_id: str, grant: Grant, refresh_at: _dt.datetime | None) -> bool:
    """Save refreshed tokens at once (a rotated refresh token is stored before it is used)
    and release the hold; a grant without a refresh token keeps the stored one, one without
    details the stored details."""
    changes = dict(
        access_token=rt.keyring.encrypt(grant.access_token),
        token_expires_at=grant.expires_at,
        refresh_at=refresh_at,
        refresh_claimed_until=None,
    )
    if grant.refresh_token:
        changes["refresh_token"] = rt.keyring.encrypt(grant.refresh_token)
    if grant.details is not None:
        changes["details"] = stored_details(grant.details)
    with write_transaction():
        return bool(Account.update(**changes).where(Account.id == account_id).execute())


def release_refresh(account_id: str, retry_at: _dt.datetime) -> None:
    """Give up the hold after a transient failure; the periodic task tries again at `retry_at`."""
    with write_transaction():
        Account.update(refresh_claimed_until=None, refresh_at=retry_at).where(Account.id == account_id).execute()


def expire_account(rt, account_id: str, reason: str) -> list[str]:
    """active -> expired, with an `account.expired` event; returns the deliveries to send.

    Logged at WARNING once, by the worker that made the change: an operator may have to
    ask the account's owner to reconnect it (tests/test_tokens.py)."""
    now = rt.now()
    workspace_id = Account.select(Account.workspace).where(Account.id == account_id).scalar()
    if workspace_id is None:
        return []  # disconnected
    with write_transaction():
        lock_log(workspace_id)  # first, as every transaction that records an event
        if not Account.update(status="expired", refresh_at=None, refresh_claimed_until=None).where(
                (Account.id == account_id) & (Account.status == "active")).execute():
            return []  # already expired (another worker saw the same refusal) or disconnected
        account = Account.get_by_id(account_id)
        deliveries = record_event(rt, account.workspace_id, "account.expired",
                                  lambda event_id, at: rt.event_bodies.account_event(
                                      event_id, "account.expired", account, at, reason=reason),
                                  now, account_id=account.id)
    log.warning("account %s (%s, workspace %s) is expired: %s; it publishes nothing until it is connected again",
                account.id, account.platform, account.workspace_id, reason)
    return deliveries



def due_refreshes(now: _dt.datetime, limit: int = 200) -> list[str]:
    """Active live accounts whose refresh time has come, soonest first."""
    return [a.id for a in Account.select(Account.id).where(
        (Account.status == "active") & ~Account.sandbox & (Account.refresh_at <= now)
        & (Account.refresh_claimed_until.is_null() | (Account.refresh_claimed_until <= now))
    ).order_by(Account.refresh_at).limit(limit)]
