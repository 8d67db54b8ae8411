"""What the Threads emulator remembers: users, tokens, media containers and posts, and the
container state machine (tests/emulators/README.md#threads)."""
from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass, field
from typing import Mapping

CONTAINER_TTL = dt.timedelta(hours=24)  # "not published within 24 hours" -> EXPIRED

IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED = "IN_PROGRESS", "FINISHED", "ERROR", "EXPIRED", "PUBLISHED"
STATUSES = (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED)
ERROR_MESSAGES = (
    "FAILED_DOWNLOADING_VIDEO", "FAILED_PROCESSING_AUDIO", "FAILED_PROCESSING_VIDEO", "INVALID_ASPEC_RATIO",
    "INVALID_BIT_RATE", "INVALID_DURATION", "INVALID_FRAME_RATE", "INVALID_AUDIO_CHANNELS",
    "INVALID_AUDIO_CHANNEL_LAYOUT", "UNKNOWN",
)
MEDIA_TYPES = ("TEXT", "IMAGE", "VIDEO", "CAROUSEL")
# A post's media_type as the media endpoints name it.
POST_MEDIA_TYPES = {"TEXT": "TEXT_POST", "IMAGE": "IMAGE", "VIDEO": "VIDEO", "CAROUSEL": "CAROUSEL_ALBUM"}


@dataclass(frozen=True)
class ThreadsUser:
    id: str  # numeric, as Threads ids are
    username: str
    profile_picture_url: str = ""


@dataclass(frozen=True)
class Token:
    value: str = field(repr=False)
    user_id: str
    long_lived: bool
    scopes: frozenset
    issued_at: dt.datetime
    expires_at: dt.datetime
    revoked: bool = False


@dataclass(frozen=True)
class Code:
    value: str = field(repr=False)
    user_id: str
    redirect_uri: str
    scopes: frozenset
    expires_at: dt.datetime
    used: bool = False


@dataclass
class Container:
    """A media container. Its status is computed from the clock (`status_of`), never stored,
    except what ends the machine: published, or forced expired."""

    id: str
    user_id: str
    media_type: str  # TEXT | IMAGE | VIDEO | CAROUSEL
    created_at: dt.datetime
    ready_at: dt.datetime | None  # None: kept IN_PROGRESS forever
    text: str = ""
    media_url: str | None = None
    is_carousel_item: bool = False
    children: tuple[str, ...] = ()
    params: Mapping[str, str] = field(default_factory=dict)  # link_attachment, reply_control...
    error_message: str | None = None  # set: ERROR once ready
    failed_download: bool = False  # ERROR at once (the download precedes processing)
    forced_expired: bool = False
    published_id: str | None = None


@dataclass(frozen=True)
class ContainerView:
    """A container as tests read it, with its status at the emulator's now."""

    id: str
    user_id: str
    media_type: str
    status: str
    error_message: str | None
    text: str
    media_url: str | None
    is_carousel_item: bool
    children: tuple[str, ...]
    created_at: dt.datetime
    published_id: str | None


@dataclass(frozen=True)
class PostMedia:
    id: str
    media_type: str  # IMAGE | VIDEO
    url: str


@dataclass(frozen=True)
class Post:
    """A published thread."""

    id: str
    user_id: str
    username: str
    container_id: str
    media_type: str  # TEXT_POST | IMAGE | VIDEO | CAROUSEL_ALBUM
    text: str
    media: tuple[PostMedia, ...]
    shortcode: str
    permalink: str
    published_at: dt.datetime
    link_attachment: str | None = None


def status_of(container: Container, now: dt.datetime, containers: Mapping[str, Container]) -> tuple[str, str | None]:
    """(status, error_message) of a container at `now`.

    PUBLISHED once published; EXPIRED 24 h after creation if not; ERROR at once for a failed
    download; IN_PROGRESS until its processing time has passed (forever if kept so); then
    its outcome, FINISHED or ERROR. A carousel is also IN_PROGRESS while an item is, ERROR
    with an item's error, and EXPIRED when an item expired.
    """
    if container.published_id is not None:
        return PUBLISHED, None
    if container.forced_expired or now >= container.created_at + CONTAINER_TTL:
        return EXPIRED, None
    if container.failed_download:
        return ERROR, container.error_message
    if container.ready_at is None or now < container.ready_at:
        return IN_PROGRESS, None
    if container.error_message is not None:
        return ERROR, container.error_message
    items = [status_of(containers[i], now, containers) for i in container.children]
    for status, message in items:
        if status in (ERROR, EXPIRED):
            return status, message
    if any(status != FINISHED for status, _ in items):
        return IN_PROGRESS, None
    return FINISHED, None


def view(container: Container, now: dt.datetime, containers: Mapping[str, Container]) -> ContainerView:
    status, message = status_of(container, now, containers)
    return ContainerView(container.id, container.user_id, container.media_type, status, message, container.text,
                         container.media_url, container.is_carousel_item, container.children,
                         container.created_at, container.published_id)


def shortcode(media_id: str) -> str:
    """An 11-character code like Threads' (C9abc...), derived from the id so it is unique."""
    return base64.urlsafe_b64encode(int(media_id).to_bytes(8, "big")).decode("ascii").rstrip("=")
