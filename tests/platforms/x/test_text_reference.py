"""x_weighted_length agrees with the official twitter-text.

tests/data/twitter_text_v3.json holds strings with the weighted length twitter-text 3.1.0
(npm, run by node) gives them; tests/data/twitter_text_v3.py wrote it and says how. No
node here: the recorded values are the reference.
"""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from fanout.platforms.text import extract_urls
from fanout.platforms.x.text import x_weighted_length

REFERENCE = Path(__file__).parents[2] / "data" / "twitter_text_v3.json"
CASES = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]
# CJK ideographs (with extension A and compatibility), kana and Hangul syllables
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff]")


def test_x_weighted_length_equals_twitter_text_on_every_recorded_string():
    mismatches = [
        f"{case['text']!r}: twitter-text {case['weightedLength']}, ours {ours}"
        for case in CASES
        if (ours := x_weighted_length(case["text"])) != case["weightedLength"]
    ]
    assert not mismatches, f"{len(mismatches)} of {len(CASES)} differ:\n" + "\n".join(mismatches)


def test_extract_urls_equals_twitter_text_on_every_recorded_string():
    # The same extractor finds Threads' links (link_count), so its URLs must agree too.
    mismatches = [
        f"{case['text']!r}: twitter-text {case['urls']}, ours {ours}"
        for case in CASES
        if (ours := extract_urls(case["text"])) != case["urls"]
    ]
    assert not mismatches, f"{len(mismatches)} of {len(CASES)} differ:\n" + "\n".join(mismatches)


def test_the_reference_covers_urls_emoji_cjk_and_combining_marks():
    # What twitter-text itself found (its URLs, its emoji parser's entities) decides
    # "has a URL" and "has an emoji", so the coverage does not rest on our own code.
    def count(predicate) -> int:
        return sum(1 for case in CASES if predicate(case))

    assert len(CASES) >= 1000
    assert count(lambda case: case["urls"]) >= 200
    assert count(lambda case: case["emoji"]) >= 200
    assert count(lambda case: _CJK.search(case["text"])) >= 200
    # A combining mark proper (U+0301, U+0308, ...): variation selectors are marks of class 0.
    assert count(lambda case: any(unicodedata.combining(ch) for ch in case["text"])) >= 200
