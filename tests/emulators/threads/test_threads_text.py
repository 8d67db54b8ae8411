"""The Threads emulator counts as Threads documents: 500 characters, a grapheme each, an
emoji its UTF-8 bytes; at most 5 links, the same link once."""
from __future__ import annotations

import pytest

from .text import LINK_LIMIT, TEXT_LIMIT, distinct_links, graphemes, text_length


@pytest.mark.parametrize("text,length", [
    ("hello", 5), ("字", 1), ("é", 1), ("e\u0301", 1), ("g\u0301", 1), ("\r\n", 1),
    ("😀", 4), ("❤️", 6), ("🇫🇷", 8), ("👍🏽", 8), ("1️⃣", 7),
    ("👨‍👩‍👧‍👦", 25),  # four 4-byte people and three 3-byte joiners
])
def test_a_grapheme_counts_1_and_an_emoji_its_utf8_bytes(text, length):
    assert text_length(text) == length


def test_marks_joiners_and_selectors_stay_with_their_grapheme():
    assert graphemes("ae\u0301👨‍👩‍👧x\u0308\r\n🇫🇷🇩🇪") == ["a", "e\u0301", "👨‍👩‍👧", "x\u0308", "\r\n", "🇫🇷", "🇩🇪"]


def test_500_counted_characters_pass_501_do_not():
    assert TEXT_LIMIT == 500
    assert text_length("a" * 496 + "😀") == 500 and text_length("a" * 497 + "😀") == 501


def test_links_in_the_text_and_the_attachment_count_once_each():
    five = " ".join(f"https://site{i}.example.com/" for i in range(5))
    assert LINK_LIMIT == 5
    assert distinct_links(five + " https://site0.example.com") == 5
    assert distinct_links(five, "https://sixth.example.com/page") == 6


@pytest.mark.parametrize("a,b", [
    ("https://example.com/", "example.com"), ("HTTP://Example.COM", "https://example.com"),
])
def test_scheme_letter_case_and_a_final_slash_make_no_new_link(a, b):
    assert distinct_links(f"{a} and {b}") == 1


def test_no_link_in_plain_words_or_an_email_address():
    assert distinct_links("a.b c, 1.5 and mail@example") == 0
