"""What a platform takes of one media file, what a fetched file turned out to be, and the
check of the one against the other (docs/platforms.md#media-files).

Plain values only: each platform's limits are in the table of `fanout/platforms/rules.py`,
and `fanout/outbound/media_fetch.py` fetches a file and reads what it is. This module imports
nothing heavy, so the request rules that read the table stay quick to load.

A failure is one `MediaProblem` carrying the target error code it fails with:
`media_download_failed` (the file could not be fetched) or `unsupported_media_for_platform`
(it was fetched and the platform does not take it).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from .target_errors import DOWNLOAD, UNSUPPORTED

Kind = Literal["image", "video"]
MB = 1_000_000  # platforms write "MB"; decimal is the smaller reading, so the safe one


@dataclass(frozen=True)
class Format:
    """A file format as sniffed from the bytes."""

    name: str  # our id, used in MediaLimits: "jpeg", "mp4"...
    kind: Kind
    mime: str
    label: str  # for messages


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("jpeg", "image", "image/jpeg", "JPEG"),
        # A JPEG carrying several pictures (3D and stereo cameras); Instagram refuses it,
        # and the platforms that take it take it as the JPEG it also is.
        Format("mpo", "image", "image/jpeg", "MPO (multi-picture JPEG)"),
        Format("png", "image", "image/png", "PNG"),
        Format("gif", "image", "image/gif", "GIF"),
        Format("webp", "image", "image/webp", "WebP"),
        Format("heic", "image", "image/heic", "HEIC"),
        Format("avif", "image", "image/avif", "AVIF"),
        Format("bmp", "image", "image/bmp", "BMP"),
        Format("tiff", "image", "image/tiff", "TIFF"),
        Format("mp4", "video", "video/mp4", "MP4"),
        Format("mov", "video", "video/quicktime", "MOV (QuickTime)"),
        Format("webm", "video", "video/webm", "WebM"),
        Format("mkv", "video", "video/x-matroska", "Matroska"),
        Format("avi", "video", "video/x-msvideo", "AVI"),
        Format("wmv", "video", "video/x-ms-wmv", "WMV"),
        Format("flv", "video", "video/x-flv", "FLV"),
        Format("mpeg", "video", "video/mpeg", "MPEG"),
        Format("3gp", "video", "video/3gpp", "3GP"),
    )
}
IMAGE_FORMATS = frozenset(name for name, f in FORMATS.items() if f.kind == "image")
VIDEO_FORMATS = frozenset(name for name, f in FORMATS.items() if f.kind == "video")
# Formats whose duration we read (the moov atom): the rest are judged by the platform.
TIMED_FORMATS = frozenset({"mp4", "mov"})


@dataclass(frozen=True)
class MediaLimits:
    """What one platform takes of a media item, by the kind the post declares it.

    A format's own kind decides which rules apply to the file: a GIF declared a video (X's
    "1 animated GIF") is held to the image rules. Bounds are inclusive; None: no bound.
    """

    platform: str
    image_formats: frozenset[str]  # names in FORMATS accepted for an item declared an image
    video_formats: frozenset[str]  # ... declared a video
    image_max_bytes: int
    video_max_bytes: int
    animated_max_bytes: int | None = None  # an animated image (X: a GIF), else image_max_bytes
    min_aspect: Fraction | None = None  # an image's width / height
    max_aspect: Fraction | None = None
    min_seconds: float | None = None  # a video's duration, where its format tells it
    max_seconds: float | None = None

    def formats(self, kind: Kind) -> frozenset[str]:
        return self.image_formats if kind == "image" else self.video_formats

    def max_bytes(self, kind: Kind, format: str | None = None, animated: bool | None = None) -> int:
        """The byte cap of an item declared `kind`: before the format is known, the largest
        any accepted format may have; an animated image's while it may still be one."""
        if format is None:
            accepted = self.formats(kind)
            return max((self.max_bytes(kind, name) for name in accepted), default=0)
        if FORMATS[format].kind == "video":
            return self.video_max_bytes
        if animated is False or self.animated_max_bytes is None:
            return self.image_max_bytes
        return max(self.image_max_bytes, self.animated_max_bytes)


