"""What the Mastodon emulator remembers (accounts, apps, codes, tokens, media, statuses) and
the one error body a Mastodon instance answers, `{"error": "<words>"}` (OAuth's with
`error_description`) (tests/emulators/README.md#mastodon)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..wire import Refusal, Response


@dataclass(frozen=True)
class MastodonAccount:
    id: str  # digits, as Mastodon's ids are
    username: str
    display_name: str = ""


@dataclass(frozen=True)
class App:
    """An app registered by `POST /api/v1/apps`."""

    id: str
    name: str
    client_id: str
    client_secret: str = field(repr=False)
    redirect_uris: tuple[str, ...]
    scopes: tuple[str, ...]
    website: str | None
    created_at: dt.datetime


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    client_id: str
    account_id: str
    redirect_uri: str
    scopes: tuple[str, ...]
    challenge: str | None
    expires_at: dt.datetime
    used: bool = False


@dataclass(frozen=True)
class Token:
    """An access token: no end; only revoking it stops it."""

    value: str = field(repr=False)
    client_id: str | None
    account_id: str
    scopes: tuple[str, ...]
    created_at: dt.datetime
    revoked: bool = False


@dataclass
class Media:
    id: str
    account_id: str
    type: str  # image | video | gifv
    format: str  # what the bytes are (jpeg, png, mp4...)
    size: int
    description: str | None
    created_at: dt.datetime
    ready_at: dt.datetime  # processed from then on (at once for a still image)
    failure: str | None = None  # why processing fails, decided at upload
    status_id: str | None = None  # the status it is attached to


@dataclass(frozen=True)
class Status:
    id: str
    account_id: str
    text: str  # as sent
    content: str  # as the instance renders it (HTML)
    spoiler_text: str
    visibility: str
    in_reply_to_id: str | None
    media_ids: tuple[str, ...]
    created_at: dt.datetime
    application: str | None  # the app whose token made it
    idempotency_key: str | None = None


def error(status: int, words: str, headers: dict | None = None) -> Refusal:
    """Mastodon's error answer, raised from a handler."""
    return Refusal(Response.json(status, {"error": words}, headers))


def oauth_error(status: int, name: str, description: str) -> Refusal:
    return Refusal(Response.json(status, {"error": name, "error_description": description}))


NOT_FOUND = "Record not found"
INVALID_TOKEN, REVOKED_TOKEN = "The access token is invalid", "The access token was revoked"
OUTSIDE_SCOPES = "This action is outside the authorized scopes"

__all__ = ["App", "Code", "INVALID_TOKEN", "Media", "MastodonAccount", "NOT_FOUND", "OUTSIDE_SCOPES",
           "REVOKED_TOKEN", "Status", "Token", "error", "oauth_error"]
