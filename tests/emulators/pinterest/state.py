"""What the Pinterest emulator remembers (users, boards, codes, tokens, media uploads, Pins)
and the bodies it answers: the API's error `{"code", "message"}` everywhere, and the
upload store's S3 XML (tests/emulators/README.md#pinterest)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from ..wire import Refusal, Response

# Error codes: 2, 8, 29 and 50 are quoted by the sources; the rest are the emulator's [U].
INVALID = 1  # a request that breaks the schema: the message names the field
AUTHENTICATION_FAILED = 2
RATE_LIMITED = 8
NOT_PERMITTED = 29
BOARD_NOT_FOUND = 40
MEDIA_NOT_FOUND = 41
PIN_NOT_FOUND = 50
BAD_GRANT = 283
# Media upload statuses (MediaUploadStatus).
REGISTERED, PROCESSING, SUCCEEDED, FAILED = "registered", "processing", "succeeded", "failed"


@dataclass(frozen=True)
class PinterestUser:
    id: str  # digits
    username: str
    account_type: str = "BUSINESS"  # or PINNER


@dataclass(frozen=True)
class Board:
    id: str  # digits
    owner: str  # the user's id
    name: str
    privacy: str = "PUBLIC"  # PUBLIC | PROTECTED | SECRET
    created_at: dt.datetime | None = None


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    user_id: str
    redirect_uri: str
    scopes: tuple[str, ...]
    expires_at: dt.datetime
    used: bool = False


@dataclass(frozen=True)
class Token:
    """An access token (`pina_`) or a refresh token (`pinr_`)."""

    value: str = field(repr=False)
    kind: str  # access | refresh
    user_id: str
    scopes: tuple[str, ...]
    issued_at: dt.datetime
    expires_at: dt.datetime
    revoked: bool = False


@dataclass
class Media:
    """A video registered with POST /v5/media, uploaded to the store by its parameters."""

    id: str
    owner: str
    created_at: dt.datetime
    parameters: dict[str, str] = field(repr=False)  # the upload's form fields, as handed out
    uploaded_at: dt.datetime | None = None
    size: int = 0
    kind: str | None = None  # sniffed once uploaded
    duration: float | None = None
    failure: str | None = None  # why processing fails, decided at upload


@dataclass(frozen=True)
class Pin:
    id: str
    board_id: str
    owner: str
    media_type: str  # image | video
    source: str  # the image's URL, or the video's media id
    created_at: dt.datetime
    title: str | None = None
    description: str | None = None
    link: str | None = None
    alt_text: str | None = None
    cover: dict | None = None  # a video's cover, as sent
    dominant_color: str | None = None

    @property
    def permalink(self) -> str:
        return f"https://www.pinterest.com/pin/{self.id}/"


# --- answers ----------------------------------------------------------------------------------


def error_body(code: int, message: str) -> dict:
    return {"code": code, "message": message}


class PinterestError(Refusal):
    """An API error answer `{"code", "message"}`, raised from a handler."""

    def __init__(self, status: int, code: int, message: str, headers: dict | None = None):
        self.status, self.code = status, code
        super().__init__(Response.json(status, error_body(code, message), headers))


def invalid(message: str) -> PinterestError:
    """A schema violation, in the words the sources quote: "<value> does not match ... - '<field>'"."""
    return PinterestError(400, INVALID, message)


def s3_error(status: int, code: str, message: str) -> Refusal:
    """What the upload store answers, as S3 does: XML."""
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{escape(code)}</Code>'
            f"<Message>{escape(message)}</Message></Error>")
    return Refusal(Response(status, body.encode("utf-8"), {"Content-Type": "application/xml"}))


def platform_time(instant: dt.datetime) -> str:
    """Pinterest's timestamps: `2020-01-01T20:10:40`, UTC without an offset."""
    return instant.astimezone(dt.timezone.utc).replace(tzinfo=None, microsecond=0).isoformat()


__all__ = ["AUTHENTICATION_FAILED", "BAD_GRANT", "BOARD_NOT_FOUND", "FAILED", "INVALID", "MEDIA_NOT_FOUND",
           "NOT_PERMITTED", "PIN_NOT_FOUND", "PROCESSING", "RATE_LIMITED", "REGISTERED", "SUCCEEDED", "Board",
           "Code", "Media", "Pin", "PinterestError", "PinterestUser", "Token", "error_body", "invalid",
           "platform_time", "s3_error"]
