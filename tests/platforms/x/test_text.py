"""X's weighted length (fanout/platforms/x/text.py).

Sources named in the comments:
- TT-VALIDATE: twitter/twitter-text conformance/tests/validate.yml, section
  WeightedTweetsWithDiscountedEmojiCounterTest (the v3 config, emoji parsing on).
- TT-EXTRACT: twitter/twitter-text extractor conformance (extract.yml, as its JS tests run it).
- TWEMOJI: twitter/twemoji-parser src/__tests__/index.test.js (the emoji parser v3 uses).
- PLATFORMS: docs/platforms.md, section given.
"""
from __future__ import annotations

import pytest

from fanout.platforms.x.text import x_weighted_length

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy
ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
FRANCE = "\U0001f1eb\U0001f1f7"
KEYCAP_ONE = "1\ufe0f\u20e3"
GRINNING = "\U0001f600"
X10 = "xxxxxxxxxx-"
TANG_POEMS = (  # TT-VALIDATE "160 CJK char, overflow at char index 140"
    "故人西辞黄鹤楼，烟花三月下扬州。孤帆远影碧空尽，唯见长江天际流。朱雀桥边野草花，乌衣巷口夕阳斜。"
    "旧时王谢堂前燕，飞入寻常百姓家。朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。"
    "泪湿罗巾梦不成，夜深前殿按歌声。红颜未老恩先断，斜倚薰笼坐到明。独在异乡为异客，每逢佳节倍思亲。"
    "遥知兄弟登高处，遍插茱萸少一人。"
)
KANA = "あいうえおかきくけこ"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TT-VALIDATE "Regular Tweet with url"
        ("Hi http://test.co", 26),
        # TT-VALIDATE "Just url"
        ("http://test.co", 23),
        # TT-VALIDATE "Long tweet, overflow at char index 280"
        ("285 chars-" + X10 * 25, 285),
        # TT-VALIDATE "Long tweet with url in the middle, overflow at char index 284"
        ("285 chars- http://www.twitter.com/jack " + X10 * 24, 299),
        # TT-VALIDATE "Long tweet with url at the end, overflow at char index 265"
        (X10 * 24 + " http://www.twitter.com/jack ", 289),
        # TT-VALIDATE "10 url string, no overflow"
        ("https://www.twitter.com/aloha " * 10, 240),
        # TT-VALIDATE "160 CJK char, overflow at char index 140"
        (TANG_POEMS, 320),
        # TT-VALIDATE "160 emoji char, overflow at char index 140"
        ("\U0001f637" * 160, 320),
        # TT-VALIDATE "3 latin char + 160 CJK char, overflow at char index 141"
        ("the" + TANG_POEMS, 323),
        # TT-VALIDATE "Count a mix of single byte single word, and double word unicode characters"
        ("H\U0001f431\u263a" + FAMILY, 7),
        # TT-VALIDATE "Count unicode emoji chars inside the basic multilingual plane"
        ("\U0001f637\U0001f47e\U0001f621\U0001f525\U0001f4a9", 10),
        # TT-VALIDATE "Count unicode emoji chars outside the basic multilingual plane with skin tone modifiers"
        ("\U0001f64b\U0001f3fd\U0001f468\u200d\U0001f3a4", 4),
        # TT-VALIDATE "Handle a 64 character domain without protocol" (a label over 63: no URL)
        ("randomurlrandomurlrandomurlrandomurlrandomurlrandomurlrandomurls.com", 68),
        # TT-VALIDATE "Do not allow > 140 CJK characters by virtue of CJK chars greater than
        # 63 punycode encoded chars in the host"
        (KANA * 12 + " http://" + KANA * 5 + "あいう.com", 358),
        # TT-VALIDATE "Allow > 140 CJK characters by virtue of CJK chars less than 63 punycode
        # encoded chars in the host"
        (KANA * 12 + " http://" + KANA * 5 + "あい.com", 264),
        # TT-VALIDATE "140 family emoji"
        (FAMILY * 140, 280),
        # TT-VALIDATE "Unicode 10.0 emoji" (the last one is the England tag flag)
        ("Unicode 10.0 emoji: \U0001f92a; \U0001f9d5; \U0001f9d5\U0001f3fe; " + ENGLAND, 34),
        # TT-VALIDATE "Unicode 9.0 emoji"
        ("Unicode 9.0 emoji: \U0001f920; \U0001f483; \U0001f483\U0001f3fe", 29),
        # TT-VALIDATE UnicodeDirectionalMarkerCounterTest "Handle invalid characters"
        ("ABC\u202a\uffffABC\ufffe", 12),
        # TT-VALIDATE UnicodeDirectionalMarkerCounterTest "Tweet text containing directional
        # characters should be considered valid" (an IDN TLD, in Unicode form)
        ("\u2066\u202ahttp://foobar.پاکستان/\u202c\u2069", 31),
    ],
)
def test_x_weighted_length_matches_twitter_text_conformance(text, expected):
    assert x_weighted_length(text) == expected


