"""The text machinery the platforms count with (fanout/platforms/text.py): URL extraction,
UTF-16 units and graphemes. Each platform's own count is tested beside its package
(tests/platforms/<name>/test_text.py).

Sources named in the comments: TT-EXTRACT, twitter/twitter-text's extractor conformance
(extract.yml, as its JS tests run it); PLATFORMS, docs/platforms.md, section given.
"""
from __future__ import annotations

import pytest

from fanout.platforms.text import extract_urls, graphemes, utf16_len

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy
FRANCE = "\U0001f1eb\U0001f1f7"
GRINNING = "\U0001f600"


# --- URL extraction (twitter-text) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TT-EXTRACT "Extract a URL"
        ("text http://google.com", ["http://google.com"]),
        # TT-EXTRACT "Extract a URL from a Japanese tweet"
        ("皆さん見てください！ http://google.com", ["http://google.com"]),
        # TT-EXTRACT "Extract URLs without protocol on ccTLD with slash"
        ("t.co/abcde bit.ly/abcde", ["t.co/abcde", "bit.ly/abcde"]),
        # TT-EXTRACT "Extract URLs without protocol not on (com|org|edu|gov|net) domains", but
        # with the bare "foo.jp" the conformance file leaves out: twitter-text 3.1.0 from npm
        # links it, having dropped the older rule that only .co and .tv short domains link
        # (tests/data/twitter_text_v3.json: "foo.jp" weighs 23), and X counts as 3.1.0 does.
        (
            "foo.baz foo.co.jp www.xxxxxxx.baz www.foo.co.uk wwwww.xxxxxxx foo.comm foo.somecom foo.govedu foo.jp",
            ["foo.co.jp", "www.foo.co.uk", "foo.jp"],
        ),
        # TT-EXTRACT "Extract URLs with protocol on ccTLD domains"
        ("http://foo.jp http://fooooo.jp", ["http://foo.jp", "http://fooooo.jp"]),
        # TT-EXTRACT "Extract URLs without protocol surrounded by CJK characters"
        (
            (
                "twitter.comこれは日本語です。example.com中国語t.co/abcde한국twitter.com "
                "example2.comテストtwitter.com/abcde"
            ),
            ["twitter.com", "example.com", "t.co/abcde", "twitter.com", "example2.com", "twitter.com/abcde"],
        ),
        # TT-EXTRACT "Extract t.co URLs skipping trailing characters and adjusting indices correctly"
        (
            "http://t.co/pbY2NfTZ's http://t.co/2vYHpAc5; http://t.co/ulYGBYSo: http://t.co/8MkmHU0k+c",
            ["http://t.co/pbY2NfTZ", "http://t.co/2vYHpAc5", "http://t.co/ulYGBYSo", "http://t.co/8MkmHU0k"],
        ),
        # TT-EXTRACT "Extract I18N URL"
        ("test http://xn--ls8h.XN--ls8h.la/", ["http://xn--ls8h.XN--ls8h.la/"]),
        # TT-EXTRACT "Extract URLs with IDN(not encoded)"
        (
            "test http://foobar.みんな/ http://foobar.中国/ http://foobar.پاکستان/ ",
            ["http://foobar.みんな/", "http://foobar.中国/", "http://foobar.پاکستان/"],
        ),
        # twitter-text's balanced-parentheses rule (validUrlBalancedParens: Wikipedia URLs),
        # and trailing punctuation left out of the URL
        ("see https://en.wikipedia.org/wiki/Primer_(film).", ["https://en.wikipedia.org/wiki/Primer_(film)"]),
        # file names and abbreviations end in no TLD
        ("photo.jpg notes.txt v1.2 e.g. i.e.", []),
    ],
)
def test_extract_urls_matches_twitter_text(text, expected):
    assert extract_urls(text) == expected



# --- TikTok ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello", 5),  # PLATFORMS #tiktok: len(s.encode('utf-16-le')) // 2
        ("é", 1),
        (GRINNING, 2),  # an astral code point is a surrogate pair
        (FAMILY, 11),  # four astral emoji and three ZWJ
        ("\ud800", 1),  # a lone surrogate (possible through a JSON escape) is one unit
    ],
)
def test_utf16_len_counts_utf16_code_units(text, expected):
    assert utf16_len(text) == expected



# --- Graphemes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abc", ["a", "b", "c"]),
        ("e\u0301x", ["e\u0301", "x"]),
        (FAMILY + "!", [FAMILY, "!"]),
        (FRANCE + FRANCE, [FRANCE, FRANCE]),
        ("\U0001f44d\U0001f3fd", ["\U0001f44d\U0001f3fd"]),
        ("a\r\nb", ["a", "\r\n", "b"]),
        ("", []),
    ],
)
def test_graphemes(text, expected):
    # Unicode UAX #29 extended grapheme clusters
    assert graphemes(text) == expected
