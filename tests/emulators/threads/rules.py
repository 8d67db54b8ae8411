"""The Threads emulator's rules for what a container may be, and what its media must be
(tests/emulators/README.md#threads)."""
from __future__ import annotations

from ..graph import publishing
from ..graph import GraphError, graph_time
from ..graph.publishing import ERROR, forcible
from .state import ERROR_MESSAGES, Post
from .text import LINK_LIMIT, TEXT_LIMIT, distinct_links, text_length

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
    if text_length(text) > TEXT_LIMIT:
        raise param_error(f"Param text must be at most {TEXT_LIMIT} characters long.")
    if distinct_links(text, link_attachment) > LINK_LIMIT:
        raise GraphError(f"THREADS_API__LINK_LIMIT_EXCEEDED: a post may contain at most {LINK_LIMIT} links.",
                         code=100, type="THApiException", error_user_title="Link limit exceeded",
                         error_user_msg=f"Posts can contain at most {LINK_LIMIT} links.")


def fetch_image(url: str) -> None:
    """Fetches an image as Threads does at creation: failures are errors of the call."""
    publishing.fetch_image(url, {"jpeg": "JPEG", "png": "PNG"})


def fetch_video(url: str) -> str | None:
    """Fetches a video: what goes wrong shows on the container (status ERROR), not the call."""
    return {"download": "FAILED_DOWNLOADING_VIDEO", "format": "FAILED_PROCESSING_VIDEO", None: None}[
        publishing.video_problem(url, VIDEO_LIMIT)]


def checked_outcome(status: str, error_message: str | None) -> tuple[str, str | None]:
    status = forcible(status)
    if status == ERROR:
        error_message = error_message or "UNKNOWN"
        if error_message not in ERROR_MESSAGES:
            raise ValueError(f"error_message is one of {ERROR_MESSAGES}")
        return status, error_message
    return status, None


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
        "is_quote_post": lambda: post.quote_post_id is not None,
        "quoted_post": lambda: {"id": post.quote_post_id} if post.quote_post_id else None,
        "is_reply": lambda: post.reply_to_id is not None,
        "replied_to": lambda: {"id": post.reply_to_id} if post.reply_to_id else None,
        "root_post": lambda: {"id": post.root_post_id or post.id},
        "topic_tag": lambda: post.topic_tag,
        "link_attachment_url": lambda: post.link_attachment,
        "children": lambda: {"data": [{"id": m.id} for m in post.media]} if post.media_type == "CAROUSEL_ALBUM"
        else None,
    }
