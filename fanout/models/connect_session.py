"""Connect sessions: the single-use, 30-minute token behind a connect URL, started,
opened, claimed and used."""
from __future__ import annotations

import datetime as _dt
import hashlib

from ..problems import NotFound
from ..security.apikeys import random_base62
from . import caps
from .db import write_transaction
from .tables.connect_session import ConnectSession
from .tables.workspace import Workspace

LIFETIME = _dt.timedelta(minutes=30)
TOKEN_LENGTH = 43  # ~256 bits of base62
# Sign-ins a credentials form may try on one session: enough for typing mistakes, too few
# to guess a password with.
SIGN_IN_TRIES = 5


class SessionUnusable(Exception):
    """The connect URL cannot be used; `reason` is unknown, expired, used or tries (its
    credentials form was refused SIGN_IN_TRIES times)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(rt, workspace_id: str, *, platform: str, sandbox: bool, redirect_url: str | None,
                  expires_at: _dt.datetime | None = None) -> str:
    """Check the account cap (`caps.check_connect`) and return a new session token, valid
    for LIFETIME or until `expires_at`."""
    workspace = Workspace.get_or_none(Workspace.id == workspace_id)
    if workspace is None:
        raise NotFound(f"no workspace {workspace_id}")
    caps.check_connect(workspace, platform, sandbox)
    token = random_base62(TOKEN_LENGTH, rt.randbytes)
    now = rt.now()
    with write_transaction():
        ConnectSession.create(
            id=rt.new_id("cs"),
            token_hash=_hash(token),
            workspace=workspace,
            platform=platform,
            sandbox=sandbox,
            redirect_url=redirect_url,
            created_at=now,
            expires_at=expires_at or now + LIFETIME,
        )
    return token


def retry_session(rt, session: ConnectSession) -> str:
    """A new session for another try of `session`'s flow, ending when it ends: offering
    retries never keeps a connect link alive past the 30 minutes the client asked for."""
    return start_session(rt, session.workspace_id, platform=session.platform, sandbox=session.sandbox,
                         redirect_url=session.redirect_url, expires_at=session.expires_at)


def consume_session(rt, token: str, platform: str) -> ConnectSession:
    """Mark the session used, once; SessionUnusable if it cannot be."""
    now = rt.now()
    token_hash = _hash(token)
    with write_transaction():
        claimed = (
            ConnectSession.update(used_at=now)
            .where(
                (ConnectSession.token_hash == token_hash)
                & (ConnectSession.platform == platform)
                & ConnectSession.used_at.is_null()
                & (ConnectSession.expires_at > now)
            )
            .execute()
        )
        session = ConnectSession.get_or_none(ConnectSession.token_hash == token_hash)
    if claimed:
        return session
    if session is None or session.platform != platform:
        raise SessionUnusable("unknown")
    if session.used_at is not None:
        raise SessionUnusable("used")
    raise SessionUnusable("expired")


def _unusable(session: ConnectSession | None, platform: str) -> SessionUnusable:
    if session is None or session.platform != platform:
        return SessionUnusable("unknown")
    if session.used_at is not None:
        return SessionUnusable("used")
    if session.sign_in_attempts >= SIGN_IN_TRIES:
        return SessionUnusable("tries")
    return SessionUnusable("expired")


def open_session(rt, token: str, platform: str) -> ConnectSession:
    """The session, usable and left so: a credentials form is shown on it, and each sign-in
    it sends claims a try (`claim_sign_in`); SessionUnusable if it cannot be used."""
    session = ConnectSession.get_or_none(ConnectSession.token_hash == _hash(token))
    if (session is None or session.platform != platform or session.used_at is not None
            or session.sign_in_attempts >= SIGN_IN_TRIES or session.expires_at <= rt.now()):
        raise _unusable(session, platform)
    return session


def claim_sign_in(rt, token: str, platform: str) -> ConnectSession:
    """Count one sign-in try on the session, unless it is used, expired or out of tries
    (SessionUnusable); the session as it is after the count."""
    token_hash = _hash(token)
    with write_transaction():
        claimed = (
            ConnectSession.update(sign_in_attempts=ConnectSession.sign_in_attempts + 1)
            .where(
                (ConnectSession.token_hash == token_hash)
                & (ConnectSession.platform == platform)
                & ConnectSession.used_at.is_null()
                & (ConnectSession.sign_in_attempts < SIGN_IN_TRIES)
                & (ConnectSession.expires_at > rt.now())
            )
            .execute()
        )
        session = ConnectSession.get_or_none(ConnectSession.token_hash == token_hash)
    if not claimed:
        raise _unusable(session, platform)
    return session


def use_session(rt, session: ConnectSession) -> bool:
    """Mark a session used after its sign-in succeeded; False if another request did first."""
    with write_transaction():
        return bool(ConnectSession.update(used_at=rt.now()).where(
            (ConnectSession.id == session.id) & ConnectSession.used_at.is_null()
        ).execute())


def begin_oauth(session: ConnectSession, state: str, verifier: str | None, server: str | None = None) -> None:
    """Bind the OAuth `state` sent to the platform to this session (only its hash is kept),
    with the encrypted PKCE verifier if the platform uses one, and the server the user named
    in a server-style flow."""
    with write_transaction():
        ConnectSession.update(oauth_state_hash=_hash(state), oauth_verifier=verifier, server=server).where(
            ConnectSession.id == session.id
        ).execute()


def claim_oauth_state(rt, state: str, platform: str) -> ConnectSession:
    """The session an OAuth callback's `state` belongs to, once: the state is forgotten as it
    is claimed. SessionUnusable("unknown") for a state never issued or already used,
    ("expired") past the session's 30 minutes."""
    state_hash = _hash(state)
    with write_transaction():
        session = ConnectSession.get_or_none(
            (ConnectSession.oauth_state_hash == state_hash) & (ConnectSession.platform == platform)
        )
        if session is None:
            raise SessionUnusable("unknown")
        if session.expires_at <= rt.now():
            raise SessionUnusable("expired")
        claimed = ConnectSession.update(oauth_state_hash=None).where(
            (ConnectSession.id == session.id) & (ConnectSession.oauth_state_hash == state_hash)
        ).execute()
    if not claimed:  # another request claimed it between the read and the update
        raise SessionUnusable("unknown")
    return session


