"""Facebook's rules (fanout/platforms/facebook/rules.py): the caption's cap, what a post may
carry judged from the request alone, alt text on photos (docs/platforms.md#facebook)."""
from __future__ import annotations

from fanout.platforms import caption_problem
from fanout.platforms.facebook import RULES


def items(kind: str, n: int, extension: str = "jpg") -> list[dict]:
    return [{"url": f"https://cdn.example.com/{kind}{i}.{extension}", "type": kind} for i in range(n)]


def test_the_caption_cap_is_63206_characters():
    assert caption_problem("facebook", "a" * 63206) is None
    assert caption_problem("facebook", "a" * 63207) == "caption is 63207 characters; facebook allows 63206"
    assert caption_problem("facebook", "😀" * 63206) is None  # code points, not UTF-16 units


def test_a_first_comment_is_held_to_the_captions_cap():
    assert RULES.comment_problem("a" * 63206) is None
    assert RULES.comment_problem("a" * 63207) is not None


def test_text_alone_ten_photos_or_one_video_never_mixed():
    assert RULES.media_problem([]) is None
    assert RULES.media_problem(items("image", 10)) is None
    assert "at most 10 images" in RULES.media_problem(items("image", 11))
    assert "at most 1 video" in RULES.media_problem(items("video", 2, "mp4"))
    assert "does not mix" in RULES.media_problem(items("image", 1) + items("video", 1, "mp4"))


def test_the_formats_facebook_takes_by_their_extension():
    for extension in ("jpg", "png", "gif", "bmp", "tiff"):
        assert RULES.media_problem(items("image", 1, extension)) is None, extension
    assert RULES.media_problem(items("video", 1, "mov")) is None
    assert "does not take .webp images" in RULES.media_problem(items("image", 1, "webp"))
    assert "does not take .webm videos" in RULES.media_problem(items("video", 1, "webm"))


def test_alt_text_goes_with_photos_only():
    assert RULES.alt_text_of({"url": "u", "type": "image", "alt_text": "a door"}) == "a door"
    assert RULES.alt_text_of({"url": "u", "type": "video", "alt_text": "a door"}) is None
