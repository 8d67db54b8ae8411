"""Small valid media files, made in code: nothing binary is kept in the repository.

Images come from Pillow. An MP4 or MOV here is the least a reader needs: an `ftyp` box
naming the brand, a `moov` box holding only the movie header (`mvhd`, whose duration is
what mutagen reads when there is no sound track) and an `mdat` box of padding.
"""
from __future__ import annotations

import io
import random
import struct

from PIL import Image


def image(format: str, width: int = 64, height: int = 48, **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(out, format, **save)
    return out.getvalue()


def jpeg(width: int = 64, height: int = 48) -> bytes:
    return image("JPEG", width, height)


def png(width: int = 64, height: int = 48) -> bytes:
    return image("PNG", width, height)


def mpo(width: int = 64, height: int = 48) -> bytes:
    """A JPEG carrying a second picture, as stereo cameras write."""
    return image("MPO", width, height, save_all=True, append_images=[Image.new("RGB", (width, height), "red")])


def gif(frames: int = 1, width: int = 64, height: int = 64, noise: bool = False) -> bytes:
    """A GIF of `frames` frames; `noise` makes it barely compressible (larger)."""
    rng = random.Random(frames)
    pictures = [
        Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3)) if noise
        else Image.new("RGB", (width, height), (40 * i % 256, 90, 160))
        for i in range(frames)
    ]
    out = io.BytesIO()
    pictures[0].save(out, "GIF", save_all=frames > 1, append_images=pictures[1:], duration=100)
    return out.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims `width` x `height` pixels (a decompression bomb's header)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        import zlib
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"\x78\x9c\x03\x00\x00\x00\x00\x01") + chunk(b"IEND", b"")


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def movie_header(seconds: float, timescale: int = 1000) -> bytes:
    """The `ftyp`-less part of a movie: `moov` with an `mvhd` of `seconds`."""
    identity = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    mvhd = (struct.pack(">B3xIIII", 0, 0, 0, timescale, round(seconds * timescale))
            + struct.pack(">IH10x", 0x10000, 0x100) + identity + bytes(24) + struct.pack(">I", 2))
    return _box(b"moov", _box(b"mvhd", mvhd))


MP4_FTYP = _box(b"ftyp", b"isom" + struct.pack(">I", 512) + b"isom" + b"mp41")


def mp4(seconds: float = 12.5, padding: int = 0) -> bytes:
    return MP4_FTYP + movie_header(seconds) + mdat_header(padding) + bytes(padding)


def mov(seconds: float = 12.5) -> bytes:
    ftyp = _box(b"ftyp", b"qt  " + struct.pack(">I", 0) + b"qt  ")
    return ftyp + movie_header(seconds) + mdat_header(0)


def mdat_header(payload: int) -> bytes:
    """The header of an `mdat` box of `payload` bytes (to stream the payload separately)."""
    return struct.pack(">I4s", 8 + payload, b"mdat")


HTML = b"<!doctype html><html><head><title>Not found</title></head><body>Nothing here</body></html>\n"
