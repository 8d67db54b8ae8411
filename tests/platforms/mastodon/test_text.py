"""Mastodon's count (fanout/platforms/mastodon/text.py): what an instance's
`max_characters` applies to, the content warning and the text together, a link 23, a
remote mention its local part, grapheme clusters (docs/platforms.md#mastodon). The
emulator counts on its own (tests/emulators/mastodon/text.py); the two agree here."""
from __future__ import annotations

import pytest

from fanout.platforms.mastodon.text import countable, mastodon_length

from ...emulators.mastodon.text import status_length

CASES = [
    ("plain", "", 5),
    ("plain", "cw", 7),
    ("see https://example.com/" + "x" * 200, "", 4 + 23),
    ("see http://a.co", "", 4 + 23),  # a short link counts 23 too
    ("bare example.com stays", "", len("bare example.com stays")),
    ("hi @alice@social.example.org!", "", len("hi @alice!")),
    ("mail me@example.com", "", len("mail me@example.com")),
    ("👩‍👩‍👧‍👦🇫🇷", "", 2),
    ("e\u0301", "", 1),
]


@pytest.mark.parametrize(("text", "spoiler", "count"), CASES)
def test_a_status_counts_as_mastodon_counts_it(text, spoiler, count):
    assert mastodon_length(text, spoiler) == count


@pytest.mark.parametrize(("text", "spoiler", "count"), CASES)
def test_the_emulator_counts_the_same(text, spoiler, count):
    assert status_length(text, spoiler) == count


def test_links_and_remote_mentions_are_rewritten_in_place():
    assert countable("a https://x.org/p b @bo@far.example c") == f"a {'x' * 23} b @bo c"
