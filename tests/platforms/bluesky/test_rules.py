"""Bluesky's rules (fanout/platforms/bluesky/rules.py): what a post may carry, judged from
the request alone (docs/platforms.md#bluesky)."""
from __future__ import annotations

from fanout.platforms.bluesky import RULES


def items(kind: str, n: int, extension: str = "jpg") -> list[dict]:
    return [{"url": f"https://cdn.example.com/{kind}{i}.{extension}", "type": kind} for i in range(n)]


def test_the_caption_message_names_graphemes_and_the_cap():
    assert RULES.caption_problem("a" * 300) is None
    assert RULES.caption_problem("a" * 301).startswith("caption is 301 characters counted as graphemes")


def test_four_images_and_one_video_are_the_most():
    assert RULES.media_problem(items("image", 4)) is None
    assert "at most 4 images" in RULES.media_problem(items("image", 5))
    assert RULES.media_problem(items("video", 1, "mp4")) is None
    assert "at most 1 video" in RULES.media_problem(items("video", 2, "mp4"))


def test_images_and_a_video_do_not_mix():
    assert "does not mix" in RULES.media_problem(items("image", 1) + items("video", 1, "mp4"))


def test_a_text_post_is_fine_and_only_mp4_videos_are_taken():
    assert RULES.media_problem([]) is None
    assert "does not take .mov videos" in RULES.media_problem(items("video", 1, "mov"))
