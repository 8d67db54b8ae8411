"""Google's OAuth 2.0 for web server apps as the YouTube emulator keeps it: the consent page
on accounts.google.com (the consenting user agrees at once), the token endpoint on
oauth2.googleapis.com (the code and refresh grants, revoke, tokeninfo), userinfo, the token
check of every Data API call, and the controls over consent and tokens
(tests/emulators/README.md#youtube).

A refresh token comes only with `access_type=offline`, and only on the user's first consent
to the app unless `prompt=consent` asks again; a refused refresh token is `invalid_grant`.
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import secrets
from collections.abc import Iterable
from urllib.parse import unquote

from ..consent import Consent, UserTokens, error_page, revoke_where, with_query
from ..wire import Request, Response
from .state import Code, GoogleError, GoogleUser, Token, oauth_error

CODE_TTL = dt.timedelta(minutes=10)
ACCESS_TTL = dt.timedelta(seconds=3599)
TESTING_REFRESH_TTL = dt.timedelta(days=7)  # an app in "Testing" publishing status, external users
YT = "https://www.googleapis.com/auth/"
UPLOAD, READONLY, FORCE_SSL, MANAGE, PARTNER = (YT + s for s in ("youtube.upload", "youtube.readonly",
                                                                 "youtube.force-ssl", "youtube", "youtubepartner"))
SCOPES = (UPLOAD, READONLY, FORCE_SSL)
KNOWN_SCOPES = frozenset({UPLOAD, READONLY, FORCE_SSL, MANAGE, PARTNER, "openid", "email", "profile",
                          YT + "userinfo.email", YT + "userinfo.profile"})
# The scopes each kind of call takes, any one of them [C].
TAKES = {"upload": (UPLOAD, MANAGE, FORCE_SSL, PARTNER), "read": (READONLY, MANAGE, FORCE_SSL, PARTNER),
         "comment": (FORCE_SSL,)}
EXPIRED = "Token has been expired or revoked."


class GoogleOAuth(Consent, UserTokens):
    """OAuth handlers and token controls, on an emulator holding `client_id`,
    `client_secret`, `redirect_uris`, `testing`, `clock`, `lock`, `_users`, `_codes`,
    `_tokens`, `_consented` (the subs who consented to the app once), `_consenting`, `_deny`."""

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, sub: str | None = None, *, scopes: Iterable[str] = SCOPES,
                    offline: bool = True) -> tuple[str, str | None]:
        """(access token, refresh token or None) as the code grant gives them, issued now."""
        with self.lock:
            sub = sub or self._consenting
            if sub not in self._users:
                raise KeyError(f"no user {sub}")
            access = self._issue("access", sub, tuple(scopes))
            refresh = self._issue("refresh", sub, tuple(scopes)) if offline else None
            return access.value, refresh.value if refresh else None

    # --- the consent page -----------------------------------------------------------------------

    def _authorize(self, request: Request) -> Response:
        p = request.query
        if p.get("client_id") != self.client_id:
            return error_page("Error 401: invalid_client. The OAuth client was not found.")
        redirect_uri = p.get("redirect_uri", "")
        if not redirect_uri or (self.redirect_uris is not None and redirect_uri not in self.redirect_uris):
            return error_page("Error 400: redirect_uri_mismatch")
        scopes = tuple(dict.fromkeys(unquote(p.get("scope", "")).split()))
        if not scopes or not set(scopes) <= KNOWN_SCOPES or p.get("response_type") != "code":
            return error_page("Error 400: invalid_scope" if p.get("response_type") == "code"
                              else "Error 400: invalid_request")
        back = {"state": p["state"]} if "state" in p else {}
        if self._deny or self._consenting is None:
            return Response.redirect(with_query(redirect_uri, {"error": "access_denied", **back}))
        with self.lock:
            sub = self._consenting
            offline = p.get("access_type") == "offline"
            first = sub not in self._consented
            self._consented.add(sub)
            code = Code("4/0A" + secrets.token_urlsafe(48), sub, redirect_uri, scopes, offline,
                        offline and (first or "consent" in p.get("prompt", "").split()), self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(with_query(redirect_uri, {**back, "code": code.value, "scope": " ".join(scopes)}))

    # --- the token endpoint -----------------------------------------------------------------------

    def _token(self, request: Request) -> Response:
        p = request.params
        client_id, client_secret = p.get("client_id"), p.get("client_secret")
        basic = request.headers.get("Authorization", "")
        if basic.lower().startswith("basic "):
            client_id, _, client_secret = base64.b64decode(basic[6:]).decode("utf-8", "replace").partition(":")
        if client_id != self.client_id or client_secret != self.client_secret:
            raise oauth_error(401, "invalid_client", "Unauthorized")
        with self.lock:
            if p.get("grant_type") == "authorization_code":
                return Response.json(200, self._code_grant(p))
            if p.get("grant_type") == "refresh_token":
                return Response.json(200, self._refresh_grant(p))
        raise oauth_error(400, "unsupported_grant_type", "Invalid grant_type: " + p.get("grant_type", ""))

    def _code_grant(self, p: dict) -> dict:
        code = self._codes.get(p.get("code", ""))
        if code is None or code.used or self.clock.now() >= code.expires_at:
            raise oauth_error(400, "invalid_grant", "Bad Request")
        if p.get("redirect_uri") != code.redirect_uri:
            raise oauth_error(400, "redirect_uri_mismatch", "Bad Request")
        self._codes[code.value] = dataclasses.replace(code, used=True)
        access = self._issue("access", code.sub, code.scopes)
        answer = self._token_answer(access)
        if code.refresh:
            answer["refresh_token"] = self._issue("refresh", code.sub, code.scopes).value
        return answer

    def _refresh_grant(self, p: dict) -> dict:
        refresh = self._tokens.get(p.get("refresh_token", ""))
        now = self.clock.now()
        if refresh is None or refresh.kind != "refresh" or refresh.revoked \
                or (refresh.expires_at is not None and now >= refresh.expires_at):
            raise oauth_error(400, "invalid_grant", EXPIRED)
        return self._token_answer(self._issue("access", refresh.sub, refresh.scopes))

    def _issue(self, kind: str, sub: str, scopes: tuple[str, ...]) -> Token:
        now = self.clock.now()
        if kind == "access":
            value, ends = "ya29." + secrets.token_urlsafe(96), now + ACCESS_TTL
        else:
            value, ends = "1//0" + secrets.token_urlsafe(64), now + TESTING_REFRESH_TTL if self.testing else None
        token = Token(value, kind, sub, scopes, now, ends)
        self._tokens[value] = token
        return token

    def _token_answer(self, access: Token) -> dict:
        return {"access_token": access.value, "expires_in": int((access.expires_at - self.clock.now()).total_seconds()),
                "scope": " ".join(access.scopes), "token_type": "Bearer"}

    def _revoke(self, request: Request) -> Response:
        """`POST /revoke?token=`: an access or refresh token; a refresh token takes its
        user's access tokens with it."""
        value = request.params.get("token", "")
        with self.lock:
            token = self._tokens.get(value)
            if token is None or token.revoked:
                raise oauth_error(400, "invalid_token", "Token expired or revoked")
            if token.kind == "refresh":
                revoke_where(self._tokens, lambda t: t.sub == token.sub)
            else:
                revoke_where(self._tokens, lambda t: t.value == value)
        return Response.json(200, {})

    def _tokeninfo(self, request: Request) -> Response:
        with self.lock:
            token = self._tokens.get(request.params.get("access_token", ""))
            now = self.clock.now()
            if token is None or token.kind != "access" or token.revoked or now >= token.expires_at:
                raise oauth_error(400, "invalid_token", "Invalid Value")
            return Response.json(200, {"azp": self.client_id, "aud": self.client_id, "scope": " ".join(token.scopes),
                                       "exp": str(int(token.expires_at.timestamp())),
                                       "expires_in": str(int((token.expires_at - now).total_seconds())),
                                       "access_type": "offline"})

    def _userinfo(self, request: Request) -> Response:
        with self.lock:
            user = self._caller(request)
            token = self._tokens[request.bearer()]
        if not {"openid", "email", "profile", YT + "userinfo.email", YT + "userinfo.profile"} & set(token.scopes):
            raise GoogleError(403, "insufficientPermissions", "Request had insufficient authentication scopes.")
        return Response.json(200, {"sub": user.sub, "name": user.name, "email": user.email})

    # --- the token check -------------------------------------------------------------------------

    def _caller(self, request: Request, takes: str | None = None) -> GoogleUser:
        """The user of the call's Bearer token, which must hold a scope of TAKES[takes]
        (the lock held)."""
        value = request.bearer()
        if not value:
            raise GoogleError(401, "required", "Login Required.", "global", location="Authorization",
                              locationType="header", headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'})
        token = self._tokens.get(value)
        if token is None or token.kind != "access" or token.revoked or self.clock.now() >= token.expires_at:
            raise GoogleError(401, "authError", "Invalid Credentials", "global", location="Authorization",
                              locationType="header", headers={
                                  "WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"'})
        if takes is not None and not set(TAKES[takes]) & set(token.scopes):
            raise GoogleError(403, "insufficientPermissions", "Request had insufficient authentication scopes.",
                              "global")
        return self._users[token.sub]
