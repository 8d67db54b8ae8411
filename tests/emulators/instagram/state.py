"""What the Instagram emulator remembers beyond the shared container machine
(graph/publishing.py): its users and posts, and the texts a container's `status` shows
(tests/emulators/README.md#instagram)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..graph.publishing import EXPIRED, FINISHED, IN_PROGRESS, PUBLISHED, PostMedia, PublishedPost

ACCOUNT_TYPES = ("BUSINESS", "MEDIA_CREATOR", "PERSONAL")
# Keys of processing_seconds: a Reel and a carousel's video item are both a VIDEO.
MEDIA_TYPES = ("IMAGE", "VIDEO", "CAROUSEL")

# A container's `status` beside its `status_code` [U]: an ERROR's is "Error: ... error code <subcode>".
STATUS_TEXTS = {
    IN_PROGRESS: "In Progress: Media is still being processed.",
    FINISHED: "Finished: Media has been uploaded and it is ready to be published.",
    PUBLISHED: "Published: Media has been successfully published.",
    EXPIRED: "Expired: Media has not been published within 24 hours.",
}


def upload_failed(subcode: int | str) -> str:
    """The `status` of a container in ERROR, carrying the subcode clients look for."""
    return f"Error: Media upload has failed with error code {subcode}"


@dataclass(frozen=True)
class InstagramUser:
    id: str  # numeric, as Instagram user ids are
    username: str
    account_type: str = "BUSINESS"  # BUSINESS | MEDIA_CREATOR | PERSONAL

    def __post_init__(self):
        if self.account_type not in ACCOUNT_TYPES:
            raise ValueError(f"account_type is one of {ACCOUNT_TYPES}")


@dataclass(frozen=True)
class Post(PublishedPost):
    """A published image, Reel or carousel album; `media_type` is IMAGE, VIDEO or CAROUSEL_ALBUM."""

    media_product_type: str  # FEED | REELS
    caption: str
    media_url: str | None  # a single image or Reel's
    children: tuple[PostMedia, ...]  # a carousel's items, each with its own media id
    # The container's options, as sent: share_to_feed, cover_url, thumb_offset,
    # collaborators (a list of usernames), location_id.
    options: dict = field(default_factory=dict)

    @property
    def media(self) -> tuple[PostMedia, ...]:
        """Every media object of the post: its items, or itself."""
        return self.children or (PostMedia(self.id, self.media_type, self.media_url),)


@dataclass(frozen=True)
class Comment:
    """A comment on a published media."""

    id: str
    media_id: str
    user_id: str
    username: str
    text: str
    created_at: dt.datetime


__all__ = ["ACCOUNT_TYPES", "MEDIA_TYPES", "STATUS_TEXTS", "Comment", "InstagramUser", "Post", "upload_failed"]
