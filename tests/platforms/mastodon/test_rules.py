"""Mastodon's static rules (fanout/platforms/mastodon/rules.py): what holds on every
instance, so that the request refuses nothing a bigger instance takes; the instance's own
caps are read from it before posting (tests/platforms/mastodon/test_adapter.py)
(docs/platforms.md#mastodon)."""
from __future__ import annotations

from fanout.platforms.mastodon import RULES
from fanout.platforms.mastodon.instance import Instance, parse


def items(kind: str, n: int, extension: str = "jpg") -> list[dict]:
    return [{"url": f"https://cdn.example.com/{kind}{i}.{extension}", "type": kind} for i in range(n)]


def test_no_caption_a_request_may_carry_is_refused_here():
    assert RULES.caption_problem("a" * 10000) is None
    assert RULES.caption_problem("https://example.com/ " * 476) is None  # links count as written here


def test_more_images_than_mastodons_four_pass_the_request_one_video_alone():
    assert RULES.media_problem(items("image", 35)) is None
    assert "at most 1 video" in RULES.media_problem(items("video", 2, "mp4"))
    assert "does not mix" in RULES.media_problem(items("image", 1) + items("video", 1, "mp4"))


def test_mastodons_default_types_pass_the_request():
    for extension in ("jpg", "png", "gif", "webp", "heic", "avif"):
        assert RULES.media_problem(items("image", 1, extension)) is None
    for extension in ("mp4", "mov", "webm"):
        assert RULES.media_problem(items("video", 1, extension)) is None
    assert "does not take .bmp images" in RULES.media_problem(items("image", 1, "bmp"))


def test_an_instance_narrows_the_media_limits_to_what_it_states():
    instance = parse("social.example", {"configuration": {"media_attachments": {
        "supported_mime_types": ["image/jpeg", "video/mp4"], "image_size_limit": 1000, "video_size_limit": 2000}}})
    limits = instance.rules(RULES).media_limits
    assert (limits.image_formats, limits.video_formats) == ({"jpeg", "mpo"}, {"mp4"})
    assert (limits.image_max_bytes, limits.video_max_bytes) == (1000, 2000)


def test_an_instance_that_states_nothing_is_held_to_mastodons_numbers():
    instance = parse("old.example", {"uri": "old.example"})
    assert instance == Instance("old.example", 500, 4, 1500, 16_777_216, 103_809_024, None)
    assert instance.rules(RULES).media_limits.image_formats == RULES.media_limits.image_formats


def test_a_forks_cap_and_odd_values_are_read_as_they_can_be():
    assert parse("fork.example", {"max_toot_chars": 5000}).max_characters == 5000
    odd = parse("odd.example", {"configuration": {"statuses": {"max_characters": "many",
                                                                "max_media_attachments": -1}}})
    assert (odd.max_characters, odd.max_media_attachments) == (500, 4)
    assert Instance.from_saved(odd.saved()) == odd
