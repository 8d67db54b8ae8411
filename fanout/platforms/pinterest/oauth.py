"""Pinterest's OAuth 2.0 (authorization code): the consent URL on www.pinterest.com, the
code exchange and the refresh at `api.pinterest.com/v5/oauth/token` with the app's
credentials as HTTP Basic [C], the account from `/v5/user_account`, and its boards read
with every new token (boards.py) (docs/platforms.md#pinterest).

Access tokens last 30 days [S]; refresh tokens are continuous, 60 days from each refresh,
which answers a new one to store [C]. A token is refreshed a day before it ends; a refused
refresh makes the account `expired`.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any
from urllib.parse import urlencode

from ..base import App, AuthFailed, Authorization, Grant, expiry
from ..http import PlatformUnreachable
from ..oauth import TokenEndpoint, in_words_of, read_profile
from .boards import API, TITLE, details, read_boards
from .errors import ENVELOPE

AUTHORIZE_URL = "https://www.pinterest.com/oauth/"
# boards:read to list the boards, pins:write to make Pins and upload videos, pins:read to
# find a Pin again after a lost answer, user_accounts:read for who the user is [C].
SCOPES = ("boards:read", "pins:read", "pins:write", "user_accounts:read")
REFRESH_BEFORE = _dt.timedelta(days=1)
# The app's credentials as HTTP Basic [C]. A 401 there is about them (the token call's only
# authentication); a code or refresh token it refuses is a 400, and the account connects again.
TOKEN = TokenEndpoint(f"{API}/oauth/token", TITLE, "FANOUT_PINTEREST_CLIENT_ID/SECRET", in_words_of(ENVELOPE.read),
                      basic=True)


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({"client_id": app.client_id, "redirect_uri": redirect_uri, "response_type": "code",
                       "scope": ",".join(SCOPES), "state": state})
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> tokens -> the user (`/v5/user_account`) and their boards.

    AuthFailed when Pinterest refuses (or grants less than publishing needs);
    PlatformUnreachable when it cannot be asked."""
    answer = TOKEN.request(http, app, {"grant_type": "authorization_code", "code": code,
                                       "redirect_uri": redirect_uri}, "the code exchange", code)
    granted = set(str(answer.get("scope") or "").replace(",", " ").split())
    missing = [s for s in SCOPES if granted and s not in granted]
    if missing:
        raise AuthFailed(f"{TITLE} granted no {', '.join(missing)}, which publishing needs")
    token = answer["access_token"]
    user_id, username = read_profile(http, f"{API}/user_account", token, _account, title=TITLE, what="the account",
                                     read_answer=ENVELOPE.read)
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None, expires_at=expiry(now, answer),
                 user_id=user_id, username=username, details=details(read_boards(http, token), now))


def _account(body: Any) -> tuple[str, str] | None:
    return (body.get("id"), body.get("username")) if isinstance(body, dict) else None


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new pair (the engine stores the new refresh token at once), and the boards read
    again with the new token; a board list Pinterest does not give now keeps the stored one
    (the tokens are what must not be lost). AuthFailed when Pinterest refuses the refresh
    token (expired, revoked or spent): the account must connect again."""
    if not refresh_token:
        raise AuthFailed(f"{TITLE} gave no refresh token: connect the account again")
    answer = TOKEN.request(http, app, {"grant_type": "refresh_token", "refresh_token": refresh_token},
                           "the token refresh", refresh_token, access_token)
    token = answer["access_token"]
    try:
        boards = details(read_boards(http, token), now)
    except (AuthFailed, PlatformUnreachable):
        boards = None
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None, expires_at=expiry(now, answer),
                 details=boards)


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE
