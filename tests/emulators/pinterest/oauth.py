"""Pinterest's OAuth 2.0 (authorization code) as the emulator keeps it: the consent page on
www.pinterest.com with auto-consent, the token endpoint with the app's credentials as HTTP
Basic, continuous refresh tokens, the account of `/v5/user_account`, the token check of
every API call, and the controls over consent and tokens (tests/emulators/README.md#pinterest)."""
from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime as dt
import secrets
from collections.abc import Iterable

from ..consent import Consent, error_page, revoke_where, with_query
from ..wire import Request, Response
from .state import (AUTHENTICATION_FAILED, BAD_GRANT, NOT_PERMITTED, Code, PinterestError, PinterestUser, Token,
                    error_body)

CODE_TTL = dt.timedelta(minutes=10)  # [U]
ACCESS_TTL = dt.timedelta(days=30)  # [S]
REFRESH_TTL = dt.timedelta(days=60)  # continuous: every refresh answers a new one of 60 days [C]
SCOPES = ("boards:read", "pins:read", "pins:write", "user_accounts:read")
KNOWN_SCOPES = frozenset({"ads:read", "ads:write", "boards:read", "boards:read_secret", "boards:write",
                          "boards:write_secret", "catalogs:read", "catalogs:write", "pins:read", "pins:read_secret",
                          "pins:write", "pins:write_secret", "user_accounts:read"})
AUTH_FAILED = "Authentication failed."
NOT_PERMITTED_WORDS = "You are not permitted to access that resource."


def scopes_of(text: str) -> tuple[str, ...]:
    """Scopes as Pinterest takes them: comma-separated [C], spaces taken too [U]."""
    return tuple(dict.fromkeys(text.replace(",", " ").split()))


