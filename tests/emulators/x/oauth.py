"""X's OAuth 2.0 with PKCE as the X emulator keeps it: authorize, the code and refresh
grants with rotation, revocation, the token check every API call makes, and the
controls over consent and tokens (tests/emulators/README.md#x)."""
from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime as dt
import hashlib
import re
import secrets
from collections.abc import Iterable

from ..consent import Consent, error_page, revoke_where, with_query
from ..wire import Request, Response
from .state import Code, Token, forbidden, oauth_error, unauthorized

CODE_TTL = dt.timedelta(seconds=30)
ACCESS_TTL = dt.timedelta(hours=2)
REFRESH_TTL = dt.timedelta(days=180)  # [U] "about 6 months"
SCOPES = ("tweet.read", "tweet.write", "users.read", "media.write", "offline.access")
KNOWN_SCOPES = frozenset(SCOPES) | {
    "tweet.moderate.write", "users.email", "follows.read", "follows.write", "space.read", "mute.read", "mute.write",
    "like.read", "like.write", "list.read", "list.write", "block.read", "block.write", "bookmark.read",
    "bookmark.write", "dm.read", "dm.write",
}
# A PKCE challenge: S256's is a base64url SHA-256 (43 characters); plain's the verifier, 43-128
# unreserved characters (RFC 7636).
CHALLENGE = {"S256": re.compile(r"[A-Za-z0-9_-]{43}"), "plain": re.compile(r"[A-Za-z0-9._~-]{43,128}")}

BAD_CLIENT = (401, "unauthorized_client", "Missing valid authorization header")
BAD_CODE = "Value passed for the authorization code was invalid."
BAD_VERIFIER = "Value passed for the code verifier was invalid."
BAD_TOKEN = "Value passed for the token was invalid."


