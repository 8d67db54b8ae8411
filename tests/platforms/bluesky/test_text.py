"""Bluesky's text (fanout/platforms/bluesky/text.py): the count its 300 applies to (graphemes,
and the 3,000 UTF-8 bytes beside them) and the facets that make links, mentions and
hashtags, in UTF-8 byte offsets (docs/platforms.md#bluesky)."""
from __future__ import annotations

import pytest

from fanout.platforms.bluesky.text import bluesky_length, facets, mentioned

FAMILY = "\U0001F469\u200d\U0001F469\u200d\U0001F467"  # one grapheme, 18 bytes


@pytest.mark.parametrize(("text", "expected"), [
    ("a" * 300, 300),
    ("é" * 300, 300),  # 600 bytes: still the graphemes
    ("e\u0301" * 10, 10),  # a letter and its combining accent are one grapheme
    (FAMILY * 166, 299),  # 2,988 bytes: a tenth is 299, more than its 166 graphemes
    (FAMILY * 167, 301),  # 3,006 bytes: over the 3,000
    ("\U0001F1EB\U0001F1F7", 1),  # a flag
])
def test_the_count_is_graphemes_or_a_tenth_of_the_bytes(text, expected):
    assert bluesky_length(text) == expected


def spans(text: str, found: list[dict]) -> list[tuple[str, dict]]:
    """Each facet as the text it covers (cut from the UTF-8 bytes) and its feature."""
    data = text.encode()
    return [(data[f["index"]["byteStart"]:f["index"]["byteEnd"]].decode(), f["features"][0]) for f in found]


def test_offsets_are_utf8_bytes_not_characters():
    text = "日本語 https://example.com/日本"
    [(covered, feature)] = spans(text, facets(text, {}))
    assert covered == "https://example.com/日本" and feature["uri"] == covered
    assert facets(text, {})[0]["index"]["byteStart"] == len("日本語 ".encode())


def test_sentence_punctuation_after_a_link_is_not_the_links():
    text = "see (https://example.com/a_(b)), then https://example.com/c."
    assert [c for c, _ in spans(text, facets(text, {}))] == ["https://example.com/a_(b)", "https://example.com/c"]


def test_a_mention_is_a_facet_only_when_its_handle_resolved():
    text = "hi @alice.bsky.social and @bob.bsky.social"
    found = spans(text, facets(text, {"alice.bsky.social": "did:plc:alice"}))
    assert found == [("@alice.bsky.social", {"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:alice"})]


def test_mentions_are_handles_outside_links_once_each_in_lower_case():
    text = "@Alice.bsky.social, mail me@example.com, https://example.com/@bob.bsky.social @alice.bsky.social @nodot"
    assert mentioned(text) == ["alice.bsky.social"]


@pytest.mark.parametrize(("text", "tags"), [
    ("#launch day", ["launch"]),
    ("a #2026 year", []),  # digits alone are no tag
    ("C# and a#b", []),  # a tag starts a word
    ("#日本 #día", ["日本", "día"]),
    ("#" + "a" * 65, []),  # longer than 64
])
def test_hashtags(text, tags):
    assert [f["tag"] for _, f in spans(text, facets(text, {}))] == tags


def test_a_hashtag_inside_a_link_is_the_links():
    text = "https://example.com/#section"
    assert [f["$type"] for _, f in spans(text, facets(text, {}))] == ["app.bsky.richtext.facet#link"]
