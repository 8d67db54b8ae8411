"""A Mastodon instance's apps and OAuth 2.0 as the emulator keeps them: app registration
(`POST /api/v1/apps`, logged: tests count registrations), authorize with auto-consent
(scope subset, registered redirect URI, PKCE S256, `force_login` taken), the code grant,
revocation, `verify_credentials`, and the token check of every API call
(tests/emulators/README.md#mastodon)."""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import secrets

from ..consent import Consent, error_page, with_query
from ..wire import Request, Response
from .state import (
    INVALID_TOKEN, OUTSIDE_SCOPES, REVOKED_TOKEN, App, Code, MastodonAccount, Token, error, oauth_error,
)

CODE_TTL = dt.timedelta(minutes=10)
# The scopes an app may ask for, and what each top-level scope covers.
KNOWN = frozenset({"read", "write", "follow", "push", "profile", "read:accounts", "read:statuses", "write:statuses",
                   "write:media", "write:accounts", "read:notifications"})
INVALID_CLIENT = ("Client authentication failed due to unknown client, no client authentication included, or "
                  "unsupported authentication method.")
INVALID_GRANT = ("The provided authorization grant is invalid, expired, revoked, does not match the redirection URI "
                 "used in the authorization request, or was issued to another client.")


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii", "replace")).digest()).decode().rstrip("=")


def covers(granted: tuple[str, ...], needed: str) -> bool:
    """Whether a token's scopes take `needed` (`write` takes `write:statuses`)."""
    return needed in granted or needed.split(":")[0] in granted


