"""X's weighted count of a post's text, as twitter-text v3 documents it (its config
v3.json and parseTweet): the number X's 280 limit applies to.

NFC first; each link counts `URL_WEIGHT` whatever its length, each emoji sequence
`EMOJI_WEIGHT`; any other code point weighs 1 inside `LIGHT_RANGES` and 2 outside them
(CJK, Hangul syllables, most other scripts, the astral planes).
"""
from __future__ import annotations

from ..text import EMOJI, link_spans, nfc

LIMIT = 280
# config/v3.json: scale 100, defaultWeight 200, transformedURLLength 23, and the ranges of
# weight 100 (start and end as code points, both taken).
LIGHT_RANGES = ((0x0000, 0x10FF), (0x2000, 0x200D), (0x2010, 0x201F), (0x2032, 0x2037))
URL_WEIGHT, EMOJI_WEIGHT, DEFAULT_WEIGHT = 23, 2, 2


def char_weight(ch: str) -> int:
    point = ord(ch)
    return 1 if any(start <= point <= end for start, end in LIGHT_RANGES) else DEFAULT_WEIGHT


def weighted_length(text: str) -> int:
    """twitter-text's `weightedLength` of `text`."""
    text = nfc(text)
    links = dict(link_spans(text))
    total, i = 0, 0
    while i < len(text):
        if i in links:
            total, i = total + URL_WEIGHT, links[i]
            continue
        emoji = EMOJI.match(text, i)
        if emoji:
            total, i = total + EMOJI_WEIGHT, emoji.end()
            continue
        total, i = total + char_weight(text[i]), i + 1
    return total


def too_long(text: str) -> bool:
    return weighted_length(text) > LIMIT
