"""The Instagram emulator's rules for a caption and for the media it fetches, and what a
post's fields are (tests/emulators/README.md#instagram)."""
from __future__ import annotations

from ..graph import publishing
from ..graph import GraphError, graph_time
from ..graph.publishing import ERROR, forcible
from .state import Post, upload_failed
from .text import CAPTION_LIMIT, HASHTAG_LIMIT, MENTION_LIMIT, caption_length, hashtags, mentions

# 4:5 to 1.91:1, width to height, both ends taken.
ASPECT = ((4, 5), (191, 100))
# [U] 300 MB (the current copy of Meta's page; older ones say 1 GB), read as MiB.
VIDEO_LIMIT = 300 * 1024 * 1024
DOWNLOAD_FAILED, FORMAT_REFUSED, UNKNOWN_UPLOAD_ERROR = 2207077, 2207026, 2207053


def check_caption(caption: str) -> None:
    """Counted as Instagram documents (text.py), refused at creation."""
    length, tags = caption_length(caption), hashtags(caption)
    if length > CAPTION_LIMIT:
        raise GraphError(f"The submitted image's caption was {length} characters long. The maximum number of "
                         f"characters permitted for a caption is {CAPTION_LIMIT}. Please shorten the caption.",
                         code=36004, subcode=2207010)
    if tags > HASHTAG_LIMIT:
        raise GraphError(f"The submitted image's caption has {tags} hashtags. The maximum number of hashtags "
                         f"permitted for a caption is {HASHTAG_LIMIT}.", code=36004, subcode=2207010)
    if mentions(caption) > MENTION_LIMIT:
        raise GraphError(f"Cannot use more than {MENTION_LIMIT} tags per created media.", code=100, subcode=2207040)


def fetch_image(url: str) -> None:
    """Fetches an image as Instagram does at creation: JPEG, 8 MiB, 4:5 to 1.91:1, or an
    error of the call."""
    publishing.fetch_image(url, {"jpeg": "JPEG"}, aspect=ASPECT)


def fetch_video(url: str) -> int | None:
    """Fetches a video: the subcode its container's ERROR will carry, or None."""
    return {"download": DOWNLOAD_FAILED, "format": FORMAT_REFUSED, None: None}[
        publishing.video_problem(url, VIDEO_LIMIT)]


def checked_outcome(status_code: str, status: str | int | None) -> tuple[str, str | None]:
    """A forced end: ERROR's `status` is a text, or a subcode made into the usual text."""
    status_code = forcible(status_code)
    if status_code != ERROR:
        return status_code, None
    if status is None or str(status).isdigit():
        return status_code, upload_failed(status or UNKNOWN_UPLOAD_ERROR)
    return status_code, str(status)


def media_fields(post: Post, object_id: str) -> dict:
    """A post's fields, or one of its carousel items' (`object_id`)."""
    common = {"permalink": lambda: post.permalink, "owner": lambda: {"id": post.user_id},
              "username": lambda: post.username, "timestamp": lambda: graph_time(post.published_at),
              "shortcode": lambda: post.shortcode}
    item = next((m for m in post.children if m.id == object_id), None)
    if item is not None:
        return {"id": lambda: item.id, "media_type": lambda: item.media_type, "media_url": lambda: item.url,
                **common}
    return {
        "id": lambda: post.id, "caption": lambda: post.caption or None, "media_type": lambda: post.media_type,
        "media_product_type": lambda: post.media_product_type, "media_url": lambda: post.media_url,
        "children": lambda: {"data": [{"id": m.id} for m in post.children]} if post.children else None,
        "is_comment_enabled": lambda: True, **common,
    }
