"""LinkedIn's OAuth 2.0: the consent URL, the code exchange (a member token of 60 days, a
refresh token for the apps LinkedIn gives them to), the member from OpenID Connect's
`userinfo`, and the refresh or, without refresh tokens, the introspection that says whether
the token still lives (docs/platforms.md#linkedin). Authorize and the token endpoint on
www.linkedin.com; the app's credentials in the form [C]."""
from __future__ import annotations

import datetime as _dt
from typing import Any
from urllib.parse import quote, urlencode

from ..base import App, AuthFailed, Authorization, ClientRefused, Grant, expiry
from ..mapping import number
from ..oauth import TokenEndpoint, answered, in_words_of, read_profile
from .errors import ENVELOPE

TITLE = "LinkedIn"
SCOPES = ("openid", "profile", "w_member_social")
AUTHORIZE_URL = "https://www.linkedin.com/oauth/v2/authorization"
TOKEN_URL = "https://www.linkedin.com/oauth/v2/accessToken"
INTROSPECT_URL = "https://www.linkedin.com/oauth/v2/introspectToken"
USERINFO_URL = "https://api.linkedin.com/v2/userinfo"
# Access tokens live 60 days; refreshed (or, without refresh tokens, asked about) an hour
# before they end, so that an account without refresh tokens expires when its token does.
REFRESH_BEFORE = _dt.timedelta(hours=1)


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({"response_type": "code", "client_id": app.client_id, "redirect_uri": redirect_uri,
                       "state": state, "scope": " ".join(SCOPES)}, quote_via=quote)
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> an access token of 60 days (and a refresh token, for apps LinkedIn gives them
    to) -> the member from `userinfo`.

    AuthFailed when LinkedIn refuses (or grants no `w_member_social`); PlatformUnreachable
    when it cannot be asked."""
    answer = TOKEN.request(http, app, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
                    "the code exchange", code)
    granted = set(str(answer.get("scope") or "").replace(",", " ").split())
    if granted and "w_member_social" not in granted:
        raise AuthFailed(f"{TITLE} granted no w_member_social, which posting needs")
    token = answer["access_token"]
    user_id, username = read_profile(http, USERINFO_URL, token, _member, title=TITLE, what="the member",
                                     read_answer=ENVELOPE.read)
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=user_id, username=username)


def _member(body: Any) -> tuple[str, str] | None:
    """OpenID Connect's `sub`, and the member's name (the `sub` when it has none)."""
    if not isinstance(body, dict) or not isinstance(body.get("sub"), str):
        return None
    name = body.get("name") or " ".join(filter(None, (body.get("given_name"), body.get("family_name"))))
    return body["sub"], str(name or body["sub"])


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new access token from the refresh token, for apps LinkedIn gives refresh tokens
    to (the refresh token itself lives a year from the first consent and is kept). Without
    one, LinkedIn's introspection says whether the access token still lives: it does, the
    same token is kept with its end; it does not, AuthFailed: the member connects again."""
    if refresh_token:
        answer = TOKEN.request(http, app, {"grant_type": "refresh_token", "refresh_token": refresh_token},
                        "the token refresh", refresh_token, access_token)
        return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                     expires_at=expiry(now, answer))
    response = answered(http.post(INTROSPECT_URL, data={"client_id": app.client_id, "client_secret": app.client_secret,
                                                        "token": access_token}), TITLE, "the token introspection")
    if response.status == 401:
        raise ClientRefused(f"{TITLE} refused this server's app credentials (FANOUT_LINKEDIN_CLIENT_ID/SECRET)")
    body = response.json()
    ends = number(body.get("expires_at")) if isinstance(body, dict) else None
    end = _dt.datetime.fromtimestamp(ends, _dt.UTC).replace(tzinfo=None) if ends else None
    if response.status == 200 and body.get("active") is True and end is not None and end > now:
        return Grant(access_token=access_token, expires_at=end)
    status = body.get("status") if isinstance(body, dict) and body.get("status") else "ended"
    raise AuthFailed(f"the {TITLE} token has {'expired' if status == 'expired' else status}, and {TITLE} gives this "
                     f"app no refresh tokens: connect the account again")


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


# The app's credentials in the form [C].
TOKEN = TokenEndpoint(TOKEN_URL, TITLE, "FANOUT_LINKEDIN_CLIENT_ID/SECRET", in_words_of(ENVELOPE.read))
