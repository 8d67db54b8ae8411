"""LinkedIn's commentary (docs/platforms.md#linkedin): the "little text format" a post's
text is written in, and the count its 3,000 applies to.

The characters `\\ | { } @ [ ] ( ) < > # * _ ~` are reserved: written with a backslash
before them they show as themselves; left bare, they are syntax (`@[Name](urn)` a mention,
`#word` a hashtag), and one that starts nothing LinkedIn knows cuts the post there (the call
succeeds, the feed shows the text before it) [S]. So every reserved character of a caption
is escaped, except the `#` that starts a hashtag, which stays live.
"""
from __future__ import annotations

import re

RESERVED = frozenset("\\|{}@[]()<>#*_~")
COMMENTARY_LIMIT = 3000
# A hashtag: `#` at the start or after a space, then a word character.
_HASHTAG = re.compile(r"(?:^|(?<=\s))#(?=\w)")


def escape(caption: str) -> str:
    """`caption` as little text: each reserved character backslash-escaped, hashtags left live."""
    live = {m.start() for m in _HASHTAG.finditer(caption)}
    return "".join("\\" + ch if ch in RESERVED and i not in live else ch for i, ch in enumerate(caption))


def linkedin_length(caption: str) -> int:
    """The count the 3,000 applies to: code points of the commentary as sent, its escapes
    included [U] (LinkedIn counts what it receives)."""
    return len(escape(caption))
