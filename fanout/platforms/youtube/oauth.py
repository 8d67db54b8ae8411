"""Google's OAuth 2.0 for web server apps, as YouTube takes it: the consent URL with offline
access (`access_type=offline`, `prompt=consent`, so a refresh token comes every time), the
code exchange, the channel the token signs in as (`channels.list mine=true`), and the
refresh (docs/platforms.md#youtube). Consent on accounts.google.com, the token endpoint on
oauth2.googleapis.com with the app's credentials in the form [C], the channel on
www.googleapis.com."""
from __future__ import annotations

import datetime as _dt
from typing import Any
from urllib.parse import quote, urlencode

from ..base import AccountNotEligible, App, AuthFailed, Authorization, Grant, expiry
from ..oauth import TokenEndpoint, in_words_of, read_profile
from .errors import ENVELOPE

TITLE = "YouTube"
AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"
API = "https://www.googleapis.com/youtube/v3"
_AUTH = "https://www.googleapis.com/auth/"
# Uploads, reading the channel, and the first comment (commentThreads.insert) [C].
UPLOAD_SCOPE = _AUTH + "youtube.upload"
SCOPES = (UPLOAD_SCOPE, _AUTH + "youtube.readonly", _AUTH + "youtube.force-ssl")
# Access tokens last an hour [C]: refreshed ten minutes before.
REFRESH_BEFORE = _dt.timedelta(minutes=10)


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    """Offline access, and the consent screen every time: Google gives a refresh token only
    with `access_type=offline`, and only on a user's first consent unless `prompt=consent`
    asks again [C]."""
    query = urlencode({"client_id": app.client_id, "redirect_uri": redirect_uri, "response_type": "code",
                       "scope": " ".join(SCOPES), "access_type": "offline", "prompt": "consent",
                       "include_granted_scopes": "true", "state": state}, quote_via=quote)
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> tokens -> the channel (its id, shown by its @handle). AuthFailed when Google
    refuses, or grants no youtube.upload; AccountNotEligible for a Google account without a
    channel; PlatformUnreachable when it cannot be asked."""
    answer = TOKEN.request(http, app, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
                           "the code exchange", code)
    granted = set(str(answer.get("scope") or "").split())
    if granted and UPLOAD_SCOPE not in granted:
        raise AuthFailed(f"Google granted no youtube.upload, which uploading to {TITLE} needs: connect again and allow it")
    token = answer["access_token"]
    channel_id, username = read_profile(http, f"{API}/channels", token, _channel, title=TITLE, what="the channel",
                                        read_answer=ENVELOPE.read, params={"part": "snippet", "mine": "true"})
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=channel_id, username=username)


def _channel(body: Any) -> tuple[str, str] | None:
    """The channel's id and @handle (its title when it has no handle); a Google account with
    no channel cannot upload."""
    items = body.get("items", []) if isinstance(body, dict) else None
    if items == []:  # Google answers no items for an account without a channel [S]
        raise AccountNotEligible(f"this Google account has no {TITLE} channel: create one on youtube.com, then "
                                 "connect again")
    channel = items[0] if isinstance(items, list) and isinstance(items[0], dict) else None
    snippet = channel.get("snippet") if channel and isinstance(channel.get("snippet"), dict) else {}
    if not channel or not isinstance(channel.get("id"), str):
        return None
    return channel["id"], snippet.get("customUrl") or snippet.get("title") or channel["id"]


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new access token from the refresh token, which stays the same (Google sends no new
    one). AuthFailed on `invalid_grant`: the token was revoked, unused for six months, or
    an app in testing's week is over; the account expires."""
    return TOKEN.refresh(http, app, access_token, refresh_token, now)


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


# The app's credentials in the form [C]; `invalid_client` is answered 401.
TOKEN = TokenEndpoint(TOKEN_URL, TITLE, "FANOUT_YOUTUBE_CLIENT_ID/SECRET", in_words_of(ENVELOPE.read))
