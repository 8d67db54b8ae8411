"""What a platform takes, as one shape (each package's rules.py fills it in): caption caps, the media one post may carry, and
what each media file may be once fetched (`MediaLimits`, checked by fanout/outbound/media_fetch.py).

The API turns away media that the request alone shows a platform cannot take (docs/decisions.md#media:
422 `unsupported_media_for_platform`) and fails a target whose caption is over its
platform's cap (`caption_too_long`); the publishing adapters and emulators read the same
table. Numbers and formats, and how sure we are of each, are in docs/platforms.md.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from ..media import MediaLimits

from .text import hashtag_count, link_count, mention_count

JPEG = frozenset({"jpg", "jpeg", "jpe", "jfif"})
MP4 = frozenset({"mp4", "m4v"})  # .m4v is Apple's name for the same MPEG-4 Part 14 container
MOV = frozenset({"mov"})

# Extensions known to name media files. Any other (".php", ".v2", or none at all) says
# nothing about what the URL serves, so only fetching it can tell: never a problem here.
KNOWN_IMAGE = JPEG | {"png", "gif", "webp", "heic", "heif", "avif", "bmp", "tif", "tiff", "svg", "ico",
                      "jxl", "jp2", "mpo", "jps"}
KNOWN_VIDEO = MP4 | MOV | {"webm", "avi", "mkv", "wmv", "flv", "mpeg", "mpg", "3gp", "3g2", "ogv",
                           "m2ts", "mts", "f4v", "qt"}
KNOWN_AUDIO = frozenset({"mp3", "m4a", "aac", "wav", "flac", "ogg", "oga", "opus", "wma", "aiff"})
KNOWN_MEDIA = KNOWN_IMAGE | KNOWN_VIDEO | KNOWN_AUDIO


@dataclass(frozen=True)
class PlatformRules:
    """One platform's caption and media rules.

    Media counts are the maxima only: a post of one item is a single post and any post of
    more is a carousel, so the carousels' minimum of two needs no field of its own.
    """

    platform: str
    caption_limit: int
    caption_length: Callable[[str], int]
    caption_unit: str  # how `caption_length` counts, for messages ("" for plain characters)
    max_hashtags: int | None
    max_mentions: int | None
    max_links: int | None  # distinct links in the caption
    text_only: bool  # may a post have no media at all
    image_extensions: frozenset[str]  # empty if the platform never takes images
    video_extensions: frozenset[str]
    max_items: int  # media items in one post, images and videos together
    max_images: int
    max_videos: int
    mixed: bool  # may one post carry images and videos together
    media_limits: MediaLimits  # what each file may be, known only once it is fetched
    image_noun: str = "image"  # the platform's own word, for messages (TikTok posts "photos")
    # A first comment's caps, when the platform's comment is not a post of its own (a reply
    # on X and Threads is a post, under the caption's caps): Instagram's comments.
    comment_cap: "TextCap | None" = None
    # The options (openapi.yaml, `<Platform>Options`) that this content cannot take, as
    # (target error code, message), or None: each package's rules.py (fanout/content.py).
    options_problem: Callable[..., "tuple[str, str] | None"] | None = None

    @property
    def comment(self) -> "TextCap":
        """What a first comment may be."""
        return self.comment_cap or TextCap(self.caption_limit, self.caption_length, self.caption_unit,
                                           self.max_hashtags, self.max_mentions, self.max_links)


@dataclass(frozen=True)
class TextCap:
    """A text's caps: its length as the platform counts it, and what it may hold."""

    limit: int
    length: Callable[[str], int]
    unit: str = ""
    max_hashtags: int | None = None
    max_mentions: int | None = None
    max_links: int | None = None


def caption_problem(platform: str, caption: str, what: str = "caption") -> str | None:
    """Why `caption` is over `platform`'s caps, or None if it is within them. `what` names
    the text in the message (a thread part's caption: `thread[0].caption`)."""
    rules = rules_of(platform)
    cap = TextCap(rules.caption_limit, rules.caption_length, rules.caption_unit, rules.max_hashtags,
                  rules.max_mentions, rules.max_links)
    return text_problem(platform, caption, cap, what)


def comment_problem(platform: str, comment: str) -> str | None:
    """Why a first comment is over `platform`'s caps for one, or None."""
    return text_problem(platform, comment, rules_of(platform).comment, "first_comment", " in a comment")


