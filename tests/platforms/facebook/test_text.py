"""Facebook's caption counts (fanout/platforms/facebook/text.py): the length its 63,206
applies to, and the link a text post sends for its preview (docs/platforms.md#facebook)."""
from __future__ import annotations

import pytest

from fanout.platforms.facebook.text import facebook_length, link_of


@pytest.mark.parametrize(("caption", "length"), [("", 0), ("hello", 5), ("😀", 1), ("e\u0301", 2), ("日本語", 3)])
def test_the_length_is_code_points_as_sent(caption, length):
    assert facebook_length(caption) == length


@pytest.mark.parametrize(("caption", "link"), [
    ("no link here", None),
    ("see https://example.com/menu?day=1.", "https://example.com/menu?day=1"),
    ("bare example.com first, then http://example.org/a and https://b.example.com", "http://example.org/a"),
    ("HTTPS://EXAMPLE.COM/UP", "HTTPS://EXAMPLE.COM/UP"),
    ("(https://example.com/in-parens)", "https://example.com/in-parens"),
])
def test_the_link_is_the_first_web_link_as_written(caption, link):
    assert link_of(caption) == link
