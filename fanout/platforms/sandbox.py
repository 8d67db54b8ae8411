"""The sandbox platform: never calls a network, gives deterministic results."""
from __future__ import annotations

import time

from ..apikeys import random_base62
from ..models.account import Account, connect_account
from ..models.workspace import lock_workspace
from ..models.db import write_transaction
from ..models.lifecycle import Outcome
from .rules import caption_problem, media_problem


def sandbox_identity(taken: set[str], platform: str) -> tuple[str, str]:
    """The lowest free sandbox user number on this platform: (platform user id, username)."""
    n = 1
    while f"sandbox-{n}" in taken:
        n += 1
    return f"sandbox-{n}", f"sandbox_{platform}_{n}"


def connect(rt, session) -> Account:
    """Complete a sandbox connect flow: a new active account, `sandbox_<platform>_<n>`."""
    with write_transaction():
        lock_workspace(session.workspace_id)
        taken = {
            a.platform_user_id
            for a in Account.select(Account.platform_user_id).where(
                (Account.workspace == session.workspace_id) & (Account.platform == session.platform) & Account.sandbox
            )
        }
        user_id, username = sandbox_identity(taken, session.platform)
        return connect_account(
            rt,
            session.workspace_id,
            platform=session.platform,
            sandbox=True,
            platform_user_id=user_id,
            username=username,
            # A token like a real platform's, so sandbox accounts take the same paths.
            access_token="sbx_" + random_base62(40, rt.randbytes),
        )


def publish(rt, post, target, account, sleep=time.sleep) -> Outcome:
    """Deterministic: the same post and target always give the same outcome, and no network."""
    if rt.settings.sandbox_latency:
        sleep(rt.settings.sandbox_latency)
    if account is None:
        return Outcome(error_code="platform_auth_expired", error_message="the account was disconnected; reconnect it")
    if post.simulate_error:
        return Outcome(error_code=post.simulate_error,
                       error_message=f"simulated {post.simulate_error} (sandbox simulate_error)")
    problem = caption_problem(target.platform, post.caption)
    if problem:
        return Outcome(error_code="caption_too_long", error_message=problem)
    problem = media_problem(target.platform, post.media_list)
    if problem:
        return Outcome(error_code="platform_rejected_media", error_message=problem)
    return Outcome(external_url=f"{rt.settings.base_url}/sandbox/{target.platform}/{target.id}")
