"""Dashboard sign-in: single-use links and the server-side sessions they start
(docs/decisions.md#the-workspace-dashboard).

`fanout dashboard-link WORKSPACE_ID` makes a link, valid LINK_LIFETIME and good for one
sign-in; signing in spends it and starts a session, valid SESSION_LIFETIME. Both tokens
are 256 random bits that travel only to the browser (the link in its URL, the session in a
cookie); the database keeps their SHA-256 hashes, as it does connect sessions'. A session
is looked up on every page, so signing out, or `fanout dashboard-revoke`, ends it at once.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import hmac

from ..problems import NotFound
from ..security.apikeys import random_base62
from .db import write_transaction
from .tables.dashboard_link import DashboardLink
from .tables.dashboard_session import DashboardSession
from .tables.workspace import Workspace

LINK_LIFETIME = _dt.timedelta(minutes=15)
SESSION_LIFETIME = _dt.timedelta(hours=12)
TOKEN_LENGTH = 43  # ~256 bits of base62


class LinkUnusable(Exception):
    """The sign-in link cannot be used; `reason` is unknown, expired or used."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_link(rt, workspace_id: str) -> tuple[str, _dt.datetime]:
    """A sign-in link's token for the workspace and when it expires; NotFound for no workspace."""
    if Workspace.get_or_none(Workspace.id == workspace_id) is None:
        raise NotFound(f"no workspace {workspace_id}")
    token = random_base62(TOKEN_LENGTH, rt.randbytes)
    now = rt.now()
    with write_transaction():
        link = DashboardLink.create(token_hash=_hash(token), workspace=workspace_id, created_at=now,
                                    expires_at=now + LINK_LIFETIME)
    return token, link.expires_at


def _unusable(link: DashboardLink | None, now: _dt.datetime) -> LinkUnusable:
    if link is None:
        return LinkUnusable("unknown")
    if link.used_at is not None:
        return LinkUnusable("used")
    return LinkUnusable("expired")


def open_link(rt, token: str) -> Workspace:
    """The workspace a usable link signs in to, leaving the link unspent (the page that asks
    to confirm the sign-in shows its name); LinkUnusable otherwise."""
    link = DashboardLink.get_or_none(DashboardLink.token_hash == _hash(token))
    now = rt.now()
    if link is None or link.used_at is not None or link.expires_at <= now:
        raise _unusable(link, now)
    return Workspace.get_by_id(link.workspace_id)


def sign_in(rt, token: str) -> tuple[str, DashboardSession]:
    """Spend the link, once, and start a session: its token (for the cookie, never stored)
    and its row. LinkUnusable if the link is unknown, used or expired."""
    now = rt.now()
    link_hash = _hash(token)
    session_token = random_base62(TOKEN_LENGTH, rt.randbytes)
    with write_transaction():
        spent = DashboardLink.update(used_at=now).where(
            (DashboardLink.token_hash == link_hash) & DashboardLink.used_at.is_null()
            & (DashboardLink.expires_at > now)
        ).execute()
        link = DashboardLink.get_or_none(DashboardLink.token_hash == link_hash)
        if not spent:
            raise _unusable(link, now)
        session = DashboardSession.create(token_hash=_hash(session_token), workspace=link.workspace_id,
                                          created_at=now, expires_at=now + SESSION_LIFETIME)
    return session_token, session


def session_of(rt, token: str | None) -> DashboardSession | None:
    """The live session a cookie's token names, with its workspace (`session.workspace`), or None."""
    if not token or len(token) > 100:
        return None
    return (DashboardSession.select(DashboardSession, Workspace).join(Workspace)
            .where((DashboardSession.token_hash == _hash(token)) & (DashboardSession.expires_at > rt.now()))
            .first())


def sign_out(token: str) -> None:
    """End the session this token names, if any."""
    with write_transaction():
        DashboardSession.delete().where(DashboardSession.token_hash == _hash(token)).execute()


def revoke(workspace_id: str) -> tuple[int, int]:
    """End every session of the workspace and void its unspent links: (sessions, links)."""
    if Workspace.get_or_none(Workspace.id == workspace_id) is None:
        raise NotFound(f"no workspace {workspace_id}")
    with write_transaction():
        sessions = DashboardSession.delete().where(DashboardSession.workspace == workspace_id).execute()
        links = DashboardLink.delete().where(
            (DashboardLink.workspace == workspace_id) & DashboardLink.used_at.is_null()).execute()
    return sessions, links


def csrf_token(session_token: str) -> str:
    """The token every form of a session carries: derived from the session's own secret, so
    it needs no storage, and a page elsewhere, which cannot read the cookie, cannot make it."""
    return hmac.new(session_token.encode(), b"fanout dashboard form", hashlib.sha256).hexdigest()


def csrf_matches(session_token: str, sent: str | None) -> bool:
    return bool(sent) and hmac.compare_digest(csrf_token(session_token), sent)


def purge_expired(now: _dt.datetime) -> int:
    """Delete links and sessions past their lifetimes (links spent or not)."""
    with write_transaction():
        return (DashboardLink.delete().where(DashboardLink.expires_at <= now).execute()
                + DashboardSession.delete().where(DashboardSession.expires_at <= now).execute())
