"""What the X emulator remembers (users, grants, tokens, media, posts) and the error
bodies it answers: problem+json (RFC 7807) on the API, OAuth's `{"error",
"error_description"}` on the token endpoint (tests/emulators/README.md#x)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..wire import Refusal, Response

PROBLEM = "application/problem+json"
INVALID_REQUEST = "https://api.twitter.com/2/problems/invalid-request"

# Media kinds by category, and the prefix of their media_key.
IMAGE, GIF, VIDEO = "tweet_image", "tweet_gif", "tweet_video"
CATEGORIES = (IMAGE, GIF, VIDEO)
KEY_PREFIX = {IMAGE: "3", VIDEO: "7", GIF: "16"}  # [U] X's own prefixes for photo, video, animated_gif
# processing_info states
PENDING, IN_PROGRESS, SUCCEEDED, FAILED = "pending", "in_progress", "succeeded", "failed"
UNSUPPORTED = {"code": 1, "name": "InvalidMedia", "message": "Unsupported video format"}


@dataclass(frozen=True)
class XUser:
    id: str  # numeric, as X ids are
    username: str
    name: str = ""

    def __post_init__(self):
        if not self.name:
            object.__setattr__(self, "name", self.username)


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    user_id: str
    redirect_uri: str
    scopes: tuple[str, ...]
    challenge: str
    method: str  # S256 | plain
    expires_at: dt.datetime
    used: bool = False


@dataclass(frozen=True)
class Token:
    """An access or refresh token. `family` is the grant it descends from: reusing a
    rotated refresh token revokes every token of its family."""

    value: str = field(repr=False)
    kind: str  # access | refresh
    user_id: str
    scopes: tuple[str, ...]
    family: int
    issued_at: dt.datetime
    expires_at: dt.datetime
    revoked: bool = False
    rotated: bool = False  # a refresh token already exchanged


@dataclass
class Media:
    """An upload. Its processing state is computed from the clock, never stored."""

    id: str
    user_id: str
    category: str  # tweet_image | tweet_gif | tweet_video
    media_type: str  # as declared (image/jpeg, video/mp4...) or sniffed
    total_bytes: int
    created_at: dt.datetime
    expires_at: dt.datetime
    segments: dict[int, tuple[int, bytes]] = field(default_factory=dict)  # index: (size, first bytes)
    kind: str | None = None  # sniffed once the bytes are whole
    finalized_at: dt.datetime | None = None
    ready_at: dt.datetime | None = None  # None once finalized: in_progress forever
    error: dict | None = None  # set: failed once processed
    alt_text: str | None = None  # set by POST /2/media/metadata

    @property
    def media_key(self) -> str:
        return f"{KEY_PREFIX[self.category]}_{self.id}"

    @property
    def size(self) -> int:
        return sum(size for size, _ in self.segments.values())

    @property
    def processed(self) -> bool:
        """Whether it goes through processing_info (videos and GIFs; an image is ready at once)."""
        return self.category != IMAGE


@dataclass(frozen=True)
class MediaView:
    """An upload as tests read it, its state at the emulator's now (None: no processing)."""

    id: str
    media_key: str
    user_id: str
    category: str
    kind: str | None
    size: int
    state: str | None
    error: dict | None
    created_at: dt.datetime
    expires_at: dt.datetime
    alt_text: str | None = None


@dataclass(frozen=True)
class Post:
    id: str
    user_id: str
    text: str  # as stored: every http(s) URL a t.co link
    text_sent: str
    media_ids: tuple[str, ...]
    created_at: dt.datetime
    in_reply_to: str | None = None  # the post it replies to (`reply.in_reply_to_tweet_id`)
    quote_tweet_id: str | None = None
    reply_settings: str | None = None  # None: everyone
    conversation_id: str = ""  # the first post of its reply chain (itself when it replies to none)


# --- answers ---------------------------------------------------------------------------------


def problem_body(status: int, title: str, detail: str, type: str = "about:blank", **extra: Any) -> dict:
    return {"title": title, "type": type, "status": status, "detail": detail, **extra}


def problem_response(status: int, title: str, detail: str, type: str = "about:blank",
                     headers: dict | None = None, **extra: Any) -> Response:
    return Response.json(status, problem_body(status, title, detail, type, **extra),
                         {"Content-Type": PROBLEM, **(headers or {})})


class Problem(Refusal):
    """A problem+json answer, raised from a handler."""

    def __init__(self, status: int, title: str, detail: str, type: str = "about:blank", **extra: Any):
        self.status, self.detail = status, detail
        super().__init__(problem_response(status, title, detail, type, **extra))


def invalid_request(message: str, **parameters: Any) -> Problem:
    """X's 400 invalid-request problem; `detail` repeats the message [U]."""
    return Problem(400, "Invalid Request", message, INVALID_REQUEST,
                   errors=[{"message": message, "parameters": {k: [str(v)] for k, v in parameters.items()}}])


def unauthorized() -> Problem:
    return Problem(401, "Unauthorized", "Unauthorized")


def forbidden(detail: str) -> Problem:
    return Problem(403, "Forbidden", detail)


def too_many_requests(headers: dict) -> Refusal:
    return Refusal(problem_response(429, "Too Many Requests", "Too Many Requests", headers=headers))


def oauth_error(status: int, error: str, description: str) -> Refusal:
    """The token endpoint's error shape (plain JSON, not problem+json)."""
    return Refusal(Response.json(status, {"error": error, "error_description": description}))


__all__ = ["CATEGORIES", "FAILED", "GIF", "IMAGE", "INVALID_REQUEST", "IN_PROGRESS", "PENDING", "PROBLEM",
           "SUCCEEDED", "UNSUPPORTED", "VIDEO", "Code", "Media", "MediaView", "Post", "Problem", "Token", "XUser",
           "forbidden", "invalid_request", "oauth_error", "problem_body", "problem_response", "too_many_requests",
           "unauthorized"]
