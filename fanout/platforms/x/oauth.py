"""X's OAuth 2.0 with PKCE: the consent URL, the code exchange and the refresh
(docs/platforms.md#the-x-adapter). Authorize on x.com, the token endpoint on api.x.com, a
confidential client (the app's credentials as HTTP Basic)."""
from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import secrets
from typing import Any
from urllib.parse import quote, urlencode

from ..base import App, AuthFailed, Authorization, Grant, expiry
from ..oauth import TokenEndpoint, in_words_of, read_profile
from .errors import ENVELOPE

TITLE = "X"
API = "https://api.x.com/2"
AUTHORIZE_URL = "https://x.com/i/oauth2/authorize"
SCOPES = ("tweet.read", "tweet.write", "users.read", "media.write", "offline.access")
# Scopes without which an account cannot publish: connecting it fails at once.
NEEDED = ("tweet.write", "users.read", "media.write")
# Access tokens last 2 hours; refresh tokens rotate on every refresh.
REFRESH_BEFORE = _dt.timedelta(minutes=10)
TOKEN = TokenEndpoint(f"{API}/oauth2/token", TITLE, "FANOUT_X_CLIENT_ID/SECRET", in_words_of(ENVELOPE.read), basic=True)


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=secrets.token_bytes) -> Authorization:
    """The consent URL, with an S256 challenge of a fresh verifier; the verifier stays on
    the server (the connect session keeps it encrypted) for the code exchange."""
    verifier = _b64(randbytes(32))  # 43 characters, within PKCE's 43..128
    query = urlencode({
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": redirect_uri,
        "scope": " ".join(SCOPES),
        "state": state,
        "code_challenge": _b64(hashlib.sha256(verifier.encode("ascii")).digest()),
        "code_challenge_method": "S256",
    }, quote_via=quote)
    return Authorization(f"{AUTHORIZE_URL}?{query}", verifier)


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code + verifier -> access and refresh tokens -> `GET /2/users/me`.

    AuthFailed when X refuses (or leaves out a scope publishing needs); PlatformUnreachable
    when it cannot be asked.
    """
    if not verifier:
        raise AuthFailed("the connect session has no PKCE verifier")
    answer = TOKEN.request(http, app, {
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
        "code_verifier": verifier, "client_id": app.client_id,
    }, "the code exchange", code, verifier)
    granted = set(str(answer.get("scope") or "").split())
    missing = [s for s in NEEDED if granted and s not in granted]
    if missing:
        raise AuthFailed(f"{TITLE} granted no {', '.join(missing)}, which publishing needs")
    token = answer["access_token"]
    user_id, username = read_profile(http, f"{API}/users/me", token, _user, title=TITLE, read_answer=ENVELOPE.read)
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=user_id, username=username)


def _user(body: Any) -> tuple[str, str] | None:
    user = body.get("data") if isinstance(body, dict) else None
    return (user.get("id"), user.get("username")) if isinstance(user, dict) else None


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new pair: X rotates the refresh token on every refresh, and the old one stops
    working at once (the engine stores the new one before anything else). AuthFailed when X
    refuses it (expired, revoked or already used): the account must connect again."""
    if not refresh_token:
        raise AuthFailed(f"{TITLE} gave no refresh token (offline.access): connect the account again")
    answer = TOKEN.request(http, app, {
        "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": app.client_id,
    }, "the token refresh", refresh_token, access_token)
    return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")
