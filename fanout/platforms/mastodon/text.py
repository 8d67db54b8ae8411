"""Mastodon's count of a status (docs/platforms.md#mastodon): the number an instance's
`configuration.statuses.max_characters` applies to.

Mastodon counts the grapheme clusters of the content warning and the text together, the
text rewritten first: every `http(s)` link counts as 23 characters (its URL placeholder)
and a mention of a remote account, `@user@domain`, as its local part, `@user` [S]
(StatusLengthValidator). Links are found as twitter-text finds them, with a scheme only (a
bare domain counts as written); the URL extractor of fanout/platforms/text.py is the one X
counts with.
"""
from __future__ import annotations

import re

from ..text import extract_urls, graphemes, nfc

URL_LENGTH = 23
# Mastodon's mention: `@` not after a word character, `=` or `/`; a username of letters,
# digits and `_` (dots and dashes inside), then optionally `@` and a domain.
_MENTION = re.compile(r"(?<![=/\w])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)@[\w.-]+\w", re.IGNORECASE)


def countable(text: str) -> str:
    """`text` as Mastodon counts it: each `http(s)` link replaced by 23 characters, each
    remote mention by its local part."""
    text, out, at = nfc(text), [], 0
    for url in extract_urls(text):
        start = text.find(url, at) if url[:8].lower().startswith(("http://", "https://")) else -1
        if start < 0:
            continue
        out += [local_mentions(text[at:start]), "x" * URL_LENGTH]
        at = start + len(url)
    return "".join(out) + local_mentions(text[at:])


def local_mentions(text: str) -> str:
    return _MENTION.sub(lambda m: f"@{m.group(1)}", text)


def mastodon_length(text: str, spoiler_text: str = "") -> int:
    """The count the instance's cap applies to: graphemes of the content warning and the
    text as Mastodon counts it (`countable`)."""
    return len(graphemes(nfc(spoiler_text) + countable(text)))


def grapheme_length(text: str) -> int:
    """Graphemes as written: the count of the static cap (rules.py), never more than the
    code points a request may carry."""
    return len(graphemes(text))
