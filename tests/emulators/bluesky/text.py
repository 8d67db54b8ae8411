"""How a PDS measures a post's text and checks its facets (reference: the Lexicons
app.bsky.feed.post and app.bsky.richtext.facet).

`text` is at most 300 graphemes and at most 3000 UTF-8 bytes, both rules at once. Facets
point into the text by UTF-8 byte offsets, start inclusive, end exclusive; the PDS itself
does not check them against the text, the emulator does when `strict_facets` is on
(tests/emulators/README.md#bluesky).
"""
from __future__ import annotations

from ..threads.text import graphemes

GRAPHEMES, BYTES = 300, 3000
TAG_GRAPHEMES, TAG_BYTES = 64, 640


def grapheme_count(text: str) -> int:
    return len(graphemes(text))


def byte_count(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def text_problem(text: str) -> str | None:
    """The validator's words for a text over either cap, or None."""
    if grapheme_count(text) > GRAPHEMES:
        return f"Record/text must not be longer than {GRAPHEMES} graphemes"
    if byte_count(text) > BYTES:
        return f"Record/text must not be longer than {BYTES} characters"
    return None


def covered(text: str, start: int, end: int) -> str | None:
    """The text a facet covers, or None when its range is not whole characters of `text`
    (outside it, empty, or cutting a character's UTF-8 bytes)."""
    data = text.encode("utf-8", "surrogatepass")
    if not (0 <= start < end <= len(data)):
        return None
    if _continuation(data, start) or _continuation(data, end):
        return None
    return data[start:end].decode("utf-8", "surrogatepass")


def _continuation(data: bytes, at: int) -> bool:
    return at < len(data) and data[at] & 0xC0 == 0x80


def link_matches(uri: str, shown: str) -> bool:
    """Whether a link facet's `uri` is the link its text shows: the same, the same without
    its scheme, or shortened by clients to a prefix ending in "..." or "…"."""
    bare = uri.split("://", 1)[1] if "://" in uri else uri
    if shown in (uri, bare):
        return True
    for ellipsis in ("...", "…"):
        if shown.endswith(ellipsis) and len(shown) > len(ellipsis):
            head = shown[: -len(ellipsis)]
            if uri.startswith(head) or bare.startswith(head):
                return True
    return False


def tag_matches(tag: str, shown: str) -> bool:
    return shown in ("#" + tag, "＃" + tag)


def tag_problem(tag: str) -> str | None:
    if not tag or tag.startswith(("#", "＃")) or any(ch.isspace() for ch in tag):
        return "a tag is its word without # and without spaces"
    if grapheme_count(tag) > TAG_GRAPHEMES or byte_count(tag) > TAG_BYTES:
        return f"a tag is at most {TAG_GRAPHEMES} graphemes and {TAG_BYTES} bytes"
    return None
