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
from enum import Enum
from urllib.parse import unquote, urlsplit

from ..media import MediaLimits

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


class Needs(str, Enum):
    """What one post (and each part of a thread) must carry for a platform, its
    `PlatformRules.needs`: judged by fanout/content.py `empty_problem`, and for `MEDIA` by
    `PlatformRules.media_problem` (422), since no media is a media problem there."""

    MEDIA = "media"
    TEXT_OR_MEDIA = "a caption or media"


@dataclass(frozen=True)
class AltText:
    """The alt text a platform takes (openapi.yaml, `MediaItem.alt_text`): for which kinds
    of media item, and its cap in characters (code points), None where only the service's
    own 1,500 applies."""

    kinds: frozenset[str]  # "image", "video"
    limit: int | None = None


@dataclass(frozen=True)
class CountedCap:
    """A cap on things counted in a caption (Instagram's 30 hashtags, Threads' 5 links)."""

    limit: int
    count: Callable[[str], int]
    what: str  # the things counted, for messages ("hashtags")


@dataclass(frozen=True)
class TextCap:
    """A text's caps: its length as the platform counts it, and what it may hold."""

    limit: int
    length: Callable[[str], int]
    unit: str = ""  # how `length` counts, for messages
    counted: tuple[CountedCap, ...] = ()


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
    needs: Needs  # what a post must carry: media, or a caption or media
    image_extensions: frozenset[str]  # empty if the platform never takes images
    video_extensions: frozenset[str]
    max_items: int  # media items in one post, images and videos together
    max_images: int
    max_videos: int
    mixed: bool  # may one post carry images and videos together
    media_limits: MediaLimits  # what each file may be, known only once it is fetched
    image_noun: str = "image"  # the platform's own word, for messages (TikTok posts "photos")
    counted: tuple[CountedCap, ...] = ()  # caps on what a caption holds, beyond its length
    # A first comment's caps, when the platform's comment is not a post of its own (a reply
    # on X and Threads is a post, under the caption's caps): Instagram's comments.
    comment_cap: TextCap | None = None
    # The options (openapi.yaml, `<Platform>Options`) that this content cannot take, as
    # (target error code, message), or None: each package's rules.py (fanout/content.py).
    options_problem: Callable[..., tuple[str, str] | None] | None = None
    # What this platform refuses outright in a content the request shows, though no cap
    # or media rule names it (YouTube's description refuses `<` and `>`, and a video needs
    # a title), as `request_problem(caption, options)` -> a message, or None: 400
    # `validation_error` at upload, on an edit and in a preflight (fanout/content.py).
    request_problem: Callable[..., str | None] | None = None
    alt_text: AltText | None = None  # None: the platform takes no alt text

    def alt_text_of(self, item) -> str | None:
        """The alt text to send with media `item`, or None when it has none or this platform
        takes none for its kind: what each adapter reads (docs/platforms.md#alt-text)."""
        text = item.get("alt_text")
        if not text or self.alt_text is None or item["type"] not in self.alt_text.kinds:
            return None
        return text

    @property
    def text_only(self) -> bool:
        """Whether a post may have no media at all."""
        return self.needs is not Needs.MEDIA

    @property
    def caption(self) -> TextCap:
        """What a caption (and a thread part's) may be."""
        return TextCap(self.caption_limit, self.caption_length, self.caption_unit, self.counted)

    @property
    def comment(self) -> TextCap:
        """What a first comment may be."""
        return self.comment_cap or self.caption

    def caption_problem(self, caption: str, what: str = "caption") -> str | None:
        """Why `caption` is over this platform's caps, or None if it is within them. `what`
        names the text in the message (a thread part's: `thread[0].caption`)."""
        return self.text_problem(caption, self.caption, what)

    def comment_problem(self, comment: str) -> str | None:
        """Why a first comment is over this platform's caps for one, or None."""
        return self.text_problem(comment, self.comment, "first_comment", " in a comment")

    def text_problem(self, text: str, cap: TextCap, what: str, where: str = "") -> str | None:
        length = cap.length(text)
        if length > cap.limit:
            return f"{what} is {length} characters{cap.unit}; {self.platform} allows {cap.limit}{where}"
        for counted in cap.counted:
            if (found := counted.count(text)) > counted.limit:
                return f"{what} has {found} {counted.what}; {self.platform} allows {counted.limit}{where}"
        return None

    def media_problem(self, media: list[dict] | None) -> str | None:
        """Why this platform cannot take `media` ({"url", "type"} items), as far as the
        request alone shows; None if nothing is wrong with it before fetching."""
        platform = self.platform
        if not media:
            if self.text_only:
                return None
            return f"{platform}: a text-only post is not possible; {platform} needs {_choices(self)}"
        for index, item in enumerate(media):
            problem = _item_problem(self, item) or _alt_text_problem(self, item)
            if problem:
                return _at(platform, media, index, problem)
        images = [i for i, item in enumerate(media) if item["type"] == "image"]
        videos = [i for i, item in enumerate(media) if item["type"] == "video"]
        if images and videos and not self.mixed:
            first_other = next(i for i, item in enumerate(media) if item["type"] != media[0]["type"])
            problem = f"{platform} does not mix images and videos in one post; it takes {_choices(self)}"
            return _at(platform, media, first_other, problem)
        for indices, cap, noun in ((images, self.max_images, self.image_noun), (videos, self.max_videos, "video")):
            if len(indices) > cap:
                return _at(platform, media, indices[cap], f"{platform} takes at most {_count(cap, noun)}")
        if len(media) > self.max_items:
            problem = f"{platform} takes at most {self.max_items} media items in one post"
            return _at(platform, media, self.max_items, problem)
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
    known = extension is not None and extension in KNOWN_MEDIA
    accepted = rules.image_extensions if kind == "image" else rules.video_extensions
    if known and extension not in accepted:
        if kind == "video" and extension in KNOWN_IMAGE - KNOWN_VIDEO:
            return f".{extension} is an image file, but the item's type is video"
        if kind == "image" and extension in KNOWN_VIDEO - KNOWN_IMAGE:
            return f".{extension} is a video file, but the item's type is image"
    noun = rules.image_noun if kind == "image" else "video"
    if not accepted:  # a kind the platform never takes, whatever the URL says (YouTube's images)
        return f"{rules.platform} takes no {noun}s; it takes {_choices(rules)}"
    if not known or extension in accepted:
        return None
    formats = ", ".join(f".{e}" for e in sorted(accepted))
    return f"{rules.platform} does not take .{extension} {noun}s (it takes {formats})"


