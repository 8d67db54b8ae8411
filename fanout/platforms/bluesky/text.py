"""Bluesky's text (docs/platforms.md#bluesky): the count its 300 applies to, and the
facets that make links, mentions and hashtags of a post's plain text.

A post's text is at most 300 graphemes and at most 3,000 UTF-8 bytes (app.bsky.feed.post's
Lexicon). Bluesky makes nothing of the text itself: a client sends facets, each a range in
UTF-8 byte offsets (start inclusive, end exclusive) with its feature (app.bsky.richtext.facet).
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from ..text import graphemes

GRAPHEMES, BYTES = 300, 3000
TAG_MOST = 64  # graphemes of a tag (a character each here: tags are word characters)
# A handle is a DNS name (the AT Protocol's handle syntax), lower-cased to compare.
HANDLE = re.compile(r"(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?")

_LINK = re.compile(r"https?://[^\s<>\"]+", re.IGNORECASE)
_TRAILING = ".,;:!?'\")]}"
_MENTION = re.compile(r"(?:^|(?<=[\s(]))@([a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9])")
_TAG = re.compile(r"(?:^|(?<=\s))[#＃](\w*[^\W\d]\w*)")


def bluesky_length(caption: str) -> int:
    """The number the 300 applies to: the caption's graphemes, or a tenth of its UTF-8
    bytes when that is more (300 family emoji are 300 graphemes but 5,400 bytes)."""
    size = len(caption.encode("utf-8", "surrogatepass"))
    return max(len(graphemes(caption)), -(-size * GRAPHEMES // BYTES))


def _offset(text: str, index: int) -> int:
    """The UTF-8 byte offset of character `index`."""
    return len(text[:index].encode("utf-8", "surrogatepass"))


def _links(text: str) -> list[tuple[int, int]]:
    """(start, end) of each http(s) link, sentence punctuation after it left out."""
    found = []
    for m in _LINK.finditer(text):
        link = m.group()
        while link and link[-1] in _TRAILING:
            if link[-1] == ")" and link.count("(") >= link.count(")"):
                break  # the link's own parenthesis (Wikipedia's links end so)
            link = link[:-1]
        if "://" in link and link.split("://", 1)[1]:
            found.append((m.start(), m.start() + len(link)))
    return found


def mentioned(text: str) -> list[str]:
    """The handles `text` mentions (`@alice.bsky.social`), lower case, once each, outside links."""
    links = _links(text)
    handles = []
    for m in _MENTION.finditer(text):
        handle = m.group(1).lower()
        if HANDLE.fullmatch(handle) and not any(a <= m.start() < b for a, b in links):
            handles.append(handle)
    return list(dict.fromkeys(handles))


def facets(text: str, dids: Mapping[str, str]) -> list[dict]:
    """The link, mention and hashtag facets of `text` in UTF-8 byte offsets, in order.
    `dids` maps each mentioned handle that resolved to its DID; the others stay text, as
    does a tag longer than 64 characters. A mention or tag inside a link is the link's."""
    found: list[tuple[int, int, dict]] = []
    for start, end in _links(text):
        found.append((start, end, {"$type": "app.bsky.richtext.facet#link", "uri": text[start:end]}))
    for m in _MENTION.finditer(text):
        handle = m.group(1).lower()
        if handle in dids:
            found.append((m.start(), m.end(), {"$type": "app.bsky.richtext.facet#mention", "did": dids[handle]}))
    for m in _TAG.finditer(text):
        if len(m.group(1)) <= TAG_MOST:
            found.append((m.start(), m.end(), {"$type": "app.bsky.richtext.facet#tag", "tag": m.group(1)}))
    found.sort(key=lambda f: f[0])
    kept, end = [], -1
    for start, stop, feature in found:
        if start >= end:
            kept.append({"index": {"byteStart": _offset(text, start), "byteEnd": _offset(text, stop)},
                         "features": [feature]})
            end = stop
    return kept
