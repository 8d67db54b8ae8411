"""How Threads counts a post's text and its links (reference: Threads' publishing doc).

"Text posts are limited to 500 characters", and "Emojis are counted as the number of UTF-8
bytes", with the doc pointing to a grapheme splitter: each grapheme counts 1, an emoji
grapheme its UTF-8 bytes (😀 4, ❤️ 6). At most 5 links, the same link counted once.
"""
from __future__ import annotations

import re
import unicodedata

from ..text import EMOJI, links, nfc

TEXT_LIMIT, LINK_LIMIT = 500, 5

_REGIONAL_PAIR = re.compile(r"[\U0001f1e6-\U0001f1ff]{2}")
_HANGUL = re.compile(r"[\u1100-\u115f]+[\u1160-\u11a7]*[\u11a8-\u11ff]*|[\u1160-\u11a7]+[\u11a8-\u11ff]*")
_EXTENDERS = frozenset("\u200d\u20e3") | {chr(c) for c in range(0xFE00, 0xFE10)}


def _extends(ch: str) -> bool:
    """Whether `ch` stays with the grapheme before it: a combining mark, a joiner, a
    variation selector, a skin tone or a tag character."""
    return (unicodedata.category(ch) in ("Mn", "Me", "Mc") or ch in _EXTENDERS
            or "\U0001f3fb" <= ch <= "\U0001f3ff" or "\U000e0020" <= ch <= "\U000e007f")


def graphemes(text: str) -> list[str]:
    """`text` cut into user-perceived characters: CR LF, emoji sequences, flags, Hangul
    jamo syllables, and any other character with the marks that extend it."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("\r\n", i):
            end = i + 2
        else:
            m = EMOJI.match(text, i) or _REGIONAL_PAIR.match(text, i) or _HANGUL.match(text, i)
            end = m.end() if m else i + 1
            while end < len(text) and _extends(text[end]):
                end += 1
        out.append(text[i:end])
        i = end
    return out


def text_length(text: str) -> int:
    """The count Threads' 500 limit applies to."""
    return sum(len(g.encode("utf-8", "surrogatepass")) if EMOJI.match(g) else 1 for g in graphemes(nfc(text)))


def distinct_links(*texts: str | None) -> int:
    """Links in the texts (post text and link attachment), one link counted once whatever its
    scheme, letter case or final "/"."""
    found = set()
    for text in filter(None, texts):
        for link in links(text):
            found.add(re.sub(r"^https?://", "", link, flags=re.IGNORECASE).lower().rstrip("/"))
    return len(found)