class PinterestOAuth(Consent):
    """OAuth handlers and token controls, on an emulator holding `client_id`,
    `client_secret`, `redirect_uris`, `clock`, `lock`, `_users`, `_codes`, `_tokens`,
    `_consenting`, `_deny`."""

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, user_id: str | None = None, *, scopes: Iterable[str] = SCOPES) -> tuple[str, str]:
        """(access token, refresh token) as the code grant gives them, issued now."""
        with self.lock:
            user_id = user_id or self._consenting
            if user_id not in self._users:
                raise KeyError(f"no user {user_id}")
            access, refresh = self._grant(user_id, tuple(scopes))
            return access.value, refresh.value

    def expire_tokens(self, user_id: str | None = None) -> int:
        """The user's access tokens expire now (refresh tokens stay); answers how many."""
        with self.lock:
            user_id, now = user_id or self._consenting, self.clock.now()
            hit = [t for t in self._tokens.values() if t.user_id == user_id and t.kind == "access"
                   and t.expires_at > now]
            for token in hit:
                self._tokens[token.value] = dataclasses.replace(token, expires_at=now)
            return len(hit)

    def revoke_tokens(self, user_id: str | None = None) -> int:
        """The user disconnects the app: every token of theirs, access and refresh, stops."""
        with self.lock:
            user_id = user_id or self._consenting
            return revoke_where(self._tokens, lambda t: t.user_id == user_id)

    # --- the consent page ---------------------------------------------------------------------

    def _authorize(self, request: Request) -> Response:
        p = request.query
        if p.get("client_id") != self.client_id:
            return error_page("Invalid client_id")
        redirect_uri = p.get("redirect_uri", "")
        if not redirect_uri or (self.redirect_uris is not None and redirect_uri not in self.redirect_uris):
            return error_page("The redirect_uri is not registered for this app")
        if p.get("response_type") != "code":
            return error_page("response_type must be code")
        back = {"state": p["state"]} if p.get("state") else {}
        scopes = scopes_of(p.get("scope", ""))
        unknown = [s for s in scopes if s not in KNOWN_SCOPES]
        if not scopes or unknown:
            return Response.redirect(with_query(redirect_uri, {
                "error": "invalid_scope", "error_description": f"Unknown scope: {unknown[0] if unknown else '(none)'}",
                **back}))
        if self._deny or self._consenting is None:
            return Response.redirect(with_query(redirect_uri, {"error": "access_denied", **back}))
        with self.lock:
            code = Code(secrets.token_hex(20), self._consenting, redirect_uri, scopes, self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(with_query(redirect_uri, {"code": code.value, **back}))

    # --- the token endpoint ---------------------------------------------------------------------

    def _token(self, request: Request) -> Response:
        if not self._basic_is_the_apps(request.headers.get("Authorization", "")):
            raise PinterestError(401, AUTHENTICATION_FAILED, AUTH_FAILED)
        if request.headers.get_content_type() != "application/x-www-form-urlencoded":
            raise PinterestError(415, 1, "Content-Type must be application/x-www-form-urlencoded")
        p = request.form
        with self.lock:
            if p.get("grant_type") == "authorization_code":
                return Response.json(200, self._code_grant(p))
            if p.get("grant_type") == "refresh_token":
                return Response.json(200, self._refresh_grant(p))
        raise PinterestError(400, 1, f"{p.get('grant_type', '')!r} is not one of ['authorization_code', "
                                     f"'refresh_token', 'client_credentials'] - 'grant_type'")

    def _basic_is_the_apps(self, header: str) -> bool:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            pair = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return False
        return pair == f"{self.client_id}:{self.client_secret}"

    def _code_grant(self, p: dict) -> dict:
        code = self._codes.get(p.get("code", ""))
        if code is None or code.used or self.clock.now() >= code.expires_at or p.get("redirect_uri") != code.redirect_uri:
            raise PinterestError(400, BAD_GRANT, "Invalid authorization code.")
        self._codes[code.value] = dataclasses.replace(code, used=True)
        access, refresh = self._grant(code.user_id, code.scopes)
        return self._token_answer(access, refresh, "authorization_code")

    def _refresh_grant(self, p: dict) -> dict:
        refresh = self._tokens.get(p.get("refresh_token", ""))
        if refresh is None or refresh.kind != "refresh" or refresh.revoked or self.clock.now() >= refresh.expires_at:
            raise PinterestError(400, BAD_GRANT, "Invalid refresh token.")
        scopes = scopes_of(p["scope"]) if p.get("scope") else refresh.scopes
        if not set(scopes) <= set(refresh.scopes):
            raise PinterestError(400, 1, "The scope asked for is wider than the one granted - 'scope'")
        # Continuous refresh: a new refresh token of 60 days each time; the one spent stops [U].
        self._tokens[refresh.value] = dataclasses.replace(refresh, revoked=True)
        access = self._issue("access", refresh.user_id, scopes, ACCESS_TTL)
        renewed = self._issue("refresh", refresh.user_id, scopes, REFRESH_TTL)
        return self._token_answer(access, renewed, "refresh_token")

    def _grant(self, user_id: str, scopes: tuple[str, ...]) -> tuple[Token, Token]:
        return self._issue("access", user_id, scopes, ACCESS_TTL), self._issue("refresh", user_id, scopes, REFRESH_TTL)

    def _issue(self, kind: str, user_id: str, scopes: tuple[str, ...], ttl: dt.timedelta) -> Token:
        now = self.clock.now()
        prefix = "pina_" if kind == "access" else "pinr_"
        token = Token(prefix + secrets.token_urlsafe(48), kind, user_id, scopes, now, now + ttl)
        self._tokens[token.value] = token
        return token

    def _token_answer(self, access: Token, refresh: Token, response_type: str) -> dict:
        now = self.clock.now()
        return {"access_token": access.value, "refresh_token": refresh.value, "response_type": response_type,
                "token_type": "bearer", "expires_in": int((access.expires_at - now).total_seconds()),
                "refresh_token_expires_in": int((refresh.expires_at - now).total_seconds()),
                "refresh_token_expires_at": int(refresh.expires_at.timestamp()), "scope": ",".join(access.scopes)}

    # --- the token check ------------------------------------------------------------------------

    def _user(self, request: Request, *scopes: str, any_of: Iterable[str] = ()) -> PinterestUser:
        """The user of the call's Bearer token, which must hold every one of `scopes` and,
        when given, one of `any_of` (the lock held)."""
        value = request.bearer()
        token = self._tokens.get(value) if value else None
        if token is None or token.kind != "access" or token.revoked or self.clock.now() >= token.expires_at:
            raise PinterestError(401, AUTHENTICATION_FAILED, AUTH_FAILED)
        any_of = tuple(any_of)
        if any(s not in token.scopes for s in scopes) or (any_of and not set(any_of) & set(token.scopes)):
            raise PinterestError(403, NOT_PERMITTED, NOT_PERMITTED_WORDS)
        return self._users[token.user_id]

    def _user_account(self, request: Request) -> Response:
        with self.lock:
            value = request.bearer()
            token = self._tokens.get(value) if value else None
            if token is not None and token.kind == "access" and "user_accounts:read" not in token.scopes:
                # The document's own example for this call [C].
                return Response.json(403, error_body(403, "Not authorized to access the user account."))
            user = self._user(request, "user_accounts:read")
            boards = [b for b in self._boards.values() if b.owner == user.id]
            pins = [p for p in self._pins if p.owner == user.id]
        return Response.json(200, {
            "account_type": user.account_type, "id": user.id, "username": user.username,
            "profile_image": f"https://i.pinimg.invalid/{user.id}.jpg", "website_url": "",
            "business_name": user.username if user.account_type == "BUSINESS" else None, "about": "",
            "board_count": len(boards), "pin_count": len(pins), "follower_count": 0, "following_count": 0,
            "monthly_views": 0})