def s256(verifier: str) -> str:
    """The S256 challenge of a verifier: base64url(SHA-256), unpadded."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii", "replace")).digest()).decode().rstrip("=")


class XOAuth(Consent):
    """OAuth handlers and token controls of the X emulator, which holds the state they use:
    `client_id`, `client_secret`, `redirect_uris`, `clock`, `lock`, `_users`, `_tokens`,
    `_codes`, `_families`, `_consenting`, `_deny`."""

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, user_id: str | None = None, *, scopes: Iterable[str] = SCOPES) -> tuple[str, str | None]:
        """(access token, refresh token) as the code grant would give them, issued now; the
        refresh token is None without `offline.access`."""
        with self.lock:
            uid = str(user_id or self._consenting)
            if uid not in self._users:
                raise KeyError(f"no user {uid}")
            access, refresh = self._grant(uid, tuple(scopes), next(self._families))
            return access.value, refresh.value if refresh else None

    def revoke_tokens(self, user_id: str | None = None) -> int:
        """Every token of the user (default: the consenting one), access and refresh, stops
        working; answers how many did."""
        uid = str(user_id or self._consenting)
        with self.lock:
            return revoke_where(self._tokens, lambda t: t.user_id == uid)

    # --- handlers -----------------------------------------------------------------------------

    def _authorize(self, request: Request) -> Response:
        p = request.query
        if p.get("client_id") != self.client_id:
            return error_page("The client_id is not that of a registered app.")
        if p.get("response_type") != "code":
            return error_page("response_type must be code.")
        redirect_uri = p.get("redirect_uri", "")
        if not redirect_uri or (self.redirect_uris is not None and redirect_uri not in self.redirect_uris):
            return error_page("The redirect_uri is not one registered for this app.")
        scopes = tuple(dict.fromkeys(p.get("scope", "").split()))
        if not scopes or not set(scopes) <= KNOWN_SCOPES:
            return error_page("scope must list known scopes, separated by spaces.")
        if not p.get("state"):
            return error_page("state is required.")
        method, challenge = p.get("code_challenge_method", ""), p.get("code_challenge", "")
        if method not in CHALLENGE or not CHALLENGE[method].fullmatch(challenge):
            return error_page("A code_challenge (S256 or plain) is required.")
        if self._deny or self._consenting is None:
            return Response.redirect(with_query(redirect_uri, {"error": "access_denied", "state": p["state"]}))
        with self.lock:
            code = Code(secrets.token_urlsafe(32), self._consenting, redirect_uri, scopes, challenge, method,
                        self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(with_query(redirect_uri, {"state": p["state"], "code": code.value}))

    def _token(self, request: Request) -> Response:
        self._check_client(request)
        p = request.params
        grant_type = p.get("grant_type")
        with self.lock:
            if grant_type == "authorization_code":
                access, refresh = self._code_grant(p)
            elif grant_type == "refresh_token":
                access, refresh = self._refresh_grant(p)
            else:
                raise oauth_error(400, "invalid_request", "Value passed for the grant type was invalid.")
        answer = {"token_type": "bearer", "expires_in": int(ACCESS_TTL.total_seconds()), "access_token": access.value,
                  "scope": " ".join(access.scopes)}
        if refresh is not None:
            answer["refresh_token"] = refresh.value
        return Response.json(200, answer)

    def _revoke_endpoint(self, request: Request) -> Response:
        self._check_client(request)
        value = request.params.get("token")
        if not value:
            raise oauth_error(400, "invalid_request", BAD_TOKEN)
        with self.lock:
            revoke_where(self._tokens, lambda t: t.value == value)  # an unknown token is revoked too (RFC 7009) [U]
        return Response.json(200, {"revoked": True})

    # --- grants -------------------------------------------------------------------------------

    def _check_client(self, request: Request) -> None:
        """HTTP Basic client_id:client_secret: the app is a confidential client."""
        scheme, _, encoded = request.headers.get("Authorization", "").partition(" ")
        try:
            client_id, _, secret = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            client_id = secret = None
        if scheme.lower() != "basic" or (client_id, secret) != (self.client_id, self.client_secret):
            raise oauth_error(*BAD_CLIENT)

    def _code_grant(self, p: dict) -> tuple[Token, Token | None]:
        """Under the lock."""
        code = self._codes.get(p.get("code", ""))
        if code is None or code.used or self.clock.now() >= code.expires_at:
            raise oauth_error(400, "invalid_request", BAD_CODE)
        if p.get("redirect_uri") != code.redirect_uri:
            raise oauth_error(400, "invalid_request", "Value passed for the redirect uri was invalid.")
        verifier = p.get("code_verifier", "")
        if (s256(verifier) if code.method == "S256" else verifier) != code.challenge:
            raise oauth_error(400, "invalid_request", BAD_VERIFIER)
        self._codes[code.value] = dataclasses.replace(code, used=True)
        return self._grant(code.user_id, code.scopes, next(self._families))

    def _refresh_grant(self, p: dict) -> tuple[Token, Token | None]:
        """Rotation: a new pair, the old refresh token spent; a spent one used again revokes
        its whole family (X does so). Under the lock."""
        old = self._tokens.get(p.get("refresh_token", ""))
        if old is None or old.kind != "refresh" or old.revoked or self.clock.now() >= old.expires_at:
            raise oauth_error(400, "invalid_request", BAD_TOKEN)
        if old.rotated:
            revoke_where(self._tokens, lambda t: t.family == old.family)
            raise oauth_error(400, "invalid_request", BAD_TOKEN)
        self._tokens[old.value] = dataclasses.replace(old, rotated=True)
        return self._grant(old.user_id, old.scopes, old.family)

    def _grant(self, user_id: str, scopes: tuple[str, ...], family: int) -> tuple[Token, Token | None]:
        now = self.clock.now()
        access = Token(secrets.token_urlsafe(48), "access", user_id, scopes, family, now, now + ACCESS_TTL)
        self._tokens[access.value] = access
        if "offline.access" not in scopes:
            return access, None
        refresh = Token(secrets.token_urlsafe(48), "refresh", user_id, scopes, family, now, now + REFRESH_TTL)
        self._tokens[refresh.value] = refresh
        return access, refresh

    # --- the check of every API call ----------------------------------------------------------

    def _auth(self, request: Request, *scopes: str) -> Token:
        """The call's access token (Authorization: Bearer), valid and holding `scopes`:
        else 401, or 403 for a missing scope. Under the lock."""
        token = self._tokens.get(request.bearer() or "")
        if token is None or token.kind != "access" or token.revoked or self.clock.now() >= token.expires_at:
            raise unauthorized()
        missing = [s for s in scopes if s not in token.scopes]
        if missing:
            raise forbidden(f"This access token lacks the scope(s) this endpoint requires: {' '.join(missing)}.")
        return token

    def _token_user(self, request: Request) -> str | None:
        """Whose token the call carries, valid or not (for the rate-limit headers)."""
        token = self._tokens.get(request.bearer() or "")
        return token.user_id if token is not None else None