def text_problem(platform: str, text: str, cap: TextCap, what: str, where: str = "") -> str | None:
    length = cap.length(text)
    if length > cap.limit:
        return f"{what} is {length} characters{cap.unit}; {platform} allows {cap.limit}{where}"
    for most, count, noun in (
        (cap.max_hashtags, hashtag_count, "hashtags"),
        (cap.max_mentions, mention_count, "@mentions"),
        (cap.max_links, link_count, "distinct links"),
    ):
        if most is not None and (found := count(text)) > most:
            return f"{what} has {found} {noun}; {platform} allows {most}{where}"
    return None


def media_problem(platform: str, media: list[dict] | None) -> str | None:
    """Why `platform` cannot take `media` ({"url", "type"} items), as far as the request
    alone shows; None if nothing is wrong with it before fetching."""
    rules = rules_of(platform)
    if not media:
        if rules.text_only:
            return None
        return f"{platform}: a text-only post is not possible; {platform} needs {_choices(rules)}"
    for index, item in enumerate(media):
        problem = _item_problem(rules, item)
        if problem:
            return _at(platform, media, index, problem)
    images = [i for i, item in enumerate(media) if item["type"] == "image"]
    videos = [i for i, item in enumerate(media) if item["type"] == "video"]
    if images and videos and not rules.mixed:
        first_other = next(i for i, item in enumerate(media) if item["type"] != media[0]["type"])
        problem = f"{platform} does not mix images and videos in one post; it takes {_choices(rules)}"
        return _at(platform, media, first_other, problem)
    for indices, cap, noun in ((images, rules.max_images, rules.image_noun), (videos, rules.max_videos, "video")):
        if len(indices) > cap:
            return _at(platform, media, indices[cap], f"{platform} takes at most {_count(cap, noun)}")
    if len(media) > rules.max_items:
        problem = f"{platform} takes at most {rules.max_items} media items in one post"
        return _at(platform, media, rules.max_items, problem)
    return None


def url_extension(url: str) -> str | None:
    """Lower-case extension of the URL path's last segment (query and fragment ignored)."""
    try:
        path = urlsplit(url).path
    except ValueError:  # e.g. an unclosed IPv6 bracket; the schema judges the URL itself
        return None
    name = unquote(path.rsplit("/", 1)[-1]).split(";", 1)[0]  # ";" starts path parameters
    _, dot, extension = name.rpartition(".")
    if not dot or not (extension.isascii() and extension.isalnum()):
        return None
    return extension.lower()


def _item_problem(rules: PlatformRules, item: dict) -> str | None:
    kind = item["type"]
    extension = url_extension(item["url"])
    if extension is None or extension not in KNOWN_MEDIA:
        return None
    accepted = rules.image_extensions if kind == "image" else rules.video_extensions
    if extension in accepted:
        return None
    if kind == "video" and extension in KNOWN_IMAGE - KNOWN_VIDEO:
        return f".{extension} is an image file, but the item's type is video"
    if kind == "image" and extension in KNOWN_VIDEO - KNOWN_IMAGE:
        return f".{extension} is a video file, but the item's type is image"
    noun = rules.image_noun if kind == "image" else "video"
    formats = ", ".join(f".{e}" for e in sorted(accepted))
    return f"{rules.platform} does not take .{extension} {noun}s (it takes {formats})"


def _at(platform: str, media: list[dict], index: int, problem: str) -> str:
    return f"{platform}: media[{index}] ({media[index]['url']}): {problem}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _choices(rules: PlatformRules) -> str:
    """What a post to this platform may carry, e.g. "a video or 1-35 photos"."""
    noun = rules.image_noun
    article = "an" if noun[0] in "aeiou" else "a"
    if rules.mixed:
        return f"{article} {noun} or a video, or a carousel of 2-{rules.max_items} of them"
    videos = "a video" if rules.max_videos == 1 else f"1-{rules.max_videos} videos"
    return f"{videos} or 1-{rules.max_images} {noun}s"


def rules_of(platform: str) -> PlatformRules:
    # The registry imports the packages, whose rules import this module: looked up late.
    from . import REGISTRY
    return REGISTRY[platform].rules
