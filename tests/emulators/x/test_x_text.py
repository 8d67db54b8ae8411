"""The X emulator counts text as twitter-text v3 documents it (config/v3.json, parseTweet):
Latin 1, CJK 2, emoji 2, any URL 23, the weight ranges' edges, NFC first."""
from __future__ import annotations

import pytest

from .text import LIMIT, too_long, weighted_length


@pytest.mark.parametrize("text,length", [
    ("hello", 5), ("字", 2), ("한", 2), ("😀", 2), ("Привет", 6), ("שלום", 4),
])
def test_latin_and_the_other_light_scripts_weigh_1_cjk_and_emoji_2(text, length):
    assert weighted_length(text) == length


@pytest.mark.parametrize("point,weight", [
    (0x0000 + 0x41, 1), (0x10FF, 1), (0x1100, 2), (0x1FFF, 2), (0x2000, 1), (0x200D, 1), (0x200E, 2),
    (0x2010, 1), (0x201F, 1), (0x2020, 2), (0x2031, 2), (0x2032, 1), (0x2037, 1), (0x2038, 2), (0x4E00, 2),
])
def test_each_end_of_the_weight_ranges(point, weight):
    assert weighted_length(chr(point)) == weight


@pytest.mark.parametrize("url", [
    "https://example.com", "http://example.com/" + "a" * 300, "https://EXAMPLE.org/path?q=1&r=2#frag", "example.com",
    "www.example.co.uk/page", "https://sub.example.io:8080/x",
])
def test_any_url_counts_23_whatever_its_length(url):
    assert weighted_length(url) == 23
    assert weighted_length(f"see {url} now") == 4 + 23 + 4


def test_punctuation_after_a_url_is_the_sentences_and_counts():
    assert weighted_length("(https://example.com/a).") == 1 + 23 + 2


@pytest.mark.parametrize("text", [
    "email@example.com", "file_name.txt", "a.b", "1.5",
])
def test_what_is_no_url_counts_by_its_characters(text):
    assert weighted_length(text) == len(text)


@pytest.mark.parametrize("emoji", [
    "👍🏽",  # skin tone
    "🇫🇷",  # flag: two regional indicators
    "1️⃣", "#️⃣",  # keycaps
    "👨‍👩‍👧",  # a family joined by ZWJ
    "❤️",  # text symbol with emoji presentation
    "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England's flag (tag sequence)
])
def test_an_emoji_sequence_counts_2(emoji):
    assert weighted_length(emoji) == 2


def test_copyright_is_an_emoji_only_with_emoji_presentation():
    assert (weighted_length("©"), weighted_length("©\ufe0f")) == (1, 2)


def test_text_is_counted_after_nfc():
    assert weighted_length("e\u0301") == 1  # é once composed


@pytest.mark.parametrize("text,over", [
    ("a" * 280, False), ("a" * 281, True), ("字" * 140, False), ("字" * 141, True), ("😀" * 140, False),
    ("😀" * 141, True), ("https://example.com/" + "a" * 300 + " " + "b" * 256, False),
    ("https://example.com/ " + "b" * 257, True),
])
def test_the_limit_is_280_weighted(text, over):
    assert LIMIT == 280 and too_long(text) is over