def _alt_text_problem(rules: PlatformRules, item: dict) -> str | None:
    text = rules.alt_text_of(item)
    limit = rules.alt_text.limit if rules.alt_text else None
    if text is None or limit is None or len(text) <= limit:
        return None
    return f"alt_text is {len(text)} characters; {rules.platform} allows {limit}"


def _at(platform: str, media: list[dict], index: int, problem: str) -> str:
    return f"{platform}: media[{index}] ({media[index]['url']}): {problem}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _choices(rules: PlatformRules) -> str:
    """What a post to this platform may carry, e.g. "a video or 1-35 photos" ("a video or an
    image" where one image is the most)."""
    noun = rules.image_noun
    article = "an" if noun[0] in "aeiou" else "a"
    videos = "a video" if rules.max_videos == 1 else f"1-{rules.max_videos} videos"
    if not rules.image_extensions:
        return videos
    if not rules.video_extensions:
        return f"{article} {noun}" if rules.max_images == 1 else f"1-{rules.max_images} {noun}s"
    if rules.mixed:
        return f"{article} {noun} or a video, or a carousel of 2-{rules.max_items} of them"
    images = f"{article} {noun}" if rules.max_images == 1 else f"1-{rules.max_images} {noun}s"
    return f"{videos} or {images}"
