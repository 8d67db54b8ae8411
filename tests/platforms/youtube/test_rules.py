"""YouTube's rules (fanout/platforms/youtube/rules.py, text.py): one video and nothing else, the
caption as the video's description (5,000 UTF-8 bytes, no `<` or `>`), the title made from
its first line, the tags' 500 characters (docs/platforms.md#youtube)."""
from __future__ import annotations

import pytest

from fanout.platforms.youtube import RULES
from fanout.platforms.youtube.text import default_title, description_length, tags_length, title_of


def item(kind: str, name: str) -> dict:
    return {"url": f"https://cdn.example.com/{name}", "type": kind}


def test_one_video_of_the_formats_youtube_takes_and_nothing_else():
    for name in ("a.mp4", "a.mov", "a.webm", "a.avi", "a.wmv", "a.flv", "a.3gp", "a.mpg", "a/clip"):
        assert RULES.media_problem([item("video", name)]) is None, name
    assert RULES.media_problem([]) == "youtube: a text-only post is not possible; youtube needs a video"
    assert RULES.media_problem([item("image", "a.jpg")]) == (
        "youtube: media[0] (https://cdn.example.com/a.jpg): youtube takes no images; it takes a video")
    assert "youtube takes at most 1 video" in RULES.media_problem([item("video", "a.mp4"), item("video", "b.mp4")])
    assert "does not take .mkv videos" in RULES.media_problem([item("video", "a.mkv")])


def test_the_description_is_capped_in_utf8_bytes():
    assert description_length("é" * 2500) == 5000 and RULES.caption_problem("é" * 2500) is None
    assert RULES.caption_problem("é" * 2501) == ("caption is 5002 characters in UTF-8 bytes (the video's "
                                                 "description); youtube allows 5000")


@pytest.mark.parametrize("caption, title", [
    ("Launch day\nmore", "Launch day"),
    ("\n\n  Launch day  \nmore", "Launch day"),
    ("x" * 150, "x" * 100),
    ("x" * 99 + " yz", "x" * 99),  # cut at 100, the space after it dropped
    ("", ""),
    (" \n\t\n", ""),
])
def test_the_default_title_is_the_first_line_with_text_cut_at_100_characters(caption, title):
    assert default_title(caption) == title


def test_the_options_title_wins_over_the_caption():
    assert title_of("Caption line", {"title": "Own title"}) == "Own title"
    assert title_of("Caption line", {}) == "Caption line"


@pytest.mark.parametrize("caption, options, refused", [
    ("a <b>", {}, "YouTube refuses < and > in one"),
    ("1 > 0", {"title": "fine"}, "YouTube refuses < and > in one"),
    ("", {}, "a video needs a title"),
    ("", {"title": "Named"}, None),
    ("Launch\nday", {}, None),
])
def test_what_youtube_refuses_outright_is_a_request_problem(caption, options, refused):
    problem = RULES.request_problem(caption, options)
    assert (problem is None) if refused is None else refused in problem


def test_tags_are_counted_as_youtube_counts_them_against_500():
    assert tags_length(["a", "b c"]) == 1 + 1 + 5  # a comma, and "b c" quoted
    assert RULES.options_problem({"tags": ["x" * 249, "y" * 250]}, []) is None  # 249 + 1 + 250
    code, message = RULES.options_problem({"tags": ["x" * 250, "y" * 250]}, [])
    assert code == "platform_option_rejected" and "options.tags come to 501 characters" in message
    assert RULES.options_problem({"privacy_status": "private"}, []) is None


def test_a_first_comment_has_youtubes_comment_cap_not_the_descriptions():
    assert RULES.comment_problem("<" * 6000) is None
    assert "youtube allows 10000 in a comment" in RULES.comment_problem("a" * 10_001)
