"""The OAuth 2.0 token request (RFC 6749 4.1.3, the code exchange, and 6, the refresh),
written once for the platforms whose token endpoint speaks it (docs/adding-a-platform.md).

A platform declares its endpoint, `TokenEndpoint`, and how it reads a refusal; the answers
mean the same everywhere: 5xx or 429, the platform could not be asked (`PlatformUnreachable`,
the flow says "try again"); a refusal of the app's own credentials, `ClientRefused` (the
operator's settings are wrong, not the person's consent); any other refusal, `AuthFailed`
(the person connects again). Every message is scrubbed of the secrets sent.
"""
from __future__ import annotations

import base64
import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .base import App, AuthFailed, ClientRefused, Grant, bearer, expiry
from .http import PlatformResponse, PlatformUnreachable


def answered(response: PlatformResponse, title: str, what: str) -> PlatformResponse:
    """`response`, unless the platform was busy or limited (5xx, 429): then it could not be
    asked, PlatformUnreachable, and the flow or the token is tried again later as it is."""
    if response.status >= 500 or response.status == 429:
        raise PlatformUnreachable(f"{title} failed {what} (HTTP {response.status})", sent=True)
    return response


def in_words_of(read_answer) -> Callable[[PlatformResponse, Any, tuple], str]:
    """A refusal's words as the platform's `read_answer` reads them: its message, or the
    answer itself when it has none."""
    def words(response: PlatformResponse, body: Any, secrets: tuple) -> str:
        answer = read_answer(response, *secrets)
        return answer.message or answer.raw
    return words


def status_401(response: PlatformResponse, body: Any) -> bool:
    """RFC 6749 5.2: `invalid_client` may be answered 401 when the client authenticated."""
    return response.status == 401


@dataclass(frozen=True)
class TokenEndpoint:
    """A platform's token endpoint: where it is, how the app authenticates to it, and how
    its refusals read.

    `words(response, body, secrets)` is what a refusal says, scrubbed of `secrets`;
    `client_refused(response, body)` tells a refusal of the app's credentials; `basic`
    sends those credentials as HTTP Basic (RFC 6749 2.3.1), otherwise in the form, the app's
    id under `id_field`.
    """

    url: str
    title: str
    settings: str  # where the operator sets the app's credentials, for a ClientRefused
    words: Callable[[PlatformResponse, Any, tuple], str]
    client_refused: Callable[[PlatformResponse, Any], bool] = status_401
    basic: bool = False
    id_field: str = "client_id"

    def request(self, http, app: App, form: Mapping[str, str], what: str, *secrets: str | None) -> Mapping[str, Any]:
        """The token answer (a JSON object with a non-empty `access_token`) to `form`."""
        data, headers = dict(form), {}
        if self.basic:
            pair = f"{quote(app.client_id, safe='')}:{quote(app.client_secret, safe='')}"
            headers["Authorization"] = f"Basic {base64.b64encode(pair.encode()).decode()}"
        else:
            data = {self.id_field: app.client_id, "client_secret": app.client_secret, **data}
        response = answered(http.post(self.url, data=data, headers=headers), self.title, what)
        body = response.json()
        if response.status == 200 and isinstance(body, dict) and isinstance(body.get("access_token"), str) \
                and body["access_token"]:
            return body
        words = self.words(response, body, (app.client_secret, *secrets))
        if self.client_refused(response, body):
            raise ClientRefused(f"{self.title} refused this server's app credentials during {what} "
                                f"({self.settings}): {words}")
        raise AuthFailed(f"{self.title} refused {what}: {words}")

    def refresh(self, http, app: App, access_token: str, refresh_token: str | None, now: _dt.datetime) -> Grant:
        """RFC 6749 6: a new access token from `refresh_token`, its expiry counted from
        `now`, and the new refresh token of a platform that rotates them (None: the stored
        one is kept). AuthFailed when there is none to send, or the platform refuses it."""
        if not refresh_token:
            raise AuthFailed(f"{self.title} gave no refresh token for this account: connect it again")
        answer = self.request(http, app, {"grant_type": "refresh_token", "refresh_token": refresh_token},
                              "the token refresh", refresh_token, access_token)
        return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                     expires_at=expiry(now, answer))


def read_profile(http, url: str, token: str, pick: Callable[[Any], tuple[str, str] | None], *, title: str,
                 what: str = "the profile", read_answer, params: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(user id, name) of the account a new token signs in, read from `url` with it:
    `pick(body)` finds them in a 200's JSON, or None. PlatformUnreachable when the platform
    cannot be asked (5xx, 429); AuthFailed when it answers without them."""
    response = answered(http.get(url, params=params, headers=bearer(token)), title, f"reading {what}")
    found = pick(response.json()) if response.status == 200 else None
    if not found or not all(found):
        raise AuthFailed(f"{title} did not answer {what}: {read_answer(response, token).raw}")
    return str(found[0]), str(found[1])
