"""Fetching one media URL through the guard and reading what the file is
(docs/platforms.md#media-files; README "Media checks").

`inspect` says what the file at a URL is, or raises `MediaProblem`; `fetch` does the same
and hands back the file as well, for adapters that upload the bytes themselves (X, TikTok
FILE_UPLOAD). Both take the outbound client and the platform's limits as parameters.

- The body goes through `Outbound.stream`: public addresses only, redirects followed by the
  guard hop by hop, one total deadline. It is written in chunks to a spooled temporary file
  (in memory up to `SPOOL_BYTES`, then on disk), never held whole.
- The format is sniffed from the first bytes as they arrive (filetype), never from the
  name or Content-Type: a format the platform does not take stops the download there, and
  from then on the cap is that format's. The byte cap is enforced while streaming.
- Images are opened with Pillow, which reads the header only (size, frame count); nothing
  is decoded. Pillow's decompression-bomb check refuses absurd pixel counts.
- MP4/MOV durations come from the moov atom (mutagen), without decoding.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import IO
from urllib.parse import urlsplit

import filetype
import mutagen.mp4
from PIL import Image

from ..media import (
    FORMATS,
    TIMED_FORMATS,
    Kind,
    MediaProblem,
    MediaInfo,
    MediaLimits,
    download_failed,
    format_problem,
    problem,
    size_problem,
    unsupported,
)
from .client import Outbound, OutboundError

SPOOL_BYTES = 1024 * 1024  # kept in memory below this; larger files roll over to disk
SNIFF_BYTES = 8192  # what filetype reads; an ISO BMFF ftyp box or a JPEG marker fits easily
MAX_PATH_IN_MESSAGES = 80

# filetype's extension -> our format name; every other answer (PDF, ZIP, MP3...) is no media.
_SNIFFED = {
    "jpg": "jpeg", "png": "png", "apng": "png", "gif": "gif", "webp": "webp", "heic": "heic",
    "avif": "avif", "bmp": "bmp", "tif": "tiff", "mp4": "mp4", "m4v": "mp4", "mov": "mov",
    "webm": "webm", "mkv": "mkv", "avi": "avi", "wmv": "wmv", "flv": "flv", "mpg": "mpeg",
    "3gp": "3gp",
}
# The Pillow decoders an image format may be opened with: no other plugin ever parses it.
_PILLOW = {"jpeg": ["JPEG"], "png": ["PNG"], "gif": ["GIF"], "webp": ["WEBP"], "bmp": ["BMP"], "tiff": ["TIFF"]}


@dataclass
class FetchedMedia:
    """A fetched media file: what it is, and the file itself at offset 0 (temporary: gone on
    `close`). A context manager; the caller closes it."""

    info: MediaInfo
    file: IO[bytes]

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> FetchedMedia:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def inspect(outbound: Outbound, url: str, limits: MediaLimits, kind: Kind, *,
            label: str = "media item") -> MediaInfo:
    """What the file at `url` is, if the platform of `limits` takes it as `kind`; else
    MediaProblem. `label` names the item in messages (e.g. "media[2]")."""
    with fetch(outbound, url, limits, kind, label=label) as media:
        return media.info


def fetch(outbound: Outbound, url: str, limits: MediaLimits, kind: Kind, *, label: str = "media item",
          directory: str | None = None) -> FetchedMedia:
    """`inspect`, keeping the file: spooled in memory up to SPOOL_BYTES, then on disk in
    `directory` (default: the system's temporary directory)."""
    where = f"{label} ({describe(url)})"
    file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, dir=directory)
    try:
        spool = _Spool(file, limits, kind, where)
        try:
            response = outbound.stream(url, spool, limits.max_bytes(kind))
        except OutboundError as e:
            if e.kind == "too_large":
                raise unsupported(where, size_problem(limits, kind, None, spool.format) or e.message) from None
            raise download_failed(where, e.message) from None
        if response.status != 200:
            raise download_failed(where, f"the server answered HTTP {response.status}")
        spool.finish()
        info = _read(file, url, spool, where)
        found = problem(limits, kind, info)
        if found:
            raise unsupported(where, found)
        file.seek(0)
        return FetchedMedia(info, file)
    except BaseException:
        file.close()
        raise