@dataclass(frozen=True)
class MediaInfo:
    """What a fetched media file is, read from its bytes."""

    url: str
    kind: Kind  # the format's kind (a GIF is an image, whatever it was declared)
    format: str  # a name in FORMATS
    mime: str
    size: int  # bytes
    width: int | None = None  # images
    height: int | None = None
    animated: bool = False  # an image with more than one frame
    duration: float | None = None  # seconds; videos whose format tells it (TIMED_FORMATS)


class MediaProblem(Exception):
    """A media item its target cannot publish; `code` is the target's error code.

    The message names the item and the rule, never the URL's query (it may hold a token).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def download_failed(item: str, reason: str) -> MediaProblem:
    return MediaProblem(DOWNLOAD, f"{item} could not be downloaded: {reason}")


def unsupported(item: str, reason: str) -> MediaProblem:
    return MediaProblem(UNSUPPORTED, f"{item}: {reason}")


def format_problem(limits: MediaLimits, kind: Kind, format: str | None) -> str | None:
    """Why an item declared `kind` whose bytes are `format` (None: not a media format we
    know) is not taken, or None."""
    accepted = limits.formats(kind)
    if format in accepted:
        return None
    takes = _takes(limits, kind)
    if format is None:
        return f"its content is not an image or video format Fanout recognises; {takes}"
    found = FORMATS[format]
    if found.kind != kind:
        return f"it is declared a{'n' if kind == 'image' else ''} {kind} but is {found.label} {found.kind}; {takes}"
    return f"it is {found.label}; {takes}"


def size_problem(limits: MediaLimits, kind: Kind, size: int | None, format: str | None = None,
                 animated: bool | None = None) -> str | None:
    """Why `size` bytes is over the cap, or None. `size` None: the download was stopped
    past the cap, so only "over" is known."""
    cap = limits.max_bytes(kind, format, animated)
    if size is not None and size <= cap:
        return None
    if format is None:
        what = f"{kind}s"
    elif FORMATS[format].kind == "image" and cap != limits.image_max_bytes:
        what = f"animated {FORMATS[format].label} images"
    else:
        what = f"{FORMATS[format].label} {FORMATS[format].kind}s"
    found = f"over {_size(cap)}" if size is None else _size(size)
    return f"it is {found}; {limits.platform} takes {what} up to {_size(cap)}"


def problem(limits: MediaLimits, kind: Kind, info: MediaInfo) -> str | None:
    """Why the platform does not take `info` as an item declared `kind`, or None."""
    found = format_problem(limits, kind, info.format) or size_problem(
        limits, kind, info.size, info.format, info.animated)
    if found:
        return found
    if info.kind == "image" and info.width and info.height:
        aspect = Fraction(info.width, info.height)
        low, high = limits.min_aspect, limits.max_aspect
        if (low is not None and aspect < low) or (high is not None and aspect > high):
            return (f"it is {info.width}x{info.height} pixels, an aspect ratio of {float(aspect):.2f}:1; "
                    f"{limits.platform} takes images from {_ratio(low)} to {_ratio(high)}")
    if info.kind == "video" and info.duration is not None:
        low_s, high_s = limits.min_seconds, limits.max_seconds
        takes = f"{limits.platform} takes videos {_bounds(low_s, high_s)}"
        if info.duration <= 0:
            return f"its duration is 0 s; {takes}"
        if (low_s is not None and info.duration < low_s) or (high_s is not None and info.duration > high_s):
            return f"it is {info.duration:.1f} s long; {takes}"
    return None


def _takes(limits: MediaLimits, kind: Kind) -> str:
    accepted = limits.formats(kind)
    if not accepted:
        return f"{limits.platform} takes no {kind}s"
    # An MPO is a JPEG to every platform that takes it: naming it would only puzzle.
    shown = accepted - {"mpo"} if "jpeg" in accepted else accepted
    labels = sorted(FORMATS[name].label for name in shown)
    return f"{limits.platform} takes {kind}s as {', '.join(labels)}"


def _size(size: int) -> str:
    if size >= MB:
        return f"{size / MB:.1f} MB".replace(".0 MB", " MB")
    return f"{size / 1000:.1f} kB".replace(".0 kB", " kB") if size >= 1000 else f"{size} bytes"


def _ratio(value: Fraction | None) -> str:
    return "any" if value is None else f"{float(value):.2f}:1"


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"of {low:g} s to {high:g} s"
    if high is not None:
        return f"of up to {high:g} s"
    return "of any length" if low is None else f"of at least {low:g} s"
