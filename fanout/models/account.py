"""Connected social accounts (their cap is checked in fanout/models/caps.py), and the
`account.connected` and `account.disconnected` events of their comings and goings."""
from __future__ import annotations

import datetime as _dt
import json
from typing import Any, Mapping

from ..problems import NotFound
from . import caps
from .db import write_transaction
from .event import lock_log, record_event, send_after_commit
from .lifecycle import fail_pending_targets
from .tables.account import Account
from .workspace import lock_workspace


def list_accounts(workspace_id: str, *, platform=None, status=None, sandbox=None) -> list[Account]:
    query = Account.select().where(Account.workspace == workspace_id)
    if platform is not None:
        query = query.where(Account.platform == platform)
    if status is not None:
        query = query.where(Account.status == status)
    if sandbox is not None:
        query = query.where(Account.sandbox == sandbox)
    return list(query.order_by(Account.created_at.desc(), Account.id.desc()))


def get_account(workspace_id: str, account_id: str) -> Account:
    """The workspace's account of that id; NotFound otherwise."""
    account = Account.get_or_none((Account.id == account_id) & (Account.workspace == workspace_id))
    if account is None:
        raise NotFound("no such account in this workspace")
    return account


def connect_account(
    rt,
    workspace_id: str,
    *,
    platform: str,
    sandbox: bool,
    platform_user_id: str,
    username: str,
    access_token: str | None,
    refresh_token: str | None = None,
    token_expires_at: _dt.datetime | None = None,
    refresh_at: _dt.datetime | None = None,
    details: Mapping[str, Any] | None = None,
) -> Account:
    """Add the account, or refresh it if this platform user is already in the workspace,
    recording `account.connected` either way (its deliveries are sent once the outermost
    transaction commits).

    `refresh_at`: when the periodic task should refresh its token (None: never).
    `details`: what the platform said of it (Grant.details); None keeps what is stored."""
    encrypt = rt.keyring.encrypt
    tokens = dict(
        access_token=encrypt(access_token) if access_token else None,
        refresh_token=encrypt(refresh_token) if refresh_token else None,
        token_expires_at=token_expires_at,
        refresh_at=refresh_at,
    )
    if details is not None:
        tokens["details"] = stored_details(details)
    with write_transaction():
        lock_log(workspace_id)  # first, before any row: this transaction records an event
        workspace = lock_workspace(workspace_id)
        existing = Account.get_or_none(
            (Account.workspace == workspace) & (Account.platform == platform)
            & (Account.sandbox == sandbox) & (Account.platform_user_id == platform_user_id)
        )
        if existing is not None:
            Account.update(status="active", username=username, connected_at=rt.now(), **tokens).where(
                Account.id == existing.id
            ).execute()
            return _connected(rt, Account.get_by_id(existing.id))
        caps.check_accounts(workspace)
        now = rt.now()
        return _connected(rt, Account.create(
            id=rt.new_id("acc"),
            workspace=workspace,
            platform=platform,
            sandbox=sandbox,
            platform_user_id=platform_user_id,
            username=username,
            status="active",
            connected_at=now,
            created_at=now,
            **tokens,
        ))


def stored_details(details: Mapping[str, Any]) -> str:
    """Grant.details as the account's column keeps them."""
    return json.dumps(dict(details), separators=(",", ":"), sort_keys=True)


def details_of(account: Account) -> dict | None:
    """What the platform said of the account (Grant.details), or None when it said nothing."""
    return json.loads(account.details) if account.details else None


def _connected(rt, account: Account) -> Account:
    """Record `account.connected` for the account as it now is."""
    now = rt.now()
    deliveries = record_event(
        rt, account.workspace_id, "account.connected",
        lambda event_id, at: rt.event_bodies.account_event(event_id, "account.connected", account, at),
        now, account_id=account.id)
    send_after_commit(rt, deliveries)
    return account


def disconnect_account(rt, workspace_id: str, account_id: str) -> list[str]:
    """Remove the account and, with its row, its tokens, recording `account.disconnected`
    (the account as it was); its targets still pending fail with platform_auth_expired
    (docs/decisions.md#disconnecting). Returns the deliveries to send after commit."""
    with write_transaction():
        lock_log(workspace_id)  # first: this transaction records events
        account = Account.get_or_none((Account.id == account_id) & (Account.workspace == workspace_id))
        if account is None or not Account.delete().where(Account.id == account_id).execute():
            raise NotFound("no such account in this workspace")
        now = rt.now()
        deliveries = record_event(
            rt, workspace_id, "account.disconnected",
            lambda event_id, at: rt.event_bodies.account_event(event_id, "account.disconnected", account, at),
            now, account_id=account.id)
        return deliveries + fail_pending_targets(rt, account_id, "the account was disconnected; reconnect it")
