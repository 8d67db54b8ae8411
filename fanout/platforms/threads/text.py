"""Threads' caption counts (docs/platforms.md#threads): its 500-character length and its
5-link cap."""
from __future__ import annotations

import re

from ..text import EMOJI, extract_urls, graphemes, nfc


def threads_length(s: str) -> int:
    """Threads' count for its 500 limit, on the literal reading of its doc [U].

    "Emojis are counted as the number of UTF-8 bytes", and the doc links a grapheme
    splitter: so each grapheme counts 1, except an emoji grapheme, which counts its UTF-8
    bytes (😀 4, ❤️ 6, a family of four joined by ZWJ 25). NFC first, which changes no
    grapheme count but keeps all counters on the same text.
    """
    return sum(
        len(g.encode("utf-8", "surrogatepass")) if EMOJI.match(g) else 1 for g in graphemes(nfc(s))
    )


def link_count(s: str) -> int:
    """Distinct links in a caption, for Threads' 5-link cap (docs/platforms.md#threads).

    Which text Threads takes for a link is [U]: we use the twitter-text extractor, and take
    `https://Example.com/` and `example.com` for one link (scheme, case, final `/` ignored).
    """
    return len({_SCHEME.sub("", url).lower().rstrip("/") for url in extract_urls(s)})


_SCHEME = re.compile(r"^https?://", re.IGNORECASE)
