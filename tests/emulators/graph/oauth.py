"""Meta's OAuth as the Threads and Instagram emulators share it: authorize, code exchange,
long-lived tokens, refresh, the token check every Graph call makes, and the controls over
consent and tokens (tests/emulators/README.md). Each platform sets what differs, in class
attributes and a few methods."""
from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..base import Rule
from ..consent import Consent, revoke_where, with_query
from . import GraphError, error_body, unknown_object
from ..wire import Refusal, Request, Response

SHORT_LIVED = dt.timedelta(hours=1)
LONG_LIVED = dt.timedelta(days=60)
REFRESHABLE_AFTER = dt.timedelta(hours=24)
SESSION_INVALIDATED = ("Error validating access token: The session has been invalidated because the user changed "
                       "their password or Facebook has changed the session for security reasons.")


@dataclass(frozen=True)
class Token:
    value: str = field(repr=False)
    user_id: str
    long_lived: bool
    scopes: frozenset
    issued_at: dt.datetime
    expires_at: dt.datetime
    revoked: bool = False


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    user_id: str
    redirect_uri: str
    scopes: frozenset
    expires_at: dt.datetime
    used: bool = False


class GraphOAuth(Consent):
    """OAuth handlers and token controls of a Graph emulator, which holds the state they
    use: `client_id`, `client_secret`, `redirect_uris`, `clock`, `lock`, `_users`,
    `_tokens`, `_codes`, `_consenting`, `_deny`."""

    TOKEN_PREFIX = "EAA"
    SCOPES: tuple[str, str] = ("", "")  # (needed by every call, needed by publishing calls too)
    # Scopes some calls need besides (replies, comments); a token issued by hand has them too.
    MORE_SCOPES: tuple[str, ...] = ()
    GRANT_PREFIX = ""  # grant_type is <prefix>_exchange_token for GET /access_token, <prefix>_refresh_token
    CODE_TTL = dt.timedelta(hours=1)
    SHORT_LIVED, LONG_LIVED = SHORT_LIVED, LONG_LIVED  # a token's lifetime as the code, then the exchange, give it
    MISSING_TOKEN = (190, "Invalid OAuth access token - Cannot parse access token")  # (code, message)
    UNKNOWN_TOKEN = (190, "Invalid OAuth access token - Cannot parse access token")
    REVOKED_TOKEN = (460, SESSION_INVALIDATED)  # (subcode, message; {client_id} is filled in)
    PARAM_ERROR_TYPE = "OAuthException"

    # --- what differs on the OAuth host ------------------------------------------------------

    def _oauth_error(self, message: str, *, code: int, subcode: int | None = None) -> Refusal:
        """An error of authorize or the code exchange (the Graph envelope unless overridden)."""
        return GraphError(message, code=code, subcode=subcode)

    def _code_answer(self, token: Token) -> dict:
        """The code exchange's answer for a new short-lived token."""
        raise NotImplementedError

    def _granted(self, user_id: str, scopes: frozenset) -> frozenset:
        """What the consenting user grants of the scopes asked for: all of them, unless a
        platform lets its users decline some."""
        return scopes

    def _param_error(self, message: str, *, subcode: int | None = None) -> GraphError:
        return GraphError(message, code=100, subcode=subcode, type=self.PARAM_ERROR_TYPE)

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, user_id: str | None = None, *, long_lived: bool = True,
                    scopes: Iterable[str] | None = None) -> str:
        """A token as the OAuth flow would give it (default: every scope), for tests that
        start connected."""
        with self.lock:
            uid = str(user_id or self._consenting)
            if uid not in self._users:
                raise KeyError(f"no user {uid}")
            scopes = (*self.SCOPES, *self.MORE_SCOPES) if scopes is None else scopes
            return self._issue(uid, long_lived, frozenset(scopes)).value

    def revoke_tokens(self, user_id: str | None = None) -> int:
        """Every token of the user (default: the consenting one) stops working."""
        uid = str(user_id or self._consenting)
        with self.lock:
            return revoke_where(self._tokens, lambda t: t.user_id == uid)

    def fail_refresh(self, times: int | None = 1) -> Rule:
        """The next refreshes answer 190/460 (the token is refused) and change nothing."""
        return self.fail_graph("GET", r"/refresh_access_token$", 190, SESSION_INVALIDATED, subcode=460, times=times)

    def fail_graph(self, method: str | None, path: str, code: int, message: str = "An unexpected error has occurred.",
                   *, subcode: int | None = None, status: int = 400, type: str = "OAuthException",
                   times: int | None = 1, **extra: Any) -> Rule:
        """The next matching calls answer a Graph error envelope (any row of the error table)."""
        return self.fail(method, path, status, error_body(message, code=code, type=type, subcode=subcode, **extra),
                         times=times)

    # --- handlers -----------------------------------------------------------------------------

    def _issue(self, user_id: str, long_lived: bool, scopes: frozenset) -> Token:
        now = self.clock.now()
        token = Token(self.TOKEN_PREFIX + secrets.token_urlsafe(48), user_id, long_lived, scopes, now,
                      now + (self.LONG_LIVED if long_lived else self.SHORT_LIVED))
        self._tokens[token.value] = token
        return token

    def _check_app(self, params: dict, *, client_id: bool | None, secret: bool, error=GraphError) -> None:
        """App credentials; `client_id` None: checked only when sent."""
        if client_id or (client_id is None and "client_id" in params):
            if params.get("client_id") != self.client_id:
                raise error("Error validating application. Invalid application ID.", code=101)
        if secret and params.get("client_secret") != self.client_secret:
            raise error("Error validating client secret.", code=1)

    def _authorize(self, request: Request) -> Response:
        p = request.query
        self._check_app(p, client_id=True, secret=False, error=self._oauth_error)
        for name in ("redirect_uri", "scope", "response_type"):
            if not p.get(name):
                raise self._oauth_error(f"The parameter {name} is required", code=100)
        if p["response_type"] != "code":
            raise self._oauth_error("Param response_type must be code", code=100)
        redirect_uri = p["redirect_uri"]
        if self.redirect_uris is not None and redirect_uri not in self.redirect_uris:
            raise self._oauth_error("URL blocked: the redirect URI is not whitelisted in the app's Client OAuth "
                                    "Settings.", code=191)
        answer = {"state": p["state"]} if "state" in p else {}
        if self._deny or self._consenting is None:
            answer = {"error": "access_denied", "error_reason": "user_denied",
                      "error_description": "Permissions error", **answer}
            return Response.redirect(with_query(redirect_uri, answer, fragment="_"))
        scopes = frozenset(s.strip() for s in p["scope"].replace(" ", ",").split(",") if s.strip())
        with self.lock:
            code = Code(secrets.token_urlsafe(32), self._consenting, redirect_uri,
                        self._granted(self._consenting, scopes), self.clock.now() + self.CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(with_query(redirect_uri, {"code": code.value, **answer}, fragment="_"))

    def _exchange_code(self, request: Request) -> Response:
        p = request.params
        self._check_app(p, client_id=True, secret=True, error=self._oauth_error)
        if p.get("grant_type", "authorization_code") != "authorization_code":
            raise self._oauth_error("Unsupported grant_type", code=100)
        with self.lock:
            code = self._codes.get(p.get("code", ""))
            if code is None:
                raise self._oauth_error("Invalid verification code format.", code=100)
            if code.used:
                raise self._oauth_error("This authorization code has been used.", code=100, subcode=36009)
            if self.clock.now() >= code.expires_at:
                raise self._oauth_error("This authorization code has expired.", code=100, subcode=36007)
            if p.get("redirect_uri") != code.redirect_uri:
                raise self._oauth_error("Error validating verification code. Please make sure your redirect_uri is "
                                        "identical to the one you used in the OAuth dialog request", code=100,
                                        subcode=36008)
            self._codes[code.value] = dataclasses.replace(code, used=True)
            token = self._issue(code.user_id, False, code.scopes)
        return Response.json(200, self._code_answer(token))

    def _long_lived(self, request: Request) -> Response:
        p = request.params
        if p.get("grant_type") != f"{self.GRANT_PREFIX}_exchange_token":
            raise self._param_error(f"Param grant_type must be {self.GRANT_PREFIX}_exchange_token")
        self._check_app(p, client_id=None, secret=True)
        with self.lock:
            old = self._valid_token(p.get("access_token"))
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _refresh(self, request: Request) -> Response:
        p = request.params
        if p.get("grant_type") != f"{self.GRANT_PREFIX}_refresh_token":
            raise self._param_error(f"Param grant_type must be {self.GRANT_PREFIX}_refresh_token")
        with self.lock:
            old = self._valid_token(p.get("access_token"))
            if not old.long_lived:
                raise self._param_error("(#100) Invalid parameter: only a long-lived access token can be refreshed")
            if self.clock.now() - old.issued_at < REFRESHABLE_AFTER:
                raise self._param_error("(#100) Invalid parameter: the access token can only be refreshed after it "
                                        "is 24 hours old")
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _bearer(self, token: Token) -> Response:
        expires_in = int((token.expires_at - self.clock.now()).total_seconds())
        return Response.json(200, {"access_token": token.value, "token_type": "bearer", "expires_in": expires_in})

    def _valid_token(self, value: str | None) -> Token:
        if not value:
            raise GraphError(self.MISSING_TOKEN[1], code=self.MISSING_TOKEN[0])
        token = self._tokens.get(value)
        now = self.clock.now()
        if token is None:
            raise GraphError(self.UNKNOWN_TOKEN[1], code=self.UNKNOWN_TOKEN[0])
        if token.revoked:
            subcode, message = self.REVOKED_TOKEN
            raise GraphError(message.format(client_id=self.client_id), code=190, subcode=subcode)
        if now >= token.expires_at:
            raise GraphError(f"Error validating access token: Session has expired on {_long_time(token.expires_at)}. "
                             f"The current time is {_long_time(now)}.", code=190, subcode=463)
        return token

    def _auth(self, request: Request, uid: str | None = None, *, publishing: bool = False,
              also: tuple[str, ...] = ()) -> Token:
        """The call's valid token, with the scopes the call needs (`also`: more of them), for
        `uid` (None, `me` or the token's user)."""
        token = self._valid_token(request.params.get("access_token") or request.bearer())
        needed = (*(self.SCOPES if publishing else self.SCOPES[:1]), *also)
        if not all(scope in token.scopes for scope in needed):
            raise GraphError("(#10) Application does not have permission for this action", code=10)
        if uid is not None and uid not in ("me", token.user_id):
            raise unknown_object(uid, request.method.lower())
        return token


def _long_time(instant: dt.datetime) -> str:
    return instant.strftime("%A, %d-%b-%y %H:%M:%S UTC")
