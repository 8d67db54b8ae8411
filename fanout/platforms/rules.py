"""What each platform takes, as one table: caption caps, the media one post may carry, and
what each media file may be once fetched (`MediaLimits`, checked by fanout/outbound/media_fetch.py).

The API turns away media that the request alone shows a platform cannot take (docs/decisions.md#media:
422 `unsupported_media_for_platform`) and fails a target whose caption is over its
platform's cap (`caption_too_long`); the publishing adapters and emulators read the same
table. Numbers and formats, and how sure we are of each, are in docs/platforms.md.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from urllib.parse import unquote, urlsplit

from ..media import MB, VIDEO_FORMATS, MediaLimits

from .text import (
    hashtag_count,
    instagram_length,
    link_count,
    mention_count,
    threads_length,
    utf16_len,
    x_weighted_length,
)

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


RULES: dict[str, PlatformRules] = {  # one entry per name in PLATFORMS
    rules.platform: rules
    for rules in (
        PlatformRules(
            platform="instagram",
            # docs/platforms.md#instagram: "Maximum 2200 characters, 30 hashtags, and 20 @ tags";
            # the unit is [U]: code points after NFC, our choice.
            caption_limit=2200,
            caption_length=instagram_length,
            caption_unit="",
            max_hashtags=30,
            max_mentions=20,
            max_links=None,
            text_only=False,
            # "JPEG is the only image format supported" (MPO and JPS named as not supported);
            # Reels: "MOV or MP4".
            image_extensions=JPEG,
            video_extensions=MP4 | MOV,
            # A single image or Reel, or a carousel of 2-10 "images and/or videos".
            max_items=10,
            max_images=10,
            max_videos=10,
            mixed=True,
            media_limits=MediaLimits(
                platform="instagram",
                image_formats=frozenset({"jpeg"}),  # an MPO (multi-picture JPEG) is refused
                video_formats=frozenset({"mp4", "mov"}),
                image_max_bytes=8 * MB,
                # Reels: 300 MB, where older copies of the page say 1 GB [CONFLICT]: the smaller.
                video_max_bytes=300 * MB,
                min_aspect=Fraction(4, 5),
                max_aspect=Fraction(191, 100),
                min_seconds=3,
                max_seconds=15 * 60,
            ),
        ),
        PlatformRules(
            platform="threads",
            caption_limit=500,
            caption_length=threads_length,
            caption_unit=" (an emoji counts its UTF-8 bytes)",
            max_hashtags=None,
            max_mentions=None,
            max_links=5,  # docs/platforms.md#threads: "at most 5 unique links" [C]
            text_only=True,
            image_extensions=JPEG | {"png"},  # docs/platforms.md#threads: "JPEG and PNG"
            video_extensions=MP4 | MOV,  # "MOV/MP4"
            # single post, or a carousel of 2-20 "images, videos, or a mix".
            max_items=20,
            max_images=20,
            max_videos=20,
            mixed=True,
            media_limits=MediaLimits(
                platform="threads",
                image_formats=frozenset({"jpeg", "mpo", "png"}),
                video_formats=frozenset({"mp4", "mov"}),
                image_max_bytes=8 * MB,
                video_max_bytes=1000 * MB,
                # "aspect-ratio limit 10:1": either way round.
                min_aspect=Fraction(1, 10),
                max_aspect=Fraction(10),
                max_seconds=5 * 60,  # "> 0 s": no video has a duration of 0 (fanout/media.py)
            ),
        ),
        PlatformRules(
            platform="tiktok",
            # docs/platforms.md#tiktok: a video's `title` is at most 2200 UTF-16 units [C]. A photo post has a
            # `title` of 90 and a `description` of 4000 [S]: the caption goes to the
            # description there, so the same 2200 cap (docs/decisions.md#captions) always fits it, and the
            # 90-unit photo title is never filled from the caption.
            caption_limit=2200,
            caption_length=utf16_len,
            caption_unit=" in UTF-16 code units",
            max_hashtags=None,
            max_mentions=None,
            max_links=None,
            text_only=False,
            # photos "JPEG or WEBP (PNG not accepted on photo posts)" [S];
            # video "MP4 (recommended), WebM, MOV".
            image_extensions=JPEG | {"webp"},
            video_extensions=MP4 | MOV | {"webm"},
            # one video, or up to 35 photos; "photos and videos cannot be mixed" [S].
            max_items=35,
            max_images=35,
            max_videos=1,
            mixed=False,
            media_limits=MediaLimits(
                platform="tiktok",
                image_formats=frozenset({"jpeg", "mpo", "webp"}),
                video_formats=frozenset({"mp4", "mov", "webm"}),
                image_max_bytes=20 * MB,  # [S]; "<= 1080p" [S] is left to TikTok
                video_max_bytes=4000 * MB,
                # 3 s [S] to 10 min; the creator's own maximum (creator_info's
                # max_video_post_duration_sec) narrows it at publish time.
                min_seconds=3,
                max_seconds=10 * 60,
            ),
            image_noun="photo",
        ),
        PlatformRules(
            platform="x",
            # docs/platforms.md#x: twitter-text v3 weighted length; the longer limit of X Premium is [U] and
            # not assumed.
            caption_limit=280,
            caption_length=x_weighted_length,
            caption_unit=" as X counts them (a URL 23, CJK and emoji 2)",
            max_hashtags=None,
            max_mentions=None,
            max_links=None,
            text_only=True,
            # "JPG, PNG, GIF, WEBP".
            image_extensions=JPEG | {"png", "gif", "webp"},
            # X names no video container, so every video extension passes here and X judges
            # the file. A .gif may be declared a video too: X's "1 animated GIF" takes a post
            # alone, as a video does. Whether a GIF sent as an image is animated (and so may
            # not join other images) only fetching tells.
            video_extensions=KNOWN_VIDEO | {"gif"},
            # "up to 4 photos, or 1 animated GIF, or 1 video", never together.
            max_items=4,
            max_images=4,
            max_videos=1,
            mixed=False,
            media_limits=MediaLimits(
                platform="x",
                image_formats=frozenset({"jpeg", "mpo", "png", "gif", "webp"}),
                # Any video container (X judges the codec), and a GIF declared a video.
                video_formats=VIDEO_FORMATS | {"gif"},
                image_max_bytes=5 * MB,
                animated_max_bytes=15 * MB,
                video_max_bytes=512 * MB,
                min_seconds=0.5,
                max_seconds=140,
            ),
        ),
    )
}


def caption_problem(platform: str, caption: str) -> str | None:
    """Why `caption` is over `platform`'s caps, or None if it is within them."""
    rules = RULES[platform]
    length = rules.caption_length(caption)
    if length > rules.caption_limit:
        return f"caption is {length} characters{rules.caption_unit}; {platform} allows {rules.caption_limit}"
    for cap, count, what in (
        (rules.max_hashtags, hashtag_count, "hashtags"),
        (rules.max_mentions, mention_count, "@mentions"),
        (rules.max_links, link_count, "distinct links"),
    ):
        if cap is not None and (found := count(caption)) > cap:
            return f"caption has {found} {what}; {platform} allows {cap}"
    return None


def media_problem(platform: str, media: list[dict] | None) -> str | None:
    """Why `platform` cannot take `media` ({"url", "type"} items), as far as the request
    alone shows; None if nothing is wrong with it before fetching."""
    rules = RULES[platform]
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
