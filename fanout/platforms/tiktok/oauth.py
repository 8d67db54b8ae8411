"""TikTok's Login Kit v2: the consent URL, the code exchange and the refresh
(docs/platforms.md#the-tiktok-adapter). Authorize on www.tiktok.com, the token endpoint and
the profile on open.tiktokapis.com; the app's credentials in the form, its id as
`client_key`; the token endpoint answers flat OAuth JSON, the profile TikTok's envelope."""
from __future__ import annotations

import datetime as _dt
from typing import Any
from urllib.parse import urlencode

from ..base import App, AuthFailed, Authorization, Grant, expiry
from ..http import PlatformResponse
from ..mapping import scrub
from ..oauth import TokenEndpoint, read_profile
from .errors import ENVELOPE

TITLE = "TikTok"
API = "https://open.tiktokapis.com/v2"
AUTHORIZE_URL = "https://www.tiktok.com/v2/auth/authorize/"
SCOPES = ("user.info.basic", "user.info.profile", "video.publish")
# Access tokens last 24 hours (2 in newer documentation): refresh half an hour before.
REFRESH_BEFORE = _dt.timedelta(minutes=30)


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({
        "client_key": app.client_id,
        "response_type": "code",
        "scope": ",".join(SCOPES),
        "redirect_uri": redirect_uri,
        "state": state,
    }, safe=",")
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> access and refresh tokens -> the user's profile (`GET /v2/user/info/`)."""
    answer = TOKEN.request(http, app, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
                           "the code exchange", code)
    token = answer["access_token"]

    def user(body: Any) -> tuple[str, str] | None:
        data = body.get("data") if _ok(body) else None
        found = data.get("user") if isinstance(data, dict) else None
        if not isinstance(found, dict):
            return None
        return found.get("open_id") or answer.get("open_id"), found.get("username") or found.get("display_name")

    user_id, username = read_profile(http, f"{API}/user/info/", token, user, title=TITLE, read_answer=ENVELOPE.read,
                                     params={"fields": "open_id,display_name,username"})
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=user_id, username=username)


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new pair: the refresh token rotates and the one sent stops working (the engine
    stores the new one first). AuthFailed on `invalid_grant` (expired, revoked or reused)."""
    if not refresh_token:
        raise AuthFailed(f"{TITLE} gave no refresh token: connect the account again")
    answer = TOKEN.request(http, app, {"grant_type": "refresh_token", "refresh_token": refresh_token},
                           "the token refresh", refresh_token, access_token)
    return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


def _refusal(response: PlatformResponse, body: Any, secrets: tuple) -> str:
    """`error: error_description`, TikTok's OAuth error (its API's own errors are objects)."""
    error = body.get("error") if isinstance(body, dict) else None
    words = scrub(str(body.get("error_description") or "") if isinstance(body, dict) else "", *secrets) \
        or ENVELOPE.read(response, *secrets).raw
    return f"{error or 'error'}: {words}"


def _client_refused(response: PlatformResponse, body: Any) -> bool:
    return isinstance(body, dict) and body.get("error") in ("invalid_client", "unauthorized_client")


def _ok(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get("error"), dict) and body["error"].get("code") == "ok"


# The app's credentials in the form, its id as `client_key`.
TOKEN = TokenEndpoint(f"{API}/oauth/token/", TITLE, "FANOUT_TIKTOK_CLIENT_ID/SECRET", _refusal,
                      client_refused=_client_refused, id_field="client_key")
