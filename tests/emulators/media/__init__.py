"""Fetching media as a platform does (plain `requests`, no guard: in tests the URL is a
loopback media server), telling its type from its first bytes, and small real media
files for tests to serve."""
from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass

import requests

HEAD_BYTES = 64
# An image's size is in its header: a JPEG's frame header can follow large EXIF data.
SIZE_BYTES = 256 * 1024
_CHUNK = 64 * 1024
EBML = b"\x1a\x45\xdf\xa3"  # the magic number of Matroska and WebM files


@dataclass(frozen=True)
class Fetched:
    """What a fetch came to: the type sniffed, the size read (reading stops once past
    `limit`), an image's width and height when its header tells them, the SHA-256 of the
    bytes read, or why it failed."""

    kind: str | None = None
    size: int = 0
    error: str | None = None
    dimensions: tuple[int, int] | None = None
    sha256: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def fetch(url: str, *, limit: int, timeout: tuple[float, float] = (5.0, 30.0)) -> Fetched:
    """GET `url` (redirects followed), streamed; 4xx/5xx, a refused connection, a timeout
    or an invalid URL are failures."""
    try:
        with requests.Session() as session:
            session.trust_env = False
            with session.get(url, stream=True, timeout=timeout) as answer:
                if answer.status_code >= 400:
                    return Fetched(error=f"HTTP {answer.status_code}")
                head, size, digest = b"", 0, hashlib.sha256()
                for chunk in answer.iter_content(_CHUNK):
                    if len(head) < SIZE_BYTES:
                        head += chunk[: SIZE_BYTES - len(head)]
                    size += len(chunk)
                    digest.update(chunk)
                    if size > limit:
                        break
                kind = sniff(head[:HEAD_BYTES])
                return Fetched(kind=kind, size=size, dimensions=image_size(head, kind), sha256=digest.hexdigest())
    except (requests.RequestException, ValueError) as e:
        return Fetched(error=type(e).__name__)


def sniff(head: bytes) -> str | None:
    """jpeg, png, gif, webp, mp4, mov or webm from a file's first bytes; None for anything else."""
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    box = head[4:8]
    if box == b"ftyp":
        return "mov" if head[8:12] == b"qt  " else "mp4"
    if box in (b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"):
        return "mov"  # QuickTime files without ftyp start with one of these atoms
    if head.startswith(EBML) and b"\x42\x82\x84webm" in head:  # an EBML header whose DocType is webm
        return "webm"
    return None


def _boxes(data: bytes, start: int = 0, end: int | None = None):
    """(kind, first byte of its body, end of it) of each ISO BMFF box from `start` to `end`."""
    end = len(data) if end is None else end
    at = start
    while at + 8 <= end:
        size, kind = int.from_bytes(data[at:at + 4], "big"), data[at + 4:at + 8]
        if size < 8 or at + size > end:
            return
        yield kind, at + 8, at + size
        at += size


def _inside(data: bytes, *path: bytes):
    """The bodies (first byte, end) of the boxes at `path` (b"moov", b"mvhd")."""
    spans = [(0, len(data))]
    for kind in path:
        spans = [(first, last) for start, end in spans for found, first, last in _boxes(data, start, end)
                 if found == kind]
    return spans


def mp4_seconds(data: bytes) -> float | None:
    """The duration in an MP4's (or MOV's) `moov`/`mvhd` box, or None."""
    for first, last in _inside(data, b"moov", b"mvhd"):
        body = data[first:last]
        if body[:1] == b"\x01":
            scale, duration = int.from_bytes(body[20:24], "big"), int.from_bytes(body[24:32], "big")
        else:
            scale, duration = int.from_bytes(body[12:16], "big"), int.from_bytes(body[16:20], "big")
        return duration / scale if scale else None
    return None


def mp4_dimensions(data: bytes) -> tuple[int, int] | None:
    """(width, height) of an MP4's first track that has a picture (`moov`/`trak`/`tkhd`,
    whose last 8 bytes are them in 16.16 fixed point), or None (a file of no tracks)."""
    for first, last in _inside(data, b"moov", b"trak", b"tkhd"):
        width = int.from_bytes(data[last - 8:last - 4], "big") >> 16
        height = int.from_bytes(data[last - 4:last], "big") >> 16
        if last - first >= 84 and width and height:
            return width, height
    return None


def image_size(head: bytes, kind: str | None) -> tuple[int, int] | None:
    """(width, height) of a JPEG (its first frame header) or a PNG (IHDR), read from its
    first bytes; None when they do not tell."""
    if kind == "png" and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if kind != "jpeg":
        return None
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD9)):  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", head[at + 2:at + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            if at + 9 > len(head):
                return None
            height, width = struct.unpack(">HH", head[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None


def gif_frames(data: bytes) -> int | None:
    """How many images a GIF holds (more than one: animated), walking its blocks; None
    when `data` is not a whole GIF."""
    if sniff(data[:HEAD_BYTES]) != "gif" or len(data) < 13:
        return None
    at = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)  # after the global colour table
    frames = 0
    while at < len(data):
        block = data[at]
        if block == 0x3B:  # trailer
            return frames
        if block == 0x21:  # an extension: label, then sub-blocks
            at += 2
        elif block == 0x2C:  # an image: descriptor, local colour table, LZW code size, sub-blocks
            if at + 10 > len(data):
                return None
            packed = data[at + 9]
            at += 10 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0) + 1
            frames += 1
        else:
            return None
        while at < len(data) and data[at] != 0:  # sub-blocks, each led by its length
            at += data[at] + 1
        at += 1
    return None


