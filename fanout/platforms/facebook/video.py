"""Which video a Facebook post is (docs/platforms.md#facebook): a Reel when the file is one
Facebook takes as a Reel (9:16, at least 540x960, 3 to 90 s [C]), else a Page video.

The picture's size is read from the MP4 (or MOV) itself: the track header (`tkhd`) of its
first video track (`mdia/hdlr` of type `vide`), its width and height swapped when the
track's matrix turns the picture a quarter turn (a phone's portrait video is often stored
landscape). Only the boxes on the way are read: never the media data.
"""
from __future__ import annotations

import struct
from fractions import Fraction
from typing import IO

from ...media import MediaInfo

REEL_ASPECT = Fraction(9, 16)
REEL_TOLERANCE = Fraction(1, 100)  # of the aspect ratio: 1080x1920 and 720x1280 alike, not 4:5
REEL_LEAST = (540, 960)
REEL_SECONDS = (3.0, 90.0)
_HEADER = 8


def frame(file: IO[bytes]) -> tuple[int, int] | None:
    """(width, height) of the picture as shown, or None when the file does not say."""
    try:
        for kind, start, end in _boxes(file, 0, _size(file)):
            if kind == b"moov":
                for inner, s, e in _boxes(file, start, end):
                    if inner == b"trak" and (found := _track(file, s, e)):
                        return found
    except (OSError, struct.error, ValueError):
        return None
    finally:
        file.seek(0)
    return None


def is_reel(info: MediaInfo, picture: tuple[int, int] | None) -> bool:
    """Whether a video of `info` showing `picture` goes to Facebook as a Reel."""
    if picture is None or info.duration is None:
        return False
    width, height = picture
    if width < REEL_LEAST[0] or height < REEL_LEAST[1]:
        return False
    low, high = REEL_SECONDS
    return abs(Fraction(width, height) - REEL_ASPECT) <= REEL_ASPECT * REEL_TOLERANCE and low <= info.duration <= high


def _size(file: IO[bytes]) -> int:
    file.seek(0, 2)
    return file.tell()


def _boxes(file: IO[bytes], start: int, end: int):
    """(type, payload start, payload end) of the boxes between `start` and `end`."""
    at = start
    while at + _HEADER <= end:
        file.seek(at)
        size, kind = struct.unpack(">I4s", file.read(_HEADER))
        head = _HEADER
        if size == 1:
            size, head = struct.unpack(">Q", file.read(8))[0], 16
        elif size == 0:
            size = end - at
        if size < head:
            return
        yield kind, at + head, min(at + size, end)
        at += size


def _track(file: IO[bytes], start: int, end: int) -> tuple[int, int] | None:
    header, video = None, False
    for kind, s, e in list(_boxes(file, start, end)):
        if kind == b"tkhd":
            file.seek(s)
            header = file.read(min(e - s, 104))
        elif kind == b"mdia":
            for inner, hs, he in list(_boxes(file, s, e)):
                if inner == b"hdlr" and he - hs >= 12:
                    file.seek(hs + 8)
                    video = file.read(4) == b"vide"
    if not video or header is None:
        return None
    at = 52 if header[:1] == b"\x01" else 40  # version 1 has 64-bit times and duration
    if len(header) < at + 44:
        return None
    matrix = struct.unpack(">9I", header[at:at + 36])
    width, height = (v >> 16 for v in struct.unpack(">II", header[at + 36:at + 44]))
    if not (width and height):
        return None
    return (height, width) if matrix[0] == 0 and matrix[4] == 0 else (width, height)