def test_x_general_punctuation_in_the_weight_one_ranges_counts_one():
    # TT-VALIDATE "Handle General Punctuation Characters with visible spaces(u2000-200A), no ZWJ/ZWNJ":
    # U+2000-U+200B, then U+2010-U+201F and U+2032-U+2037 spaced out (two spaces after U+2016).
    text = (
        "This is a tweet with general punctuation characters: "
        + "".join(map(chr, range(0x2000, 0x200C)))
        + " \u2010 \u2011 \u2012 \u2013 \u2014 \u2015 \u2016  \u2017"
        + " \u2018 \u2019 \u201a \u201b \u201c \u201d \u201e \u201f"
        + " \u2032 \u2033 \u2034 \u2035 \u2036 \u2037"
    )
    assert x_weighted_length(text) == 110


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TT-VALIDATE "'Á' is normalized into 1 char": A + combining acute is one code point after NFC
        ("A\u0301B", 2),
        # TT-VALIDATE "שּׁ is normalized into 3 chars": U+FB2C has no NFC composite
        ("A\ufb2c", 4),
        # TT-VALIDATE "282 chars with a normalized character within valid range but outside 280"
        ("282 chars-" + X10 * 24 + "xxxxxA\u0301x", 281),
    ],
)
def test_x_counts_after_nfc(text, expected):
    assert x_weighted_length(text) == expected


def test_x_280_ascii_characters_fit_and_281_do_not():
    # PLATFORMS #x: "valid iff 0 < weightedLength <= 280"; Latin weighs 1.
    assert x_weighted_length("a" * 280) == 280
    assert x_weighted_length("a" * 281) == 281


def test_x_cjk_counts_two():
    # PLATFORMS #x: "Latin = 1, CJK = 2"
    assert x_weighted_length("日本語") == 6


def test_x_a_long_url_counts_23():
    # PLATFORMS #x: "any URL = 23" (transformedURLLength)
    url = "https://example.com/" + "a" * 300 + "?q=" + "b" * 100
    assert x_weighted_length(url) == 23
    assert x_weighted_length("see " + url + " now") == 4 + 23 + 4


def test_x_a_bare_domain_counts_as_a_url():
    # TT-VALIDATE "Count a URL without protocol as 23 characters" (lengths section)
    assert x_weighted_length("test.com") == 23


@pytest.mark.parametrize(
    "emoji",
    [
        pytest.param(GRINNING, id="single"),
        pytest.param(FAMILY, id="zwj-family"),
        pytest.param("\U0001f44d\U0001f3fd", id="skin-tone"),
        pytest.param(FRANCE, id="flag"),
        pytest.param(ENGLAND, id="tag-flag"),
        pytest.param(KEYCAP_ONE, id="keycap"),
        pytest.param("\u2764\ufe0f", id="heart-vs16"),
        pytest.param("\U0001f3f3\ufe0f\u200d\U0001f308", id="rainbow-flag"),
    ],
)
def test_x_an_emoji_sequence_counts_two(emoji):
    # PLATFORMS #x: each emoji (incl. ZWJ sequences, skin tones, flags) adds defaultWeight 200
    assert x_weighted_length(emoji) == 2
    assert x_weighted_length("a" + emoji + "b") == 4


def test_x_copyright_sign_is_an_emoji_only_with_vs16():
    # TWEMOJI "copyright: without VS16 is not emoji / with VS16 is emoji"; U+00A9 weighs 1 as text
    assert x_weighted_length("\u00a9") == 1
    assert x_weighted_length("\u00a9\ufe0f") == 2


def test_x_text_presentation_selector_is_no_emoji():
    # TWEMOJI "leaves as-text variants alone": U+2764 U+FE0E is two ordinary code points
    assert x_weighted_length("\u2764\ufe0e") == 4


def test_x_empty_text_weighs_nothing():
    assert x_weighted_length("") == 0
