"""The Threads emulator's rules for what a container may be, and what its media must be
(tests/emulators/README.md#threads)."""
from __future__ import annotations

import datetime as dt

from fanout.platforms.text import link_count, threads_length

from . import media
from .graph import GraphError, graph_time
from .threads_state import (
    ERROR,
    ERROR_MESSAGES,
    EXPIRED,
    FINISHED,
    IN_PROGRESS,
    Container,
    Post,
)

TEXT_LIMIT, LINK_LIMIT = 500, 5
MIN_ITEMS, MAX_ITEMS = 2, 20
IMAGE_LIMIT = 8 * 1024 * 1024  # "8 MB"; read as MiB, as Instagram states it
VIDEO_LIMIT = 1024 ** 3
REPLY_CONTROLS = ("everyone", "accounts_you_follow", "mentioned_only", "parent_post_author_only", "followers_only")


def param_error(message: str) -> GraphError:
    return GraphError(message, code=100, type="THApiException")


def check_params(p: dict, media_type: str, is_item: bool) -> None:
    if is_item and media_type not in ("IMAGE", "VIDEO"):
        raise param_error("Only IMAGE and VIDEO containers can be carousel items.")
    if media_type == "TEXT" and not p.get("text"):
        raise param_error("The parameter text is required for TEXT posts.")
    if p.get("link_attachment") and media_type != "TEXT":
        raise param_error("Param link_attachment is only allowed on TEXT posts.")
    if p.get("reply_control") and p["reply_control"] not in REPLY_CONTROLS:
        raise param_error(f"Param reply_control must be one of {{{', '.join(REPLY_CONTROLS)}}}")
    tag = p.get("topic_tag")
    if tag is not None and not (1 <= len(tag) <= 50 and "." not in tag and "&" not in tag):
        raise param_error("Param topic_tag must be 1 to 50 characters, without '.' or '&'.")


def check_text(text: str, link_attachment: str | None) -> None:
    if threads_length(text) > TEXT_LIMIT:
        raise param_error(f"Param text must be at most {TEXT_LIMIT} characters long.")
    if link_count(" ".join(filter(None, (text, link_attachment)))) > LINK_LIMIT:
        raise GraphError(f"THREADS_API__LINK_LIMIT_EXCEEDED: a post may contain at most {LINK_LIMIT} links.",
                         code=100, type="THApiException", error_user_title="Link limit exceeded",
                         error_user_msg=f"Posts can contain at most {LINK_LIMIT} links.")


def fetch_image(url: str) -> None:
    """Fetches an image as Threads does at creation: failures are errors of the call."""
    fetched = media.fetch(url, limit=IMAGE_LIMIT)
    if not fetched.ok:
        raise GraphError(f"The media could not be fetched from this URI: {url}", code=9004, subcode=2207052,
                         error_user_title="Media download has failed.",
                         error_user_msg="The media could not be fetched from this URI.")
    if fetched.kind not in ("jpeg", "png"):
        raise GraphError(f"The image format {fetched.kind or 'unknown'} is not supported. Supported formats are: "
                         "JPEG, PNG.", code=36001, subcode=2207005)
    if fetched.size > IMAGE_LIMIT:
        raise GraphError("The image is too large to download. It should be less than 8 MB.", code=36000,
                         subcode=2207004)


def fetch_video(url: str) -> str | None:
    """Fetches a video: what goes wrong shows on the container (status ERROR), not the call."""
    fetched = media.fetch(url, limit=VIDEO_LIMIT)
    if not fetched.ok:
        return "FAILED_DOWNLOADING_VIDEO"
    if fetched.kind not in ("mp4", "mov") or fetched.size > VIDEO_LIMIT:
        return "FAILED_PROCESSING_VIDEO"
    return None


def checked_outcome(status: str, error_message: str | None) -> tuple[str, str | None]:
    status = status.upper()
    if status not in (IN_PROGRESS, FINISHED, ERROR, EXPIRED):
        raise ValueError(f"a container can be made IN_PROGRESS, FINISHED, ERROR or EXPIRED, not {status}")
    if status == ERROR:
        error_message = error_message or "UNKNOWN"
        if error_message not in ERROR_MESSAGES:
            raise ValueError(f"error_message is one of {ERROR_MESSAGES}")
        return status, error_message
    return status, None


def apply_outcome(container: Container, status: str, error_message: str | None, now: dt.datetime | None) -> None:
    """Make `container` end in `status`; `now` given: a processing time already passed."""
    container.failed_download = False
    container.error_message = error_message if status == ERROR else None
    container.forced_expired = status == EXPIRED
    if status == IN_PROGRESS:
        container.ready_at = None
    elif now is not None:
        container.ready_at = now


def media_fields(post: Post, object_id: str) -> dict:
    """A post's fields, or one of its carousel items' (`object_id`)."""
    item = next((m for m in post.media if m.id == object_id and object_id != post.id), None)
    if item is not None:
        return {"id": lambda: item.id, "media_product_type": lambda: "THREADS", "media_type": lambda: item.media_type,
                "media_url": lambda: item.url, "permalink": lambda: post.permalink,
                "owner": lambda: {"id": post.user_id}, "username": lambda: post.username,
                "timestamp": lambda: graph_time(post.published_at), "shortcode": lambda: post.shortcode,
                "is_quote_post": lambda: False}
    return {
        "id": lambda: post.id, "media_product_type": lambda: "THREADS", "media_type": lambda: post.media_type,
        "media_url": lambda: post.media[0].url if post.media and post.media_type != "CAROUSEL_ALBUM" else None,
        "permalink": lambda: post.permalink, "owner": lambda: {"id": post.user_id},
        "username": lambda: post.username, "text": lambda: post.text or None,
        "timestamp": lambda: graph_time(post.published_at), "shortcode": lambda: post.shortcode,
        "is_quote_post": lambda: False, "link_attachment_url": lambda: post.link_attachment,
        "children": lambda: {"data": [{"id": m.id} for m in post.media]} if post.media_type == "CAROUSEL_ALBUM"
        else None,
    }
