"""Refreshing platform tokens: before they expire (a periodic task) and once when a publish
meets an auth error (fanout/tasks/publishing.py).

Only a refusal (`AuthFailed`) expires the account; a platform that cannot be reached, or
answers 5xx, leaves the token as it is and the refresh is tried again later.
"""
from __future__ import annotations

import datetime as _dt
import logging
from enum import Enum

from ..models import Account, db
from ..models.tokens import claim_refresh, due_refreshes, expire_account, refresh_at, release_refresh, store_grant
from ..platforms.base import AuthFailed
from ..platforms.setup import live_setup

log = logging.getLogger(__name__)

RETRY_AFTER_FAILURE = _dt.timedelta(minutes=15)


class Refresh(Enum):
    REFRESHED = "refreshed"
    BUSY = "busy"  # another worker is refreshing it: read the token again shortly
    EXPIRED = "expired"  # the platform refused: the account is expired now
    FAILED = "failed"  # transient: the token is unchanged, try again later


def refresh_account(rt, account_id: str) -> Refresh:
    """One refresh of the account's token, by whichever worker holds its refresh."""
    now = rt.now()
    with db.connection_context():
        if not claim_refresh(account_id, now):
            account = Account.get_or_none(Account.id == account_id)
            return Refresh.BUSY if account is not None and account.status == "active" else Refresh.EXPIRED
        account = Account.get_by_id(account_id)
    platform, setup = rt.platforms[account.platform], live_setup(rt, account.platform)
    if setup is None:
        with db.connection_context():
            release_refresh(account_id, now + RETRY_AFTER_FAILURE)
        log.warning("account %s: %s is not configured on this server; its token is not refreshed",
                    account_id, platform.title)
        return Refresh.FAILED
    keyring = rt.keyring
    refresh_token = keyring.decrypt(account.refresh_token) if account.refresh_token else None
    try:
        adapter, app = setup
        grant = adapter.refresh(rt.platform_http, app, keyring.decrypt(account.access_token), refresh_token,
                                now=rt.now())
    except AuthFailed as e:
        # expire_account logs it, once, at WARNING.
        with db.connection_context():
            deliveries = expire_account(rt, account_id, f"{platform.title} refused to refresh the token: {e.reason}")
        for delivery_id in deliveries:
            rt.tasks.deliver(delivery_id)
        return Refresh.EXPIRED
    except Exception:
        log.warning("account %s: refreshing the %s token failed; trying again later", account_id,
                    platform.title, exc_info=True)
        with db.connection_context():
            release_refresh(account_id, rt.now() + RETRY_AFTER_FAILURE)
        return Refresh.FAILED
    with db.connection_context():
        store_grant(rt, account_id, grant, refresh_at(adapter, grant, rt.now(), rt.randbytes))
    return Refresh.REFRESHED


def refresh_due_tokens(rt) -> dict:
    """The periodic task: refresh every token whose refresh time has come."""
    with db.connection_context():
        due = due_refreshes(rt.now())
    results = {account_id: refresh_account(rt, account_id).value for account_id in due}
    if results:
        log.info("token refresh: %s", ", ".join(f"{k} {v}" for k, v in results.items()))
    return results
