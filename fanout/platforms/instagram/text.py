"""Instagram's caption counts (docs/platforms.md#instagram): its length, hashtags and @mentions,
and a comment's links."""
from __future__ import annotations

import re

from ..text import extract_urls, nfc


def instagram_length(s: str) -> int:
    """Code points after NFC: our choice, as Instagram documents no unit (docs/platforms.md#instagram)."""
    return len(nfc(s))


# docs/platforms.md#instagram: a hashtag is `#` and word characters, a mention `@username` [U]. Both
# must start a word, so "C#", "a#b" and e-mail addresses count nothing. Every occurrence
# counts, repeats too: the stricter reading of "30 hashtags, and 20 @ tags".
_HASHTAG = re.compile(r"(?<!\w)#\w+")
_MENTION = re.compile(r"(?<!\w)@[A-Za-z0-9._]+")  # the characters Instagram usernames use


def hashtag_count(s: str) -> int:
    """Hashtags in a caption, for Instagram's 30-hashtag cap."""
    return len(_HASHTAG.findall(s))


def mention_count(s: str) -> int:
    """@mentions in a caption, for Instagram's 20 "@ tags" cap."""
    return len(_MENTION.findall(s))


def link_count(s: str) -> int:
    """Distinct links in a comment, for Instagram's one-link cap on comments posted through
    its API [U: links found as on X and Threads; letter case and a final `/` ignored]."""
    return len({url.lower().rstrip("/") for url in extract_urls(s)})
