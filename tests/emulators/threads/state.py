"""What the Threads emulator remembers beyond the shared container machine
(graph/publishing.py): its users and posts (tests/emulators/README.md#threads)."""
from __future__ import annotations

from dataclasses import dataclass

from ..graph.publishing import PostMedia, PublishedPost

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
class Post(PublishedPost):
    """A published thread; `media_type` is TEXT_POST, IMAGE, VIDEO or CAROUSEL_ALBUM."""

    text: str
    media: tuple[PostMedia, ...]
    link_attachment: str | None = None
    reply_to_id: str | None = None  # the post it replies to
    root_post_id: str | None = None  # the first post of its reply chain (None: it is one)
    quote_post_id: str | None = None
    reply_control: str | None = None
    topic_tag: str | None = None
