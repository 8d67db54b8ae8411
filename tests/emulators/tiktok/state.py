"""What the TikTok emulator remembers (users, codes, tokens, publishes, uploads) and the
bodies it answers: the Content Posting envelope `{"data", "error": {"code", "message",
"log_id"}}` and OAuth's flat `{"error", "error_description", "log_id"}`
(tests/emulators/README.md#tiktok)."""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from ..wire import Refusal, Response

PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
# publish statuses
PROCESSING_UPLOAD, PROCESSING_DOWNLOAD = "PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD"
PUBLISH_COMPLETE, FAILED = "PUBLISH_COMPLETE", "FAILED"
FILE_UPLOAD, PULL_FROM_URL = "FILE_UPLOAD", "PULL_FROM_URL"


@dataclass(frozen=True)
class TikTokUser:
    open_id: str
    username: str
    nickname: str = ""  # defaults to the username
    privacy_level_options: tuple[str, ...] = PRIVACY_LEVELS
    max_video_post_duration_sec: int = 600
    comment_disabled: bool = False
    duet_disabled: bool = False
    stitch_disabled: bool = False

    def __post_init__(self):
        if not self.nickname:
            object.__setattr__(self, "nickname", self.username)
        unknown = set(self.privacy_level_options) - set(PRIVACY_LEVELS)
        if unknown:
            raise ValueError(f"privacy levels are among {PRIVACY_LEVELS}, not {sorted(unknown)}")
        object.__setattr__(self, "privacy_level_options", tuple(self.privacy_level_options))


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    open_id: str
    redirect_uri: str
    scopes: tuple[str, ...]
    expires_at: dt.datetime
    used: bool = False


@dataclass(frozen=True)
class Token:
    """An access (`act.`) or refresh (`rft.`) token."""

    value: str = field(repr=False)
    kind: str  # access | refresh
    open_id: str
    scopes: tuple[str, ...]
    expires_at: dt.datetime
    revoked: bool = False


@dataclass
class Upload:
    """A FILE_UPLOAD's upload URL and what has come through it. The bytes are never kept:
    a running count and SHA-256, and the first bytes for the format."""

    upload_id: str
    upload_token: str = field(repr=False)
    publish_id: str
    open_id: str
    video_size: int
    chunk_size: int
    total_chunk_count: int
    expires_at: dt.datetime
    chunks_received: int = 0
    bytes_received: int = 0
    head: bytes = field(default=b"", repr=False)
    digest: Any = field(default_factory=hashlib.sha256, repr=False)
    content_type: str | None = None

    def chunk_length(self, index: int) -> int:
        """The size chunk `index` must have: the last one takes the remainder."""
        if index < self.total_chunk_count - 1:
            return self.chunk_size
        return self.video_size - (self.total_chunk_count - 1) * self.chunk_size

    @property
    def complete(self) -> bool:
        return self.chunks_received == self.total_chunk_count


@dataclass(frozen=True)
class UploadView:
    upload_id: str
    publish_id: str
    open_id: str
    video_size: int
    chunk_size: int
    total_chunk_count: int
    chunks_received: int
    bytes_received: int
    sha256: str  # of the bytes received so far
    content_type: str | None
    expires_at: dt.datetime
    complete: bool


@dataclass
class Publish:
    """A video or photo post from its init. Its status is computed from the clock, never
    stored: see `status_at`."""

    publish_id: str
    open_id: str
    media: str  # video | photo
    source: str  # FILE_UPLOAD | PULL_FROM_URL
    post_info: dict
    created_at: dt.datetime
    processing: dt.timedelta
    moderation: dt.timedelta
    post_id: int  # shown once public
    forced: tuple[str, str | None] | None = None  # force_next_publish's (status, fail_reason)
    video_url: str | None = None
    photo_urls: tuple[str, ...] = ()
    cover_index: int | None = None  # a photo post's photo_cover_index
    upload: Upload | None = None
    bytes_received: int = 0
    sha256: str | None = None
    received_at: dt.datetime | None = None  # when every byte was in
    failure: str | None = None  # a fail_reason the bytes decided, shown at once

    def status_at(self, now: dt.datetime) -> tuple[str, str | None, int | None]:
        """(status, fail_reason, public post id) at `now`."""
        waiting = PROCESSING_UPLOAD if self.source == FILE_UPLOAD else PROCESSING_DOWNLOAD
        if self.failure is not None:
            return FAILED, self.failure, None
        if self.received_at is None:
            if self.upload is not None and now >= self.upload.expires_at:
                return FAILED, "internal", None  # [U] an upload left incomplete past its URL's hour
            return waiting, None, None
        done = self.received_at + self.processing
        if (self.forced and self.forced[0] == "PROCESSING") or now < done:
            return waiting, None, None
        if self.forced:
            return FAILED, self.forced[1], None
        return PUBLISH_COMPLETE, None, self.post_id if now >= done + self.moderation else None


@dataclass(frozen=True)
class PostView:
    """A publish as tests read it, at the emulator's now."""

    publish_id: str
    open_id: str
    post_id: int | None
    status: str
    fail_reason: str | None
    media: str
    source: str
    title: str
    description: str
    privacy_level: str
    post_info: dict
    video_url: str | None
    photo_urls: tuple[str, ...]
    cover_index: int | None
    bytes_received: int
    sha256: str | None
    created_at: dt.datetime


def post_view(publish: Publish, now: dt.datetime) -> PostView:
    status, reason, post_id = publish.status_at(now)
    info = publish.post_info
    received = publish.upload.bytes_received if publish.upload is not None else publish.bytes_received
    return PostView(publish.publish_id, publish.open_id, post_id, status, reason, publish.media, publish.source,
                    info.get("title", ""), info.get("description", ""), info["privacy_level"], dict(info),
                    publish.video_url, publish.photo_urls, publish.cover_index, received, publish.sha256,
                    publish.created_at)


def upload_view(upload: Upload) -> UploadView:
    return UploadView(upload.upload_id, upload.publish_id, upload.open_id, upload.video_size, upload.chunk_size,
                      upload.total_chunk_count, upload.chunks_received, upload.bytes_received,
                      upload.digest.copy().hexdigest(), upload.content_type, upload.expires_at, upload.complete)


# --- answers ---------------------------------------------------------------------------------


def log_id(now: dt.datetime) -> str:
    """TikTok's log ids: the time to the second, then hex [U]."""
    return now.strftime("%Y%m%d%H%M%S") + secrets.token_hex(9).upper()


def envelope(data: dict, now: dt.datetime, code: str = "ok", message: str = "") -> dict:
    return {"data": data, "error": {"code": code, "message": message, "log_id": log_id(now)}}


class ApiError(Refusal):
    """An envelope error (`data` empty), raised from a handler."""

    def __init__(self, status: int, code: str, message: str, now: dt.datetime):
        self.status, self.code = status, code
        super().__init__(Response.json(status, envelope({}, now, code, message)))


class OAuthError(Refusal):
    """The token and revoke endpoints' flat error."""

    def __init__(self, error: str, description: str, now: dt.datetime, status: int = 400):
        super().__init__(Response.json(status, {"error": error, "error_description": description,
                                                "log_id": log_id(now)}))


__all__ = ["FAILED", "FILE_UPLOAD", "PRIVACY_LEVELS", "PROCESSING_DOWNLOAD", "PROCESSING_UPLOAD", "PULL_FROM_URL",
           "PUBLISH_COMPLETE", "ApiError", "Code", "OAuthError", "PostView", "Publish", "TikTokUser", "Token",
           "Upload", "UploadView", "envelope", "log_id", "post_view", "upload_view"]