def sniff(head: bytes) -> str | None:
    """The format the first bytes of a file show (a name in FORMATS), or None."""
    guessed = filetype.guess(head)
    return None if guessed is None else _SNIFFED.get(guessed.extension)


def describe(url: str) -> str:
    """The URL as messages may show it: host and path, never query or fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "an invalid URL"
    path = parts.path if len(parts.path) <= MAX_PATH_IN_MESSAGES else parts.path[:MAX_PATH_IN_MESSAGES] + "…"
    return f"{host}{path}"


class _Spool:
    """Where the body is written: sniffs the format from the first bytes and holds the
    download to that format's byte cap, raising MediaProblem at once when either fails."""

    def __init__(self, file: IO[bytes], limits: MediaLimits, kind: Kind, where: str) -> None:
        self.file = file
        self.limits = limits
        self.kind = kind
        self.where = where
        self.size = 0
        self.head = bytearray()
        self.sniffed = False
        self.format: str | None = None

    def write(self, chunk: bytes) -> int:
        if not self.sniffed:
            self.head += chunk[: SNIFF_BYTES - len(self.head)]
            if len(self.head) >= SNIFF_BYTES:
                self._sniff()
        self.size += len(chunk)
        if self.size > self.limits.max_bytes(self.kind, self.format):
            raise unsupported(self.where, size_problem(self.limits, self.kind, None, self.format) or "")
        return self.file.write(chunk)

    def finish(self) -> None:
        """The download is complete: sniff a file shorter than SNIFF_BYTES."""
        if not self.sniffed:
            self._sniff()

    def _sniff(self) -> None:
        self.sniffed = True
        self.format = sniff(bytes(self.head))
        found = format_problem(self.limits, self.kind, self.format)
        if found:
            raise unsupported(self.where, found)


def _read(file: IO[bytes], url: str, spool: _Spool, where: str) -> MediaInfo:
    format = spool.format
    assert format is not None  # _sniff refused the download otherwise
    found = FORMATS[format]
    width = height = None
    animated = False
    duration = None
    if found.kind == "image":
        format, width, height, animated = _image_header(file, format, where)
    elif format in TIMED_FORMATS:
        duration = _duration(file, format, where)
    return MediaInfo(url=url, kind=found.kind, format=format, mime=FORMATS[format].mime, size=spool.size,
                     width=width, height=height, animated=animated, duration=duration)


def _image_header(file: IO[bytes], format: str, where: str) -> tuple[str, int | None, int | None, bool]:
    """(format, width, height, animated) from the header; an MPO is told from a JPEG here."""
    decoders = _PILLOW.get(format)
    if decoders is None:
        return format, None, None, False  # no platform takes it: format_problem refused it already
    file.seek(0)
    try:
        with Image.open(file, formats=decoders) as image:
            # Image.open reads the header only; `is_animated` seeks to a second frame's
            # header without decoding pixels.
            width, height = image.size
            animated = bool(getattr(image, "is_animated", False))
            if image.format == "MPO":
                format = "mpo"
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        # The warning is raised only where warnings are errors (tests); elsewhere Pillow
        # logs it and the header's size is then checked like any other.
        raise unsupported(where, f"its header claims more than {Image.MAX_IMAGE_PIXELS} pixels") from None
    except Exception:
        # A parser of untrusted bytes may raise anything on a malformed file.
        raise unsupported(where, f"it is not a readable {FORMATS[format].label} file") from None
    if width * height > (Image.MAX_IMAGE_PIXELS or width * height):
        raise unsupported(where, f"it is {width}x{height}, more than {Image.MAX_IMAGE_PIXELS} pixels")
    return format, width, height, animated


def _duration(file: IO[bytes], format: str, where: str) -> float:
    """Seconds, from the moov atom: mutagen's length, the first sound track's, else the
    movie header's (the two agree in the videos platforms take)."""
    file.seek(0)
    try:
        return float(mutagen.mp4.MP4(file).info.length)
    except Exception:
        raise unsupported(where, f"its {FORMATS[format].label} structure has no readable duration (moov atom)") from None


__all__ = ["FetchedMedia", "MediaProblem", "describe", "fetch", "inspect", "sniff"]
