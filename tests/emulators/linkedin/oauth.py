"""LinkedIn's OAuth 2.0 (3-legged, authorization code) as the emulator keeps it:
authorize with auto-consent, the code and refresh grants, userinfo (OpenID Connect), the
token check of every API call, and the controls over consent and tokens
(tests/emulators/README.md#linkedin)."""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json
import secrets
from collections.abc import Iterable

from ..consent import Consent, UserTokens, error_page, with_query
from ..wire import Request, Response
from .state import Code, LinkedInMember, RestError, Token, oauth_error

CODE_TTL = dt.timedelta(minutes=30)
ACCESS_TTL = dt.timedelta(days=60)
REFRESH_TTL = dt.timedelta(days=365)
SCOPES = ("openid", "profile", "w_member_social")
# The products' scopes an app may be granted: Sign In with LinkedIn (openid, profile,
# email) and Share on LinkedIn (w_member_social); r_member_social is restricted.
KNOWN_SCOPES = frozenset({"openid", "profile", "email", "w_member_social", "r_member_social"})
BAD_CODE = ("Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. "
            "Or authorization code expired. Or external member binding exists")
BAD_REFRESH = "The provided authorization grant or refresh token is invalid, expired or revoked."


class LinkedInOAuth(Consent, UserTokens):
    """OAuth handlers and token controls, on an emulator holding `client_id`,
    `client_secret`, `redirect_uris`, `enabled_scopes`, `refresh_tokens`, `clock`, `lock`,
    `_users`, `_codes`, `_tokens`, `_consenting`, `_deny`."""

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, sub: str | None = None, *, scopes: Iterable[str] = SCOPES) -> tuple[str, str | None]:
        """(access token, refresh token or None) as the code grant gives them, issued now."""
        with self.lock:
            sub = sub or self._consenting
            if sub not in self._users:
                raise KeyError(f"no member {sub}")
            access, refresh = self._grant(sub, tuple(scopes))
            return access.value, refresh.value if refresh else None

    # --- authorize and tokens -------------------------------------------------------------------

    def _authorize(self, request: Request) -> Response:
        p = request.query
        if p.get("client_id") != self.client_id:
            return error_page("The passed in client_id is invalid")
        redirect_uri = p.get("redirect_uri", "")
        if not redirect_uri or (self.redirect_uris is not None and redirect_uri not in self.redirect_uris):
            return error_page("The redirect_uri does not match the registered value")
        if p.get("response_type") != "code":
            return error_page("response_type must be code")
        state = p.get("state")
        back = {"state": state} if state else {}
        scopes = tuple(dict.fromkeys(p.get("scope", "").replace(",", " ").split()))
        if not scopes or not set(scopes) <= set(self.enabled_scopes):
            return Response.redirect(with_query(redirect_uri, {
                "error": "unauthorized_scope_error",
                "error_description": f"Scope &quot;{next((s for s in scopes if s not in self.enabled_scopes), '')}"
                                     f"&quot; is not authorized for your application", **back}))
        if self._deny or self._consenting is None:
            return Response.redirect(with_query(redirect_uri, {
                "error": "user_cancelled_authorize", "error_description": "The user cancelled the authorization",
                **back}))
        with self.lock:
            code = Code("AQ" + secrets.token_urlsafe(48), self._consenting, redirect_uri, scopes,
                        self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(with_query(redirect_uri, {"code": code.value, **back}))

    def _access_token(self, request: Request) -> Response:
        p = request.params
        if p.get("client_id") != self.client_id or p.get("client_secret") != self.client_secret:
            raise oauth_error(401, "invalid_client", "Client authentication failed")
        with self.lock:
            if p.get("grant_type") == "authorization_code":
                return Response.json(200, self._code_grant(p))
            if p.get("grant_type") == "refresh_token":
                return Response.json(200, self._refresh_grant(p))
        raise oauth_error(400, "invalid_request", "A required parameter \"grant_type\" is missing or invalid")

    def _code_grant(self, p: dict) -> dict:
        code = self._codes.get(p.get("code", ""))
        if code is None or code.used or self.clock.now() >= code.expires_at or p.get("redirect_uri") != code.redirect_uri:
            raise oauth_error(400, "invalid_request", BAD_CODE)
        self._codes[code.value] = dataclasses.replace(code, used=True)
        access, refresh = self._grant(code.sub, code.scopes)
        return self._token_answer(access, refresh)

    def _refresh_grant(self, p: dict) -> dict:
        if not self.refresh_tokens:
            raise oauth_error(400, "invalid_request", "Refresh tokens are not enabled for this application")
        refresh = self._tokens.get(p.get("refresh_token", ""))
        if refresh is None or refresh.kind != "refresh" or refresh.revoked or self.clock.now() >= refresh.expires_at:
            raise oauth_error(400, "invalid_request", BAD_REFRESH)
        access = self._issue("access", refresh.sub, refresh.scopes, ACCESS_TTL)
        return self._token_answer(access, refresh)

    def _grant(self, sub: str, scopes: tuple[str, ...]) -> tuple[Token, Token | None]:
        """A new access token, and a refresh token when the app has them (the lock held)."""
        access = self._issue("access", sub, scopes, ACCESS_TTL)
        refresh = self._issue("refresh", sub, scopes, REFRESH_TTL) if self.refresh_tokens else None
        return access, refresh

    def _issue(self, kind: str, sub: str, scopes: tuple[str, ...], ttl: dt.timedelta) -> Token:
        now = self.clock.now()
        prefix = "AQV" if kind == "access" else "AQX"
        token = Token(prefix + secrets.token_urlsafe(96), kind, sub, scopes, now, now + ttl)
        self._tokens[token.value] = token
        return token

    def _token_answer(self, access: Token, refresh: Token | None) -> dict:
        now = self.clock.now()
        answer = {"access_token": access.value, "expires_in": int((access.expires_at - now).total_seconds()),
                  "scope": ",".join(access.scopes), "token_type": "Bearer"}
        if "openid" in access.scopes:
            answer["id_token"] = self._id_token(access.sub)
        if refresh is not None:
            answer.update(refresh_token=refresh.value,
                          refresh_token_expires_in=int((refresh.expires_at - now).total_seconds()))
        return answer

    def _id_token(self, sub: str) -> str:
        """An OpenID id_token's shape (its signature is not a real one)."""
        def part(value: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
        now = int(self.clock.now().timestamp())
        return ".".join((part({"alg": "RS256", "typ": "JWT"}),
                         part({"iss": "https://www.linkedin.com/oauth", "aud": self.client_id, "sub": sub,
                               "iat": now, "exp": now + 3600}), "c2lnbmF0dXJl"))

    def _introspect(self, request: Request) -> Response:
        """`POST /oauth/v2/introspectToken` (client_id, client_secret, token): whether a token
        is active, and until when."""
        p = request.params
        if p.get("client_id") != self.client_id or p.get("client_secret") != self.client_secret:
            raise oauth_error(401, "invalid_client", "Client authentication failed")
        if not p.get("token"):
            raise oauth_error(400, "invalid_request", "A required parameter \"token\" is missing")
        with self.lock:
            token = self._tokens.get(p["token"])
            if token is None:
                return Response.json(200, {"active": False})
            now = self.clock.now()
            status = "revoked" if token.revoked else "expired" if now >= token.expires_at else "active"
            answer = {"active": status == "active", "client_id": self.client_id, "status": status,
                      "authorized_at": int(token.issued_at.timestamp()), "created_at": int(token.issued_at.timestamp()),
                      "expires_at": int(token.expires_at.timestamp()), "auth_type": "3L"}
            if token.kind == "access":
                answer["scope"] = ",".join(token.scopes)
            return Response.json(200, answer)

    # --- the token check -------------------------------------------------------------------------

    def _member(self, request: Request, *scopes: str) -> LinkedInMember:
        """The member of the call's Bearer token, which must hold `scopes` (the lock held)."""
        value = request.bearer()
        if not value:
            raise RestError(401, "Empty oauth2 access token", service_code=65604)
        token = self._tokens.get(value)
        if token is None or token.kind != "access":
            raise RestError(401, "Invalid access token", service_code=65600)
        if token.revoked:
            raise RestError(401, "The token used in the request has been revoked by the user", "REVOKED_ACCESS_TOKEN",
                            65601)
        if self.clock.now() >= token.expires_at:
            raise RestError(401, "The token used in the request has expired", "EXPIRED_ACCESS_TOKEN", 65602)
        missing = [s for s in scopes if s not in token.scopes]
        if missing:
            raise RestError(403, f"Not enough permissions to access: {request.method} {request.path}",
                            "ACCESS_DENIED", 100)
        return self._users[token.sub]

    def _userinfo(self, request: Request) -> Response:
        with self.lock:
            member = self._member(request, "openid", "profile")
            token = self._tokens[request.bearer()]
        given, _, family = member.name.partition(" ")
        answer = {"sub": member.sub, "name": member.name, "given_name": given, "family_name": family,
                  "picture": f"https://media.licdn.invalid/{member.sub}.jpg",
                  "locale": {"country": "US", "language": "en"}}
        if "email" in token.scopes and member.email:
            answer.update(email=member.email, email_verified=True)
        return Response.json(200, answer)
