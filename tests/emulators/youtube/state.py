"""What the YouTube emulator remembers (Google users and their channels, codes, tokens,
upload sessions, videos, comments) and the bodies it answers: the Data API's error
`{"error": {"code", "message", "errors": [{"message", "domain", "reason"}], "status"}}`
and the OAuth endpoints' flat `{"error", "error_description"}`
(tests/emulators/README.md#youtube)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..wire import Refusal, Response

UNIT = 262_144  # 256 KiB: every chunk but the last is a multiple of it
WATCH = "https://www.youtube.com/watch?v="
SHORTS = "https://www.youtube.com/shorts/"
# The HTTP status each reason is answered with, and Google's `status` of the error.
STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


@dataclass(frozen=True)
class GoogleUser:
    """A Google account, with the YouTube channel it signs in as (None: it has none)."""

    sub: str
    name: str
    email: str = ""
    channel_id: str | None = None  # UC + 22 characters
    handle: str | None = None  # the channel's @handle (its customUrl)

    @property
    def uploads(self) -> str | None:
        """The channel's uploads playlist: UU + the channel id's 22 characters."""
        return "UU" + self.channel_id[2:] if self.channel_id else None


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    sub: str
    redirect_uri: str
    scopes: tuple[str, ...]
    offline: bool  # access_type=offline
    refresh: bool  # a refresh token comes with it (offline, and a first consent or prompt=consent)
    expires_at: dt.datetime
    used: bool = False


@dataclass(frozen=True)
class Token:
    """An access token (an hour), or a refresh token (until revoked; 7 days for an app in
    testing)."""

    value: str = field(repr=False)
    kind: str  # access | refresh
    sub: str
    scopes: tuple[str, ...]
    issued_at: dt.datetime
    expires_at: dt.datetime | None  # None: until revoked
    revoked: bool = False


@dataclass(frozen=True)
class Put:
    """One PUT to an upload session, as received."""

    content_range: str | None
    sent: int  # the bytes its Content-Length announced
    kept: int  # the bytes the session kept of them
    interrupted: bool = False
    status: int | None = None  # None: never answered


@dataclass
class Session:
    """A resumable upload session: the metadata of its start, the bytes kept so far."""

    id: str
    channel_id: str
    sub: str
    metadata: dict
    parts: str  # the session's `part`, what the video's answer carries
    size: int  # X-Upload-Content-Length
    content_type: str
    created_at: dt.datetime
    data: bytearray = field(default_factory=bytearray, repr=False)
    puts: list[Put] = field(default_factory=list)
    video_id: str | None = None  # the video the last byte made

    @property
    def held(self) -> int:
        return len(self.data)


@dataclass
class Video:
    id: str  # 11 characters
    channel_id: str
    title: str
    description: str
    tags: tuple[str, ...]
    category_id: str
    requested_privacy: str
    privacy_status: str  # private when the project is not audited
    made_for_kids: bool
    upload_type: str  # resumable | multipart
    size: int
    sha256: str
    is_short: bool
    published_at: dt.datetime
    kind: str | None  # the bytes sniffed: mp4, mov, webm... or None
    failure: str | None = None  # invalidFile: processing ends failed

    @property
    def permalink(self) -> str:
        return (SHORTS if self.is_short else WATCH) + self.id

    @property
    def watch_url(self) -> str:
        return WATCH + self.id


@dataclass(frozen=True)
class Comment:
    thread_id: str
    comment_id: str
    video_id: str
    channel_id: str  # the author's channel
    text: str
    published_at: dt.datetime


# --- answers ----------------------------------------------------------------------------------


def rfc3339(instant: dt.datetime) -> str:
    """A time as the Data API writes it (`publishedAt`)."""
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def error_body(status: int, reason: str, message: str, domain: str = "youtube.api", **more: Any) -> dict:
    """The Data API's error envelope, one error in `errors`."""
    detail = {"message": message, "domain": domain, "reason": reason, **more}
    return {"error": {"code": status, "message": message, "errors": [detail],
                      "status": STATUS_NAMES.get(status, "UNKNOWN")}}


class GoogleError(Refusal):
    """A Data API error answer, raised from a handler."""

    def __init__(self, status: int, reason: str, message: str, domain: str = "youtube.api",
                 headers: dict | None = None, **more: Any):
        self.status, self.reason = status, reason
        super().__init__(Response.json(status, error_body(status, reason, message, domain, **more), headers))


def oauth_error(status: int, error: str, description: str) -> Refusal:
    return Refusal(Response.json(status, {"error": error, "error_description": description}))


__all__ = ["SHORTS", "UNIT", "WATCH", "Code", "Comment", "GoogleError", "GoogleUser", "Put", "Session", "Token",
           "Video", "error_body", "oauth_error", "rfc3339"]
