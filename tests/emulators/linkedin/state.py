"""What the LinkedIn emulator remembers (members, codes, tokens, images, videos, posts) and
the bodies it answers: the REST error `{"status", "serviceErrorCode"?, "code"?, "message"}`,
validation's `{"errorDetailType", "message", "errorDetails": {"inputErrors"}, "status"}`,
and OAuth's `{"error", "error_description"}` (tests/emulators/README.md#linkedin)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..wire import Refusal, Response

# Media states.
WAITING_UPLOAD, PROCESSING, AVAILABLE, PROCESSING_FAILED = "WAITING_UPLOAD", "PROCESSING", "AVAILABLE", \
    "PROCESSING_FAILED"
BAD_REQUEST = "com.linkedin.common.error.BadRequest"


@dataclass(frozen=True)
class LinkedInMember:
    sub: str  # the OpenID subject; the member's URN is urn:li:person:<sub>
    name: str
    email: str = ""

    @property
    def urn(self) -> str:
        return f"urn:li:person:{self.sub}"


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    sub: str
    redirect_uri: str
    scopes: tuple[str, ...]
    expires_at: dt.datetime
    used: bool = False


@dataclass(frozen=True)
class Token:
    """An access token, or a refresh token (whose life is fixed from the first consent)."""

    value: str = field(repr=False)
    kind: str  # access | refresh
    sub: str
    scopes: tuple[str, ...]
    issued_at: dt.datetime
    expires_at: dt.datetime
    revoked: bool = False


@dataclass
class Image:
    urn: str
    owner: str
    upload_id: str
    upload_expires_at: dt.datetime
    created_at: dt.datetime
    uploaded_at: dt.datetime | None = None
    size: int = 0
    kind: str | None = None  # sniffed once uploaded
    sha256: str | None = None
    failure: str | None = None  # why processing fails, decided at upload


@dataclass
class Video:
    urn: str
    owner: str
    size: int  # fileSizeBytes declared
    upload_token: str
    parts: list[tuple[str, int, int]]  # (upload id, first byte, last byte)
    upload_expires_at: dt.datetime
    created_at: dt.datetime
    received: dict[int, tuple[str, bytes]] = field(default_factory=dict)  # part index: (ETag, bytes)
    finalized_at: dt.datetime | None = None
    failure: str | None = None
    duration: float | None = None
    sha256: str | None = None


@dataclass(frozen=True)
class Post:
    urn: str
    author: str
    commentary: str  # as sent, little text format
    text: str  # as the feed shows it: escapes resolved, cut at an unescaped reserved character
    content: dict | None
    visibility: str
    lifecycle_state: str
    created_at: dt.datetime
    media: tuple[str, ...] = ()  # the image and video URNs it carries

    @property
    def permalink(self) -> str:
        return f"https://www.linkedin.com/feed/update/{self.urn}/"


# --- answers ----------------------------------------------------------------------------------


def rest_body(status: int, message: str, code: str | None = None, service_code: int | None = None) -> dict:
    body: dict[str, Any] = {"status": status}
    if service_code is not None:
        body["serviceErrorCode"] = service_code
    if code is not None:
        body["code"] = code
    body["message"] = message
    return body


class RestError(Refusal):
    """A REST error answer, raised from a handler."""

    def __init__(self, status: int, message: str, code: str | None = None, service_code: int | None = None,
                 headers: dict | None = None):
        self.status, self.code = status, code
        super().__init__(Response.json(status, rest_body(status, message, code, service_code), headers))


def input_error_body(status: int, message: str, code: str, field_path: str | None = None, **extra: Any) -> dict:
    detail: dict[str, Any] = {"description": message, "input": {}, "code": code, **extra}
    if field_path:
        detail["input"] = {"inputPath": {"fieldPath": field_path}}
    return {"errorDetailType": BAD_REQUEST, "message": message, "errorDetails": {"inputErrors": [detail]},
            "status": status}


class InputError(Refusal):
    """A validation error naming the field and the input error's code."""

    def __init__(self, status: int, message: str, code: str, field_path: str | None = None, **extra: Any):
        self.status, self.code = status, code
        super().__init__(Response.json(status, input_error_body(status, message, code, field_path, **extra)))


def oauth_error(status: int, error: str, description: str) -> Refusal:
    return Refusal(Response.json(status, {"error": error, "error_description": description}))


__all__ = ["AVAILABLE", "BAD_REQUEST", "PROCESSING", "PROCESSING_FAILED", "WAITING_UPLOAD", "Code", "Image",
           "InputError", "LinkedInMember", "Post", "RestError", "Token", "Video", "input_error_body", "oauth_error",
           "rest_body"]
