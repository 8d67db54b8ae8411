"""The Instagram emulator's rules for a caption and for the media it fetches, and what a
post's fields are (tests/emulators/README.md#instagram)."""
from __future__ import annotations

import json

from ..graph import publishing
from ..graph import GraphError, graph_time
from ..graph.publishing import ERROR, forcible
from .state import Post, upload_failed
from ..text import links
from .text import CAPTION_LIMIT, HASHTAG_LIMIT, MENTION_LIMIT, caption_length, hashtags, mentions

# Comments posted through the API: 300 characters, 4 hashtags, 1 URL (Instagram's rules for
# API comments [U]: the Graph reference states none), counted as captions are.
COMMENT_LIMIT, COMMENT_HASHTAGS, COMMENT_LINKS = 300, 4, 1
REEL_OPTIONS = ("share_to_feed", "cover_url", "thumb_offset")
OPTIONS = (*REEL_OPTIONS, "collaborators", "location_id")
MAX_COLLABORATORS = 3

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


def check_comment(message: str) -> None:
    """A comment's text, refused at creation past Instagram's rules."""
    if not message:
        raise GraphError("(#100) The parameter message is required.", code=100)
    if caption_length(message) > COMMENT_LIMIT:
        raise GraphError(f"(#100) The comment is too long: at most {COMMENT_LIMIT} characters.", code=100)
    if hashtags(message) > COMMENT_HASHTAGS:
        raise GraphError(f"(#100) A comment may contain at most {COMMENT_HASHTAGS} hashtags.", code=100)
    if len({link.lower() for link in links(message)}) > COMMENT_LINKS:
        raise GraphError(f"(#100) A comment may contain at most {COMMENT_LINKS} URL.", code=100)


def container_options(p: dict, media_type: str, is_item: bool, usernames: set[str]) -> dict:
    """The options of a container's creation, checked: a Reel's only on a Reel, none on a
    carousel's items, at most 3 collaborators who are Instagram users, a numeric location."""
    options = {name: p[name] for name in OPTIONS if p.get(name) not in (None, "")}
    for name in options:
        if is_item or (name in REEL_OPTIONS and media_type != "REELS"):
            raise GraphError(f"(#100) Param {name} is not allowed on this media type.", code=100)
    if "share_to_feed" in options:
        if options["share_to_feed"] not in ("true", "false"):
            raise GraphError("(#100) Param share_to_feed must be a boolean.", code=100)
        options["share_to_feed"] = options["share_to_feed"] == "true"
    if "thumb_offset" in options:
        if not options["thumb_offset"].isdigit():
            raise GraphError("(#100) Param thumb_offset must be a non-negative integer.", code=100)
        options["thumb_offset"] = int(options["thumb_offset"])
    if "collaborators" in options:
        try:
            names = json.loads(options["collaborators"])
        except ValueError:
            names = None
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise GraphError("(#100) Param collaborators must be a JSON array of usernames.", code=100)
        if len(names) > MAX_COLLABORATORS:
            raise GraphError(f"(#100) Param collaborators allows at most {MAX_COLLABORATORS} usernames.", code=100)
        unknown = [n for n in names if n not in usernames]
        if unknown:
            raise GraphError(f"(#100) Param collaborators: {unknown[0]} cannot be invited to collaborate.", code=100)
        options["collaborators"] = names
    if "location_id" in options and not options["location_id"].isdigit():
        raise GraphError("(#100) Param location_id is not a valid location.", code=100)
    return options


ALT_TEXT_LIMIT = 1000  # "optional, images only, <=1000 chars" (added 2025-03-24)


def alt_text(p: dict, media_type: str, param_error) -> dict:
    """A container's alt text, checked: on an image only, 1,000 characters at most; {} when none."""
    text = p.get("alt_text")
    if text in (None, ""):
        return {}
    if media_type != "IMAGE":
        raise param_error("Param alt_text is only allowed on images.")
    if len(text) > ALT_TEXT_LIMIT:
        raise param_error(f"Param alt_text must be at most {ALT_TEXT_LIMIT} characters long.")
    return {"alt_text": text}


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


def media_fields(post: Post, object_id: str, comments: int = 0) -> dict:
    """A post's fields, or one of its carousel items' (`object_id`); `comments`: how many it has."""
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
        "is_comment_enabled": lambda: True, "comments_count": lambda: comments, **common,
    }
