"""The Instagram emulator counts a caption as Instagram documents: "Maximum 2200
characters, 30 hashtags, and 20 @ tags" (code points after NFC, the emulator's reading)."""
from __future__ import annotations

import pytest

from .text import CAPTION_LIMIT, HASHTAG_LIMIT, MENTION_LIMIT, caption_length, hashtags, mentions


def test_the_documented_limits():
    assert (CAPTION_LIMIT, HASHTAG_LIMIT, MENTION_LIMIT) == (2200, 30, 20)


@pytest.mark.parametrize("caption,length", [("hello", 5), ("e\u0301" * 3, 3), ("😀", 1), ("字字", 2)])
def test_a_caption_counts_code_points_after_nfc(caption, length):
    assert caption_length(caption) == length


@pytest.mark.parametrize("caption,count", [
    ("#cat #dog", 2), ("#cat #cat", 2), ("#猫 #café", 2), ("C# and a#b", 0), ("#", 0), ("(#cat)", 1),
])
def test_a_hashtag_is_a_hash_and_word_characters_starting_a_word(caption, count):
    assert hashtags(caption) == count


@pytest.mark.parametrize("caption,count", [
    ("@emu_user @other.name", 2), ("@a @a", 2), ("me@example.com", 0), ("@", 0), ("hi @bob!", 1),
])
def test_a_mention_is_an_at_sign_and_a_username_starting_a_word(caption, count):
    assert mentions(caption) == count
