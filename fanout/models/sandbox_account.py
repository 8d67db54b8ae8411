"""Sandbox accounts: what a sandbox connect flow creates, with no platform involved."""
from __future__ import annotations

from ..platforms.sandbox import sandbox_identity
from ..security.apikeys import random_base62
from .account import connect_account
from .db import write_transaction
from .event import lock_log
from .tables.account import Account
from .workspace import lock_workspace


def connect_sandbox_account(rt, session) -> Account:
    """Complete a sandbox connect flow: a new active account, `sandbox_<platform>_<n>`, with
    what its platform says a sandbox account has (`Platform.sandbox_details`)."""
    with write_transaction():
        lock_log(session.workspace_id)  # first: connect_account records account.connected
        lock_workspace(session.workspace_id)
        taken = {
            a.platform_user_id
            for a in Account.select(Account.platform_user_id).where(
                (Account.workspace == session.workspace_id) & (Account.platform == session.platform) & Account.sandbox
            )
        }
        user_id, username = sandbox_identity(taken, session.platform)
        details = rt.platforms[session.platform].sandbox_details
        return connect_account(
            rt,
            session.workspace_id,
            platform=session.platform,
            sandbox=True,
            platform_user_id=user_id,
            username=username,
            # A token like a real platform's, so sandbox accounts take the same paths.
            access_token="sbx_" + random_base62(40, rt.randbytes),
            details=details(user_id, rt.now()) if details is not None else None,
        )
