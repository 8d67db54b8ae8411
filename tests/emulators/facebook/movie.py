"""What the Facebook emulator reads of a video's bytes to judge a Reel (9:16, at least
540x960, 3 to 90 s: tests/emulators/README.md#facebook), and small MP4 files that carry
what it reads, for tests.

An ISO base media file is a sequence of boxes (size, type, payload). The duration is the
movie header's (`moov/mvhd`: duration over timescale); the picture is the first video
track's (`moov/trak` whose `mdia/hdlr` handler is `vide`): its track header's (`tkhd`)
width and height, swapped when its matrix turns the picture a quarter turn.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

CONTAINERS = (b"moov", b"trak", b"mdia")
IDENTITY = (0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
QUARTER_TURN = (0, 0x10000, 0, 0xFFFF0000, 0, 0, 0, 0, 0x40000000)


@dataclass(frozen=True)
class Movie:
    seconds: float | None
    width: int | None
    height: int | None


def boxes(data: bytes, start: int = 0, end: int | None = None):
    """(type, payload start, payload end) of each box from `start` to `end`."""
    end = len(data) if end is None else end
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        head = 8
        if size == 1 and at + 16 <= end:
            size, head = struct.unpack(">Q", data[at + 8:at + 16])[0], 16
        elif size == 0:
            size = end - at
        if size < head:
            return
        yield kind, at + head, min(at + size, end)
        at += size


def read_movie(data: bytes) -> Movie:
    """The duration and the picture's size a file tells, each None when it does not."""
    seconds = width = height = None
    for kind, start, end in boxes(data):
        if kind != b"moov":
            continue
        for inner, s, e in boxes(data, start, end):
            if inner == b"mvhd" and e - s >= 20:
                version = data[s]
                timescale, duration = (struct.unpack(">IQ", data[s + 20:s + 32]) if version == 1
                                       else struct.unpack(">II", data[s + 12:s + 20]))
                seconds = duration / timescale if timescale else None
            elif inner == b"trak" and width is None:
                width, height = _video_track(data, s, e)
    return Movie(seconds, width, height)


def _video_track(data: bytes, start: int, end: int) -> tuple[int | None, int | None]:
    header = handler = None
    for kind, s, e in boxes(data, start, end):
        if kind == b"tkhd":
            header = data[s:e]
        elif kind == b"mdia":
            for inner, hs, he in boxes(data, s, e):
                if inner == b"hdlr" and he - hs >= 12:
                    handler = data[hs + 8:hs + 12]
    if handler != b"vide" or header is None or len(header) < 84:
        return None, None
    skip = 12 if header[0] == 1 else 0  # version 1 has 64-bit times and duration
    matrix = struct.unpack(">9I", header[40 + skip:76 + skip])
    width, height = (v >> 16 for v in struct.unpack(">II", header[76 + skip:84 + skip]))
    turned = matrix[0] == 0 and matrix[4] == 0
    return (height, width) if turned else (width, height)


# --- small files for tests ---------------------------------------------------------------


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def movie_bytes(width: int = 1080, height: int = 1920, seconds: float = 15.0, *, turned: bool = False,
                padding: int = 0) -> bytes:
    """An MP4 of one video track of `width` x `height` lasting `seconds` (`turned`: stored
    the other way round with a quarter-turn matrix, as phones write), then `padding`
    bytes of media data. Nothing plays it; it says what a reader asks."""
    timescale = 1000
    mvhd = (struct.pack(">B3xIIII", 0, 0, 0, timescale, round(seconds * timescale))
            + struct.pack(">IH10x", 0x10000, 0x100) + struct.pack(">9I", *IDENTITY) + bytes(24)
            + struct.pack(">I", 2))
    stored = (height, width) if turned else (width, height)
    tkhd = (struct.pack(">B3BIIIIIQHHHH", 0, 0, 0, 3, 0, 0, 1, 0, round(seconds * timescale), 0, 0, 0, 0, 0)
            + struct.pack(">9I", *(QUARTER_TURN if turned else IDENTITY))
            + struct.pack(">II", stored[0] << 16, stored[1] << 16))
    hdlr = struct.pack(">I4x4s12x", 0, b"vide") + b"VideoHandler\x00"
    trak = _box(b"trak", _box(b"tkhd", tkhd) + _box(b"mdia", _box(b"hdlr", hdlr)))
    ftyp = _box(b"ftyp", b"isom" + struct.pack(">I", 512) + b"isom" + b"mp41")
    return ftyp + _box(b"moov", _box(b"mvhd", mvhd) + trak) + _box(b"mdat", bytes(padding))
