"""Instagram's caption counts (fanout/platforms/instagram/text.py).

PLATFORMS: docs/platforms.md, section given.
"""
from __future__ import annotations

import pytest

from fanout.platforms.instagram.text import hashtag_count, instagram_length, mention_count

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy
GRINNING = "\U0001f600"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello", 5),
        ("e\u0301", 1),  # PLATFORMS #instagram: code points after NFC
        (GRINNING, 1),
        (FAMILY, 7),
    ],
)
def test_instagram_length_counts_code_points_after_nfc(text, expected):
    assert instagram_length(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#one #two #three", 3),
        ("#same #same", 2),  # every occurrence counts
        ("#café #日本", 2),  # word characters of any script
        ("C# and a#b and # alone", 0),  # a hashtag starts a word and has word characters
        ("#tag#other", 1),
    ],
)
def test_hashtag_count(text, expected):
    # PLATFORMS #instagram: "Hashtag = `#` followed by word chars" [U]
    assert hashtag_count(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@bob and @alice.smith and @x_y", 3),
        ("write to me@example.com", 0),  # an e-mail address is no mention
        ("@ alone", 0),
    ],
)
def test_mention_count(text, expected):
    # PLATFORMS #instagram: "mention = `@username`" [U]
    assert mention_count(text) == expected
