"""LinkedIn's commentary (fanout/platforms/linkedin/text.py): every reserved character of
the little text format escaped but a hashtag's `#`, and the 3,000 counted on what is sent
(docs/platforms.md#linkedin). The emulator's reading of little text
(tests/emulators/linkedin/text.py) shows a caption escaped here as it was written."""
from __future__ import annotations

import pytest

from fanout.platforms.linkedin.text import escape, linkedin_length

from ...emulators.linkedin.text import shown


@pytest.mark.parametrize(("caption", "sent"), [
    ("plain words, and punctuation: fine!", "plain words, and punctuation: fine!"),
    ("(a) [b] {c} <d>", r"\(a\) \[b\] \{c\} \<d\>"),
    ("a_b*c~d|e", r"a\_b\*c\~d\|e"),
    ("me@example.com", r"me\@example.com"),
    ("back\\slash", r"back\\slash"),
    ("#launch and C# and #", r"#launch and C\# and \#"),
    ("https://example.com/a_b(c)", r"https://example.com/a\_b\(c\)"),
])
def test_reserved_characters_are_escaped_and_hashtags_stay_live(caption, sent):
    assert escape(caption) == sent


@pytest.mark.parametrize("caption", ["(a) [b] {c} <d> a_b*c~d|e me@x #tag C# \\ end", "日本語 😀 (test)"])
def test_linkedin_shows_an_escaped_caption_as_it_was_written(caption):
    assert shown(escape(caption)) == caption


def test_the_count_is_of_the_commentary_as_sent():
    assert linkedin_length("a" * 3000) == 3000
    assert linkedin_length("_" * 1500) == 3000
    assert linkedin_length("😀") == 1  # a code point
