"""Connecting a Mastodon account (docs/platforms.md#mastodon): the instance read and this
server's app registered there once (`register`; the connect flow keeps it,
fanout/models/instance_apps.py), OAuth 2.0 with PKCE on it, the account from
`verify_credentials`. Tokens never expire: there is nothing to refresh, and a token the
instance refuses was revoked.

Every URL is `https://<host>/...` of the instance the user named; the connect flow checked
that host (fanout/connect_flow.py `server_named`) before any of these calls.
"""
from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import secrets
from typing import Any
from urllib.parse import quote, urlencode

from ..base import App, AuthFailed, Authorization, Field, Grant
from ..contract import UnusableAnswer, document
from ..oauth import TokenEndpoint, answered, in_words_of, read_profile
from .errors import ENVELOPE
from .instance import TITLE, V1, V2, Instance, parse

SCOPES = ("write:statuses", "write:media", "read:accounts")
CLIENT_NAME = "Fanout"
server_field = Field("server", "server address",
                     hint="The part of your handle after its second @, such as mastodon.social.")


def read_instance(http, host: str) -> Instance:
    """What `host` states of itself (v2, else v1 on servers before 4.0). PlatformUnreachable
    when it cannot be asked; AuthFailed when it answers as no Mastodon server does."""
    response = answered(http.get(f"https://{host}{V2}"), TITLE, "reading the instance")
    if response.status == 404:
        response = answered(http.get(f"https://{host}{V1}"), TITLE, "reading the instance")
    try:
        if response.status != 200:
            raise UnusableAnswer(f"the instance document with HTTP {response.status}")
        return parse(host, document(response, "the instance document"))
    except UnusableAnswer as e:
        raise AuthFailed(f"{host} is not a Mastodon server: it answered {e.what}") from None


def register(http, server: str, redirect_uri: str, *, settings=None) -> App:
    """This server's app on `server` (`POST /api/v1/apps`), after reading the instance:
    the scopes Fanout asks for and the connect redirect URI. AuthFailed when the server
    refuses or is none; PlatformUnreachable when it cannot be asked."""
    read_instance(http, server)
    response = answered(http.post(f"https://{server}/api/v1/apps", data={
        "client_name": CLIENT_NAME, "redirect_uris": redirect_uri, "scopes": " ".join(SCOPES)}),
        TITLE, "registering the app")
    body = response.json()
    if response.status == 200 and isinstance(body, dict) and all(
            isinstance(body.get(k), str) and body[k] for k in ("client_id", "client_secret")):
        return App(body["client_id"], body["client_secret"])
    raise AuthFailed(f"{server} refused to register the app: {ENVELOPE.read(response).said()}")


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=secrets.token_bytes, server: str) -> Authorization:
    """The consent page on `server`, with an S256 challenge of a fresh verifier (kept by
    the connect session) and `force_login`, so that a second account of the same instance
    can connect from a browser signed in to the first."""
    verifier = _b64(randbytes(32))  # 43 characters, within PKCE's 43..128
    query = urlencode({
        "response_type": "code", "client_id": app.client_id, "redirect_uri": redirect_uri,
        "scope": " ".join(SCOPES), "state": state, "force_login": "true",
        "code_challenge": _b64(hashlib.sha256(verifier.encode("ascii")).digest()), "code_challenge_method": "S256",
    }, quote_via=quote)
    return Authorization(f"https://{server}/oauth/authorize?{query}", verifier)


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *, now: _dt.datetime,
             settings=None, server: str) -> Grant:
    """Code + verifier -> a token that does not expire -> the account
    (`verify_credentials`): user id `<account id>@<server>`, username `user@server`.

    ClientRefused when the instance no longer knows the app (`invalid_client`: the flow
    forgets it and the next connect registers again); AuthFailed when it refuses the code
    or grants less than publishing needs; PlatformUnreachable when it cannot be asked."""
    if not verifier:
        raise AuthFailed("the connect session has no PKCE verifier")
    token_endpoint = TokenEndpoint(f"https://{server}/oauth/token", TITLE, f"the app registered on {server}",
                                   in_words_of(ENVELOPE.read))
    answer = token_endpoint.request(http, app, {"grant_type": "authorization_code", "code": code,
                                                "redirect_uri": redirect_uri, "code_verifier": verifier},
                                    "the code exchange", code, verifier)
    granted = set(str(answer.get("scope") or "").split())
    missing = [s for s in SCOPES if granted and s not in granted]
    if missing:
        raise AuthFailed(f"{server} granted no {', '.join(missing)}, which publishing needs")
    token = answer["access_token"]
    account_id, username = read_profile(http, f"https://{server}/api/v1/accounts/verify_credentials", token,
                                        _account, title=TITLE, what="the account", read_answer=ENVELOPE.read)
    return Grant(access_token=token, user_id=f"{account_id}@{server}", username=f"{username}@{server}")


def _account(body: Any) -> tuple[str, str] | None:
    return (body.get("id"), body.get("username")) if isinstance(body, dict) else None


def refresh(http, app: App | None, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """Nothing to refresh: Mastodon's tokens live until revoked [C]. Asked after the
    instance refused the token (a 401), so it was revoked: the account connects again."""
    raise AuthFailed(f"{TITLE} refused the account's token, which does not expire, so it was revoked: "
                     "connect the account again")


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    """Never: a token has no end (its grant's `expires_at` is None, so this is not asked)."""
    return _dt.datetime.max


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")
