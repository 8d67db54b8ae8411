"""Threads' caption counts (fanout/platforms/threads/text.py).

Sources: TWEMOJI: twitter/twemoji-parser src/__tests__/index.test.js;
PLATFORMS: docs/platforms.md, section given.
"""
from __future__ import annotations

import pytest

from fanout.platforms.threads.text import link_count, threads_length

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy
FRANCE = "\U0001f1eb\U0001f1f7"
GRINNING = "\U0001f600"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a" * 500, 500),
        (GRINNING, 4),  # PLATFORMS #threads: "😀 = 4"
        ("\u2764\ufe0f", 6),
        (FAMILY, 25),  # the whole ZWJ sequence is one emoji grapheme: 4 * 4 + 3 * 3 bytes
        (FRANCE, 8),
        ("e\u0301", 1),  # one grapheme, not an emoji
        ("\u1100\u1161\u11a8", 1),  # Hangul jamo make one syllable
        ("\r\n", 1),
        ("\u00a9", 1),  # TWEMOJI: © without VS16 is no emoji
    ],
)
def test_threads_length_counts_graphemes_and_emoji_utf8_bytes(text, expected):
    # PLATFORMS #threads: non-emoji grapheme = 1, emoji = len(emoji.encode('utf-8')) [U]
    assert threads_length(text) == expected


def test_link_count_counts_distinct_links():
    # PLATFORMS #threads: "duplicates counted once"; scheme, case and a final slash do not make a new link
    assert link_count("https://a.com a.com HTTPS://A.com/ https://b.org/x") == 2
    assert link_count("no links here.") == 0