# --- small real files ----------------------------------------------------------------------


def png_bytes(width: int = 2, height: int = 2) -> bytes:
    """A valid grey PNG of `width` x `height`."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))  # filter 0, 8-bit grey
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def jpeg_bytes(width: int = 8, height: int = 8) -> bytes:
    """A valid baseline greyscale JPEG of `width` x `height`, mid-grey.

    Every 8x8 block is DC difference 0 then end-of-block; with one-code Huffman tables each
    is two 0 bits.
    """
    blocks = -(-width // 8) * -(-height // 8)
    bits = "00" * blocks
    bits += "1" * (-len(bits) % 8)  # pad with ones, as the standard says
    scan = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)).replace(b"\xff", b"\xff\x00")

    def segment(marker: int, data: bytes) -> bytes:
        return struct.pack(">BBH", 0xFF, marker, len(data) + 2) + data

    one_code = bytes([1] + [0] * 15) + b"\x00"  # one code of length 1, for symbol 0
    return (b"\xff\xd8"
            + segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
            + segment(0xDB, b"\x00" + b"\x01" * 64)
            + segment(0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
            + segment(0xC4, b"\x00" + one_code) + segment(0xC4, b"\x10" + one_code)
            + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00") + scan + b"\xff\xd9")


def gif_bytes(frames: int = 1) -> bytes:
    """A valid 1x1 GIF89a of `frames` frames (animated when more than one)."""
    frame = (b"!\xf9\x04\x04\x0a\x00\x00\x00"  # graphic control: 0.1 s a frame
             b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00")  # one black pixel
    return b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff" + frame * frames + b";"


def mp4_bytes(duration_seconds: float = 1.0, *, brand: bytes = b"isom", size: tuple[int, int] | None = None) -> bytes:
    """An ISO base media file: `ftyp` then `moov` holding an `mvhd` with the duration.

    Enough for a sniffer and a duration reader; nothing plays it: it has no tracks, or
    with `size` one track header (`trak`/`tkhd`) of that width and height and no media.
    `brand=b"qt  "` makes it a QuickTime (MOV) file.
    """
    def box(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", 8 + len(data)) + kind + data

    timescale = 1000
    mvhd = (b"\x00\x00\x00\x00" + struct.pack(">IIII", 0, 0, timescale, round(duration_seconds * timescale))
            + struct.pack(">IH", 0x00010000, 0x0100) + b"\x00" * 10
            + struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)
            + b"\x00" * 24 + struct.pack(">I", 1))
    track = b""
    if size is not None:
        tkhd = (struct.pack(">I5I8x4H", 0x00000003, 0, 0, 1, 0, round(duration_seconds * timescale), 0, 0, 0, 0)
                + struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)
                + struct.pack(">II", size[0] << 16, size[1] << 16))
        track = box(b"trak", box(b"tkhd", tkhd))
    return box(b"ftyp", brand + b"\x00\x00\x02\x00" + brand + b"mp41") + box(b"moov", box(b"mvhd", mvhd) + track)



def webm_bytes() -> bytes:
    """The EBML header of a WebM file (DocType `webm`), then an empty Segment: enough for a sniffer."""
    doc_type = b"\x42\x82\x84webm" + b"\x42\x87\x81\x04" + b"\x42\x85\x81\x02"  # DocType, its versions
    return EBML + bytes([0x80 | len(doc_type)]) + doc_type + b"\x18\x53\x80\x67\x80"