class MastodonOAuth(Consent):
    """Apps, OAuth and the token check, on an emulator holding `clock`, `lock`, `_users`,
    `_consenting`, `_deny`, `_apps`, `_codes`, `_tokens`, `_ids` and `force_logins`."""

    # --- controls -----------------------------------------------------------------------------

    def issue_token(self, account_id: str | None = None, *,
                    scopes: tuple[str, ...] = ("write:statuses", "write:media", "read:accounts")) -> str:
        """A token of the account (no app), as the code grant gives them."""
        with self.lock:
            account_id = account_id or self._consenting
            if account_id not in self._users:
                raise KeyError(f"no account {account_id}")
            return self._issue(None, account_id, tuple(scopes)).value

    def revoke_token(self, token: str | None = None, account_id: str | None = None) -> int:
        """Revoke one token, or every token of an account: they answer 401 from now."""
        with self.lock:
            hit = [t for t in self._tokens.values() if not t.revoked and (
                t.value == token or (token is None and t.account_id == (account_id or self._consenting)))]
            for found in hit:
                self._tokens[found.value] = dataclasses.replace(found, revoked=True)
            return len(hit)

    def forget_apps(self) -> int:
        """The instance sweeps its apps (an unused app was vacuumed before 4.3): their
        credentials answer invalid_client from now."""
        with self.lock:
            count = len(self._apps)
            self._apps.clear()
            return count

    # --- apps -----------------------------------------------------------------------------------

    def _register_app(self, request: Request) -> Response:
        p = request.params
        uris = request.json.get("redirect_uris") if isinstance(request.json, dict) else None
        uris = uris if isinstance(uris, list) else p.get("redirect_uris", "").split()
        if not p.get("client_name"):
            raise error(422, "Validation failed: Application name can't be blank")
        if not uris or not all(u.startswith(("https://", "http://", "urn:ietf:wg:oauth:2.0:oob")) for u in uris):
            raise error(422, "Validation failed: Redirect URI must be an absolute URI.")
        scopes = tuple(dict.fromkeys((p.get("scopes") or "read").split()))
        if not set(scopes) <= KNOWN:
            raise error(422, "Validation failed: Scopes are invalid")
        with self.lock:
            app = App(self._ids.next(), p["client_name"], secrets.token_urlsafe(32), secrets.token_urlsafe(32),
                      tuple(uris), scopes, p.get("website") or None, self.clock.now())
            self._apps[app.client_id] = app
        return Response.json(200, {"id": app.id, "name": app.name, "website": app.website,
                                   "scopes": list(app.scopes), "redirect_uri": "\n".join(app.redirect_uris),
                                   "redirect_uris": list(app.redirect_uris), "client_id": app.client_id,
                                   "client_secret": app.client_secret, "client_secret_expires_at": 0})

    # --- authorize and the token endpoint -----------------------------------------------------------

    def _authorize(self, request: Request) -> Response:
        p = request.query
        app = self._apps.get(p.get("client_id", ""))
        if app is None:
            return error_page("Client authentication failed due to unknown client.")
        redirect_uri = p.get("redirect_uri", "")
        if redirect_uri not in app.redirect_uris:
            return error_page("The redirect uri included is not valid.")
        if p.get("response_type") != "code":
            return error_page("The authorization server does not support this response type.")
        back = {"state": p["state"]} if p.get("state") else {}
        scopes = tuple(dict.fromkeys((p.get("scope") or "read").split()))
        if not set(scopes) <= set(app.scopes):
            return Response.redirect(with_query(redirect_uri, {
                "error": "invalid_scope", "error_description": "The requested scope is invalid, unknown, or malformed.",
                **back}))
        challenge = p.get("code_challenge")
        if challenge is not None and p.get("code_challenge_method") != "S256":
            return Response.redirect(with_query(redirect_uri, {
                "error": "invalid_request", "error_description": "Code challenge method must be S256.", **back}))
        if self._deny or self._consenting is None:
            return Response.redirect(with_query(redirect_uri, {
                "error": "access_denied", "error_description": "The resource owner or authorization server denied "
                                                                "the request.", **back}))
        with self.lock:
            if p.get("force_login") == "true":
                self.force_logins += 1
            code = Code(secrets.token_urlsafe(32), app.client_id, self._consenting, redirect_uri, scopes, challenge,
                        self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(with_query(redirect_uri, {"code": code.value, **back}))

    def _token(self, request: Request) -> Response:
        p = request.params
        client_id, client_secret = p.get("client_id"), p.get("client_secret")
        basic = request.headers.get("Authorization", "")
        if basic.lower().startswith("basic "):
            client_id, _, client_secret = base64.b64decode(basic[6:]).decode().partition(":")
        app = self._apps.get(client_id or "")
        if app is None or not secrets.compare_digest(app.client_secret, client_secret or ""):
            raise oauth_error(401, "invalid_client", INVALID_CLIENT)
        if p.get("grant_type") != "authorization_code":
            raise oauth_error(400, "unsupported_grant_type", "The authorization grant type is not supported.")
        with self.lock:
            code = self._codes.get(p.get("code", ""))
            if (code is None or code.used or code.client_id != app.client_id or self.clock.now() >= code.expires_at
                    or p.get("redirect_uri") != code.redirect_uri
                    or (code.challenge is not None and s256(p.get("code_verifier", "")) != code.challenge)):
                raise oauth_error(400, "invalid_grant", INVALID_GRANT)
            self._codes[code.value] = dataclasses.replace(code, used=True)
            token = self._issue(app.client_id, code.account_id, code.scopes)
        return Response.json(200, {"access_token": token.value, "token_type": "Bearer", "scope": " ".join(token.scopes),
                                   "created_at": int(token.created_at.timestamp())})

    def _revoke(self, request: Request) -> Response:
        p = request.params
        app = self._apps.get(p.get("client_id", ""))
        if app is None or app.client_secret != p.get("client_secret"):
            raise oauth_error(403, "unauthorized_client", "You are not authorized to revoke this token")
        with self.lock:
            token = self._tokens.get(p.get("token", ""))
            if token is not None and token.client_id == app.client_id:
                self._tokens[token.value] = dataclasses.replace(token, revoked=True)
        return Response.json(200, {})

    def _issue(self, client_id: str | None, account_id: str, scopes: tuple[str, ...]) -> Token:
        token = Token(secrets.token_urlsafe(32), client_id, account_id, scopes, self.clock.now())
        self._tokens[token.value] = token
        return token

    # --- the API's token check ----------------------------------------------------------------------

    def _caller(self, request: Request, *needed: str) -> tuple[MastodonAccount, Token]:
        """The account and token of a call that needs one of `needed` scopes (the lock held)."""
        token = self._tokens.get(request.bearer() or "")
        if token is None:
            raise error(401, INVALID_TOKEN, {"WWW-Authenticate": 'Bearer realm="Doorkeeper", error="invalid_token", '
                                                                 'error_description="The access token is invalid"'})
        if token.revoked:
            raise error(401, REVOKED_TOKEN, {"WWW-Authenticate": 'Bearer realm="Doorkeeper", error="invalid_token", '
                                                                 'error_description="The access token was revoked"'})
        if needed and not any(covers(token.scopes, scope) for scope in needed):
            raise error(403, OUTSIDE_SCOPES)
        return self._users[token.account_id], token

    def _verify_credentials(self, request: Request) -> Response:
        with self.lock:
            account, _ = self._caller(request, "read:accounts", "profile")
            return Response.json(200, {**self._account_view(account), "source": {
                "privacy": "public", "sensitive": False, "language": None, "note": "", "fields": []}})

    def _account_view(self, account: MastodonAccount) -> dict:
        return {"id": account.id, "username": account.username, "acct": account.username,
                "display_name": account.display_name or account.username, "locked": False, "bot": False,
                "url": f"https://{self.domain}/@{account.username}", "note": "", "avatar": "", "header": ""}
