"""YouTube's texts (docs/platforms.md#youtube): the caption is the video's description,
capped in UTF-8 bytes; the title is `options.title`, or the caption's first line of text
cut at 100 characters; neither may hold `<` or `>` [C]; tags are counted as YouTube counts
them against their 500 characters [C]."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DESCRIPTION_LIMIT = 5000  # bytes of UTF-8
TITLE_LIMIT = 100  # characters
TAGS_LIMIT = 500
REFUSED = "<>"


def description_length(caption: str) -> int:
    """What the description's 5,000 counts: the caption's UTF-8 bytes."""
    return len(caption.encode("utf-8"))


def default_title(caption: str) -> str:
    """The caption's first line with text, stripped and cut at 100 characters ("" when it
    has none)."""
    line = next((line.strip() for line in caption.splitlines() if line.strip()), "")
    return line[:TITLE_LIMIT].rstrip()


def title_of(caption: str, options: Mapping[str, Any]) -> str:
    """The video's title: the post's `options.title`, else made from the caption."""
    return options.get("title") or default_title(caption)


def tags_length(tags: Sequence[str]) -> int:
    """Tags as YouTube counts them against 500: each tag's characters, a tag holding a space
    as if quoted (2 more), and the commas between them."""
    return sum(len(tag) + 2 if " " in tag else len(tag) for tag in tags) + max(len(tags) - 1, 0)
