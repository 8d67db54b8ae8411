"""The Threads emulator's OAuth: authorize, code exchange, long-lived tokens, refresh, and
the token check every API call makes (tests/emulators/README.md#threads)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
from urllib.parse import urlencode, urlsplit, urlunsplit

from .graph import GraphError, unknown_object
from .threads_rules import param_error
from .threads_state import Code, Token
from .wire import Request, Response

SCOPES = ("threads_basic", "threads_content_publish")
SHORT_LIVED = dt.timedelta(hours=1)
LONG_LIVED = dt.timedelta(days=60)
REFRESHABLE_AFTER = dt.timedelta(hours=24)
CODE_TTL = dt.timedelta(minutes=10)  # [U] Meta documents no lifetime for Threads codes


class ThreadsOAuth:
    """OAuth handlers of ThreadsEmulator, which holds the state they use: `client_id`,
    `client_secret`, `redirect_uris`, `clock`, `lock`, `_users`, `_tokens`, `_codes`,
    `_consenting`, `_deny`."""

    def _issue(self, user_id: str, long_lived: bool, scopes: frozenset) -> Token:
        now = self.clock.now()
        token = Token("THQVJ" + secrets.token_urlsafe(48), user_id, long_lived, scopes, now,
                      now + (LONG_LIVED if long_lived else SHORT_LIVED))
        self._tokens[token.value] = token
        return token

    def _check_app(self, params: dict, *, client_id: bool | None, secret: bool) -> None:
        """App credentials; `client_id` None: checked only when sent."""
        if client_id or (client_id is None and "client_id" in params):
            if params.get("client_id") != self.client_id:
                raise GraphError("Error validating application. Invalid application ID.", code=101)
        if secret and params.get("client_secret") != self.client_secret:
            raise GraphError("Error validating client secret.", code=1)

    def _authorize(self, request: Request) -> Response:
        p = request.query
        self._check_app(p, client_id=True, secret=False)
        for name in ("redirect_uri", "scope", "response_type"):
            if not p.get(name):
                raise param_error(f"The parameter {name} is required")
        if p["response_type"] != "code":
            raise param_error("Param response_type must be code")
        redirect_uri = p["redirect_uri"]
        if self.redirect_uris is not None and redirect_uri not in self.redirect_uris:
            raise GraphError("URL blocked: the redirect URI is not whitelisted in the app's Client OAuth Settings.",
                             code=191)
        answer = {"state": p["state"]} if "state" in p else {}
        if self._deny or self._consenting is None:
            answer = {"error": "access_denied", "error_reason": "user_denied",
                      "error_description": "Permissions error", **answer}
            return Response.redirect(_with_query(redirect_uri, answer))
        scopes = frozenset(s.strip() for s in p["scope"].replace(" ", ",").split(",") if s.strip())
        with self.lock:
            code = Code(secrets.token_urlsafe(32), self._consenting, redirect_uri, scopes,
                        self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(_with_query(redirect_uri, {"code": code.value, **answer}))

    def _exchange_code(self, request: Request) -> Response:
        p = request.params
        self._check_app(p, client_id=True, secret=True)
        if p.get("grant_type", "authorization_code") != "authorization_code":
            raise param_error("Unsupported grant_type")
        with self.lock:
            code = self._codes.get(p.get("code", ""))
            if code is None:
                raise GraphError("Invalid verification code format.", code=100)
            if code.used:
                raise GraphError("This authorization code has been used.", code=100, subcode=36009)
            if self.clock.now() >= code.expires_at:
                raise GraphError("This authorization code has expired.", code=100, subcode=36007)
            if p.get("redirect_uri") != code.redirect_uri:
                raise GraphError("Error validating verification code. Please make sure your redirect_uri is "
                                 "identical to the one you used in the OAuth dialog request", code=100, subcode=36008)
            self._codes[code.value] = dataclasses.replace(code, used=True)
            token = self._issue(code.user_id, False, code.scopes)
        return Response.json(200, {"access_token": token.value, "user_id": int(token.user_id)})

    def _long_lived(self, request: Request) -> Response:
        p = request.params
        if p.get("grant_type") != "th_exchange_token":
            raise param_error("Param grant_type must be th_exchange_token")
        self._check_app(p, client_id=None, secret=True)
        with self.lock:
            old = self._valid_token(p.get("access_token"))
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _refresh(self, request: Request) -> Response:
        p = request.params
        if p.get("grant_type") != "th_refresh_token":
            raise param_error("Param grant_type must be th_refresh_token")
        with self.lock:
            old = self._valid_token(p.get("access_token"))
            if not old.long_lived:
                raise param_error("(#100) Invalid parameter: only long-lived tokens can be refreshed")
            if self.clock.now() - old.issued_at < REFRESHABLE_AFTER:
                raise param_error("(#100) Invalid parameter: a token can be refreshed once it is 24 hours old")
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _bearer(self, token: Token) -> Response:
        expires_in = int((token.expires_at - self.clock.now()).total_seconds())
        return Response.json(200, {"access_token": token.value, "token_type": "bearer", "expires_in": expires_in})

    def _valid_token(self, value: str | None) -> Token:
        if not value:
            raise GraphError("An access token is required to request this resource.", code=104)
        token = self._tokens.get(value)
        now = self.clock.now()
        if token is None:
            raise GraphError("Error validating access token: Invalid OAuth access token.", code=190)
        if token.revoked:
            raise GraphError(f"Error validating access token: The user has not authorized application "
                             f"{self.client_id}.", code=190, subcode=458)
        if now >= token.expires_at:
            raise GraphError(f"Error validating access token: Session has expired on {_long_time(token.expires_at)}. "
                             f"The current time is {_long_time(now)}.", code=190, subcode=463)
        return token

    def _auth(self, request: Request, uid: str | None = None, *, publishing: bool = False) -> Token:
        token = self._valid_token(request.params.get("access_token") or request.bearer())
        needed = ("threads_basic", "threads_content_publish") if publishing else ("threads_basic",)
        if not all(scope in token.scopes for scope in needed):
            raise GraphError("(#10) Application does not have permission for this action", code=10)
        if uid is not None and uid not in ("me", token.user_id):
            raise unknown_object(uid, request.method.lower())
        return token


def _with_query(url: str, params: dict) -> str:
    """`url` with `params` added to its query, and Meta's `#_` fragment."""
    parts = urlsplit(url)
    query = "&".join(filter(None, (parts.query, urlencode(params))))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, "_"))


def _long_time(instant: dt.datetime) -> str:
    return instant.strftime("%A, %d-%b-%y %H:%M:%S UTC")