def offer_choices(session: ConnectSession, token: str, choices: str) -> None:
    """Keep the accounts a consent granted (`choices`, encrypted) for the picker form that
    posts `token` back (only its hash is kept)."""
    with write_transaction():
        ConnectSession.update(pick_hash=_hash(token), choices=choices).where(ConnectSession.id == session.id).execute()


def open_choices(rt, token: str, platform: str) -> ConnectSession:
    """The session a picker form's token belongs to, left usable; SessionUnusable if it
    cannot be used (unknown: never issued or already picked; expired). Its link was used
    when the consent began: the token is the pick's own single use."""
    session = ConnectSession.get_or_none(ConnectSession.pick_hash == _hash(token))
    if session is None or session.platform != platform or session.choices is None:
        raise SessionUnusable("unknown")
    if session.expires_at <= rt.now():
        raise SessionUnusable("expired")
    return session


def claim_choice(rt, session: ConnectSession) -> bool:
    """The pick made, once: the accounts offered forgotten; False if another post of the
    form claimed it first."""
    with write_transaction():
        return bool(ConnectSession.update(pick_hash=None, choices=None).where(
            (ConnectSession.id == session.id) & (ConnectSession.pick_hash == session.pick_hash)
        ).execute())


def purge_expired(now: _dt.datetime) -> int:
    with write_transaction():
        return ConnectSession.delete().where(ConnectSession.expires_at <= now).execute()
