"""Who consents when an emulator's authorize page is visited, and how authorize answers:
what every emulator's OAuth shares (tests/emulators/README.md), and the controls over a
user's tokens of the emulators that keep them by user."""
from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable
from urllib.parse import urlencode, urlsplit, urlunsplit

from .wire import Response


class Consent:
    """`consent_as` and `deny_consent`, on an emulator holding `lock`, `_users`,
    `_consenting` (the user who consents) and `_deny`."""

    def consent_as(self, user_id: str) -> None:
        """The user who consents on the next authorizations."""
        with self.lock:
            if str(user_id) not in self._users:
                raise KeyError(f"no user {user_id}")
            self._consenting = str(user_id)

    def deny_consent(self, deny: bool = True) -> None:
        """While on, the user refuses every authorization (error=access_denied)."""
        self._deny = deny


class UserTokens:
    """`expire_tokens` and `revoke_tokens`, on an emulator holding `lock`, `clock`,
    `_consenting` and `_tokens` (by value, frozen dataclasses with `sub`, `kind` (access or
    refresh), `expires_at` and `revoked`)."""

    def expire_tokens(self, sub: str | None = None) -> int:
        """The user's access tokens expire now (refresh tokens stay); answers how many."""
        with self.lock:
            sub, now = sub or self._consenting, self.clock.now()
            hit = [t for t in self._tokens.values() if t.sub == sub and t.kind == "access" and t.expires_at > now]
            for token in hit:
                self._tokens[token.value] = dataclasses.replace(token, expires_at=now)
            return len(hit)

    def revoke_tokens(self, sub: str | None = None) -> int:
        """The user takes the app's access back: every token of theirs, access and refresh, stops."""
        with self.lock:
            sub = sub or self._consenting
            return revoke_where(self._tokens, lambda t: t.sub == sub)


def with_query(url: str, params: dict, fragment: str | None = None) -> str:
    """`url` with `params` added to its query (and `fragment` in place of its own, when given):
    where authorize sends the browser back."""
    parts = urlsplit(url)
    query = "&".join(filter(None, (parts.query, urlencode(params))))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment if fragment is None else fragment))


def error_page(message: str) -> Response:
    """What authorize shows a browser for a request it cannot send back to a redirect URI [U]."""
    page = f"<!doctype html><title>Something went wrong</title><p>{html.escape(message)}</p>"
    return Response(400, page.encode("utf-8"), {"Content-Type": "text/html; charset=utf-8"})


def revoke_where(tokens: dict, which: Callable) -> int:
    """Mark revoked the tokens (frozen dataclasses with `value` and `revoked`) of `tokens`
    that `which` picks; answers how many were not revoked yet. Under the emulator's lock."""
    hit = [t for t in tokens.values() if which(t) and not t.revoked]
    for token in hit:
        tokens[token.value] = dataclasses.replace(token, revoked=True)
    return len(hit)
