"""A resumable upload's server says which bytes it holds (fanout/platforms/transfer.py
`held`): the next byte to send, from Google's `Range: bytes=0-<last>` of a 308."""
from __future__ import annotations

import pytest

from fanout.platforms.transfer import held


@pytest.mark.parametrize(("header", "size", "next_byte"), [
    (None, 1000, 0),  # no Range: nothing held yet
    ("bytes=0-262143", 1_000_000, 262_144),
    (" bytes=0-999 ", 1000, 1000),  # every byte held
])
def test_the_next_byte_follows_the_last_one_held(header, size, next_byte):
    assert held(header, size) == next_byte


@pytest.mark.parametrize("header", ["bytes=0-1000", "bytes=10-20", "bytes=0-", "items=0-9", "bytes=0-9,20-29", ""])
def test_a_range_that_is_not_the_files_first_bytes_is_none(header):
    assert held(header, 1000) is None
