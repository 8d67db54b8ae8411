"""TikTok's Login Kit v2 (a web app: no PKCE) as the TikTok emulator keeps it: authorize,
the code and refresh grants with rotating refresh tokens, revocation, the token check every
API call makes, and the controls over consent and tokens (tests/emulators/README.md#tiktok)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
from collections.abc import Iterable

from ..consent import Consent, error_page, revoke_where, with_query
from ..wire import Request, Response
from .state import ApiError, Code, OAuthError, Token

CODE_TTL = dt.timedelta(minutes=10)  # [U]
SCOPES = ("user.info.basic", "user.info.profile", "video.publish", "video.upload")
KNOWN_SCOPES = frozenset(SCOPES) | {"user.info.stats", "video.list"}
INVALID_TOKEN = "The access token is invalid or not found in the request."
INVALID_REFRESH = "Refresh token is invalid or expired."
INVALID_CODE = "Authorization code is invalid or expired."  # [U]


class TikTokOAuth(Consent):
    """OAuth handlers and token controls of the TikTok emulator, which holds the state they
    use: `client_key`, `client_secret`, `redirect_uris`, `access_ttl`, `refresh_ttl`,
    `clock`, `lock`, `_users`, `_tokens`, `_codes`, `_consenting`, `_deny`."""

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, open_id: str | None = None, *, scopes: Iterable[str] = SCOPES) -> tuple[str, str]:
        """(access token, refresh token) as the code grant would give them, issued now."""
        with self.lock:
            uid = str(open_id or self._consenting)
            if uid not in self._users:
                raise KeyError(f"no user {uid}")
            access, refresh = self._grant(uid, tuple(scopes))
            return access.value, refresh.value

    def revoke_tokens(self, open_id: str | None = None) -> int:
        """Every token of the user (default: the consenting one) stops working; answers how many did."""
        uid = str(open_id or self._consenting)
        with self.lock:
            return revoke_where(self._tokens, lambda t: t.open_id == uid)

    def set_token_lifetimes(self, access: float = 86400, refresh: float = 31536000) -> None:
        """The lifetimes (seconds) of tokens issued from now."""
        self.access_ttl, self.refresh_ttl = dt.timedelta(seconds=access), dt.timedelta(seconds=refresh)

    # --- handlers -----------------------------------------------------------------------------

    def _authorize(self, request: Request) -> Response:
        p = request.query
        if p.get("client_key") != self.client_key:
            return error_page("The client_key is not that of a registered app.")
        redirect_uri = p.get("redirect_uri", "")
        if not redirect_uri or (self.redirect_uris is not None and redirect_uri not in self.redirect_uris):
            return error_page("The redirect_uri is not one registered for this app.")
        state = {"state": p["state"]} if "state" in p else {}

        def back(**params: str) -> Response:
            return Response.redirect(with_query(redirect_uri, {**params, **state}))

        if p.get("response_type") != "code":
            return back(error="unsupported_response_type", error_description="response_type must be code.")
        scopes = tuple(dict.fromkeys(s.strip() for s in p.get("scope", "").split(",") if s.strip()))
        if not scopes or not set(scopes) <= KNOWN_SCOPES:
            return back(error="invalid_scope", error_description="scope must list known scopes, separated by commas.")
        if self._deny or self._consenting is None:
            return back(error="access_denied", error_description="The user denied the authorization.")
        with self.lock:
            # TikTok's codes carry characters a query escapes ([U] which): a client must decode them.
            code = Code(f"{secrets.token_urlsafe(24)}*0!{secrets.token_urlsafe(8)}", self._consenting, redirect_uri,
                        scopes, self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return back(code=code.value, scopes=",".join(scopes))

    def _token(self, request: Request) -> Response:
        p = request.form
        with self.lock:
            now = self.clock.now()
            self._check_client(p, now)
            if p.get("grant_type") == "authorization_code":
                access, refresh = self._code_grant(p, now)
            elif p.get("grant_type") == "refresh_token":
                access, refresh = self._refresh_grant(p, now)
            else:
                raise OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.",
                                 now)
        return Response.json(200, {
            "access_token": access.value, "expires_in": _seconds(access.expires_at - now), "open_id": access.open_id,
            "refresh_expires_in": _seconds(refresh.expires_at - now), "refresh_token": refresh.value,
            "scope": ",".join(access.scopes), "token_type": "Bearer"})

    def _revoke_endpoint(self, request: Request) -> Response:
        """Revoking any token of a user ends the user's authorization of the app: every token
        of theirs stops [U]. An unknown token is answered the same (RFC 7009) [U]."""
        p = request.form
        with self.lock:
            now = self.clock.now()
            self._check_client(p, now)
            if not p.get("token"):
                raise OAuthError("invalid_request", "token is required.", now)
            token = self._tokens.get(p["token"])
            if token is not None:
                revoke_where(self._tokens, lambda t: t.open_id == token.open_id)
        return Response.json(200, {})

    # --- grants -------------------------------------------------------------------------------

    def _check_client(self, p: dict, now: dt.datetime) -> None:
        if (p.get("client_key"), p.get("client_secret")) != (self.client_key, self.client_secret):
            raise OAuthError("invalid_client", "Client key or secret is invalid.", now, status=401)  # [U] 401

    def _code_grant(self, p: dict, now: dt.datetime) -> tuple[Token, Token]:
        """Under the lock."""
        code = self._codes.get(p.get("code", ""))
        if code is None or code.used or now >= code.expires_at:
            raise OAuthError("invalid_grant", INVALID_CODE, now)
        if p.get("redirect_uri") != code.redirect_uri:
            raise OAuthError("invalid_grant", "redirect_uri does not match the authorization's.", now)
        self._codes[code.value] = dataclasses.replace(code, used=True)
        return self._grant(code.open_id, code.scopes)

    def _refresh_grant(self, p: dict, now: dt.datetime) -> tuple[Token, Token]:
        """A new pair; the refresh token sent stops at once (the access tokens already issued
        keep working until they expire [U]). Under the lock."""
        old = self._tokens.get(p.get("refresh_token", ""))
        if old is None or old.kind != "refresh" or old.revoked or now >= old.expires_at:
            raise OAuthError("invalid_grant", INVALID_REFRESH, now)
        self._tokens[old.value] = dataclasses.replace(old, revoked=True)
        return self._grant(old.open_id, old.scopes)

    def _grant(self, open_id: str, scopes: tuple[str, ...]) -> tuple[Token, Token]:
        """A new access and refresh token, each with its whole lifetime from now [U]. Under the lock."""
        now = self.clock.now()
        access = Token("act." + secrets.token_urlsafe(48), "access", open_id, scopes, now + self.access_ttl)
        refresh = Token("rft." + secrets.token_urlsafe(48), "refresh", open_id, scopes, now + self.refresh_ttl)
        self._tokens.update({access.value: access, refresh.value: refresh})
        return access, refresh

    # --- the check of every API call ----------------------------------------------------------

    def _auth(self, request: Request, now: dt.datetime, *scopes: str) -> Token:
        """The call's access token (Authorization: Bearer), valid and holding `scopes`: else
        401 `access_token_invalid`, or 401 `scope_not_authorized`. Under the lock."""
        token = self._tokens.get(request.bearer() or "")
        if token is None or token.kind != "access" or token.revoked or now >= token.expires_at:
            raise ApiError(401, "access_token_invalid", INVALID_TOKEN, now)
        missing = [s for s in scopes if s not in token.scopes]
        if missing:
            raise ApiError(401, "scope_not_authorized", "The user did not authorize the scope required for "
                           f"completing this request: {','.join(missing)}.", now)
        return token


def _seconds(delta: dt.timedelta) -> int:
    return max(0, int(delta.total_seconds()))
