"""LinkedIn's rules (fanout/platforms/linkedin/rules.py): what a post may carry, judged from
the request alone (docs/platforms.md#linkedin)."""
from __future__ import annotations

from fanout.platforms.linkedin import RULES


def items(kind: str, n: int, extension: str = "jpg") -> list[dict]:
    return [{"url": f"https://cdn.example.com/{kind}{i}.{extension}", "type": kind} for i in range(n)]


def test_the_caption_message_says_it_counts_the_escaped_text():
    assert RULES.caption_problem("a" * 3000) is None
    assert RULES.caption_problem("a_" * 1001).startswith("caption is 3003 characters once escaped for LinkedIn")


def test_up_to_20_images_or_one_video_never_mixed():
    assert RULES.media_problem(items("image", 20)) is None
    assert "at most 20 images" in RULES.media_problem(items("image", 21))
    assert "at most 1 video" in RULES.media_problem(items("video", 2, "mp4"))
    assert "does not mix" in RULES.media_problem(items("image", 1) + items("video", 1, "mp4"))


def test_a_text_post_is_fine_and_webp_is_not_taken():
    assert RULES.media_problem([]) is None
    assert "does not take .webp images" in RULES.media_problem(items("image", 1, "webp"))
