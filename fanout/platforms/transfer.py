"""Moving a file's bytes to a platform in pieces (docs/adding-a-platform.md): the byte ranges
of a chunked or resumable upload, what a resumable upload's server says it holds, and a
piece streamed from the file as requests sends it, so that a chunk of tens of MB is never
in memory whole."""
from __future__ import annotations

import re
from collections.abc import Iterator

READ_BLOCK = 64 * 1024  # what one read of a piece's body takes from the file


def byte_ranges(size: int, chunk_size: int, count: int) -> Iterator[tuple[int, int]]:
    """(first byte, length) of each of `count` pieces of `chunk_size`, the last taking the
    remainder (platforms that cap the chunk count ask for this)."""
    for index in range(count):
        first = index * chunk_size
        yield first, size - first if index == count - 1 else chunk_size


_HELD = re.compile(r"bytes=0-([0-9]{1,19})")


def held(range_header: str | None, size: int) -> int | None:
    """The bytes of a `size`-byte file a resumable upload's server holds, by the `Range:
    bytes=0-<last byte>` of its answer (Google's resumable protocol; without the header it
    holds none yet): the next byte to send. None when the header says anything else, or
    more bytes than the file has."""
    if range_header is None:
        return 0
    found = _HELD.fullmatch(range_header.strip())
    if found is None or int(found.group(1)) >= size:
        return None
    return int(found.group(1)) + 1


class Stream:
    """`length` bytes of `file` from where it stands, read in small blocks."""

    def __init__(self, file, length: int):
        self.file, self.left = file, length

    def __len__(self) -> int:
        return self.left

    def read(self, size: int = -1) -> bytes:
        size = self.left if size is None or size < 0 else min(size, self.left, READ_BLOCK)
        data = self.file.read(size) if size else b""
        self.left -= len(data)
        return data
