"""Per-platform caption caps and media rules (fanout/platforms/rules.py).

Numbers come from docs/platforms.md (a section per platform) and
docs/decisions.md#media.
"""
from __future__ import annotations

import dataclasses

import pytest

from fanout.platforms import PLATFORMS, RULES, caption_problem, media_problem
from fanout.platforms.rules import url_extension

GRINNING = "\U0001f600"


def image(name: str = "a.jpg") -> dict:
    return {"url": f"https://cdn.example.com/m/{name}", "type": "image"}


def video(name: str = "v.mp4") -> dict:
    return {"url": f"https://cdn.example.com/m/{name}", "type": "video"}


def test_there_are_rules_for_every_platform_and_no_other():
    assert set(RULES) == set(PLATFORMS)
    assert all(rules.platform == name for name, rules in RULES.items())
    assert all(rules.media_limits.platform == name for name, rules in RULES.items())


# The format each extension the request rules accept names, as sniffed from the bytes.
EXTENSION_FORMAT = {"jpg": "jpeg", "jpeg": "jpeg", "jpe": "jpeg", "jfif": "jpeg", "png": "png", "gif": "gif",
                    "webp": "webp", "mp4": "mp4", "m4v": "mp4", "mov": "mov", "webm": "webm"}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_file_whose_extension_passes_the_request_is_a_format_the_fetch_check_takes(platform):
    rules = RULES[platform]
    for kind, extensions in (("image", rules.image_extensions), ("video", rules.video_extensions)):
        named = {EXTENSION_FORMAT[e] for e in extensions if e in EXTENSION_FORMAT}
        assert named <= rules.media_limits.formats(kind), (kind, named)


# --- Captions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "at_limit", "over"),
    [
        ("threads", "a" * 500, "a" * 501),
        ("threads", GRINNING * 125, GRINNING * 125 + "a"),  # an emoji counts its 4 UTF-8 bytes
        ("x", "a" * 280, "a" * 281),
        ("x", "日" * 140, "日" * 140 + "a"),  # CJK weighs 2
        ("x", "a" * 256 + " https://example.com/" + "p" * 500, "a" * 257 + " https://example.com/" + "p" * 500),
        ("instagram", "a" * 2200, "a" * 2201),
        ("instagram", "e\u0301" * 2200, "e\u0301" * 2201),  # counted after NFC
        ("tiktok", "a" * 2200, "a" * 2201),
        ("tiktok", GRINNING * 1100, GRINNING * 1100 + "a"),  # an astral emoji is 2 UTF-16 units
        ("mastodon", "a" * 10000, "a" * 10001),  # the static bound; the instance's own cap is the adapter's
    ],
)
def test_a_caption_at_the_limit_is_fine_and_one_more_is_too_long(platform, at_limit, over):
    assert caption_problem(platform, at_limit) is None
    assert caption_problem(platform, over) is not None


@pytest.mark.parametrize(
    ("platform", "caption", "expected"),
    [
        ("threads", "a" * 612, "caption is 612 characters"),
        ("threads", "a" * 612, "threads allows 500"),
        ("x", "a" * 300, "caption is 300 characters as X counts them"),
        ("x", "a" * 300, "x allows 280"),
        ("instagram", "a" * 2300, "caption is 2300 characters; instagram allows 2200"),
        ("tiktok", GRINNING * 1101, "caption is 2202 characters in UTF-16 code units; tiktok allows 2200"),
        ("mastodon", "a" * 10001, "caption is 10001 characters counted as graphemes"),
    ],
)
def test_the_caption_message_gives_the_count_and_the_platform_cap(platform, caption, expected):
    assert expected in caption_problem(platform, caption)


@pytest.mark.parametrize(
    ("platform", "at_cap", "over", "message"),
    [
        ("instagram", " ".join(f"#t{i}" for i in range(30)), " ".join(f"#t{i}" for i in range(31)),
         "caption has 31 hashtags; instagram allows 30"),
        ("instagram", " ".join(f"@u{i}" for i in range(20)), " ".join(f"@u{i}" for i in range(21)),
         "caption has 21 @mentions; instagram allows 20"),
        ("threads", " ".join(f"https://s{i}.com" for i in range(5)), " ".join(f"https://s{i}.com" for i in range(6)),
         "caption has 6 distinct links; threads allows 5"),
    ],
)
def test_hashtag_mention_and_link_caps(platform, at_cap, over, message):
    assert caption_problem(platform, at_cap) is None
    assert caption_problem(platform, over) == message


@pytest.mark.parametrize("platform", ["threads", "tiktok", "x"])
def test_only_instagram_caps_hashtags_and_mentions(platform):
    assert caption_problem(platform, "#a #b #c #d #e #f #g #h #i #j #k #l #m #n #o #p #q #r #s #t #u #v #w #x "
                                       "#y #z #aa #bb #cc #dd #ee") is None
    assert caption_problem(platform, " ".join(f"@u{i}" for i in range(21))) is None


def test_repeating_a_link_does_not_count_it_twice_for_threads():
    assert caption_problem("threads", " ".join(["https://same.example.com"] * 6)) is None


# --- Text-only posts -------------------------------------------------------------------------


@pytest.mark.parametrize("media", [None, []])
@pytest.mark.parametrize("platform", ["threads", "x"])
def test_a_text_only_post_is_fine_for_threads_and_x(platform, media):
    assert media_problem(platform, media) is None


@pytest.mark.parametrize("media", [None, []])
@pytest.mark.parametrize(
    ("platform", "message"),
    [
        (
            "instagram",
            (
                "instagram: a text-only post is not possible; "
                "instagram needs an image or a video, or a carousel of 2-10 of them"
            ),
        ),
        ("tiktok", "tiktok: a text-only post is not possible; tiktok needs a video or 1-35 photos"),
    ],
)
def test_a_text_only_post_is_refused_for_instagram_and_tiktok(platform, message, media):
    assert media_problem(platform, media) == message


# --- Counts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "kind", "most"),
    [
        ("instagram", image, 10),
        ("instagram", video, 10),
        ("threads", image, 20),
        ("threads", video, 20),
        ("tiktok", image, 35),
        ("tiktok", video, 1),
        ("x", image, 4),
        ("x", video, 1),
    ],
)
def test_the_most_items_of_one_type_are_fine_and_one_more_is_refused(platform, kind, most):
    assert media_problem(platform, [kind() for _ in range(most)]) is None
    assert media_problem(platform, [kind() for _ in range(most + 1)]) is not None


@pytest.mark.parametrize(
    ("platform", "media", "message"),
    [
        ("x", [image("a.jpg")] * 4 + [image("e.gif")],
         "x: media[4] (https://cdn.example.com/m/e.gif): x takes at most 4 images"),
        ("x", [video("a.mp4"), video("b.mp4")],
         "x: media[1] (https://cdn.example.com/m/b.mp4): x takes at most 1 video"),
        ("tiktok", [video("a.mp4"), video("b.mov")],
         "tiktok: media[1] (https://cdn.example.com/m/b.mov): tiktok takes at most 1 video"),
        ("tiktok", [image("p.jpg")] * 35 + [image("last.jpg")],
         "tiktok: media[35] (https://cdn.example.com/m/last.jpg): tiktok takes at most 35 photos"),
    ],
)
def test_a_count_message_names_the_platform_and_the_first_item_too_many(platform, media, message):
    assert media_problem(platform, media) == message


@pytest.mark.parametrize(("platform", "most"), [("instagram", 10), ("threads", 20)])
def test_a_mixed_carousel_counts_images_and_videos_together(platform, most):
    assert media_problem(platform, [image(), video()] * (most // 2)) is None
    over = [image(), video()] * (most // 2) + [image("extra.jpg")]
    assert media_problem(platform, over) == (
        f"{platform}: media[{most}] (https://cdn.example.com/m/extra.jpg): "
        f"{platform} takes at most {most} media items in one post"
    )


def taken(platform: str) -> list[str]:
    """The kinds of media item a platform takes (a video-only one takes no images)."""
    rules = RULES[platform]
    return [kind for kind, extensions in (("image", rules.image_extensions), ("video", rules.video_extensions))
            if extensions]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_single_item_of_a_kind_the_platform_takes_is_fine_everywhere(platform):
    assert taken(platform)
    for kind in taken(platform):
        assert media_problem(platform, [image() if kind == "image" else video()]) is None


def test_a_platform_that_takes_no_images_refuses_an_image_whatever_its_url_says():
    rules = dataclasses.replace(RULES["tiktok"], platform="videos", image_extensions=frozenset(), max_items=1,
                                max_images=0)
    for url in ("https://cdn.example.com/m/a.jpg", "https://cdn.example.com/media/12345"):
        assert rules.media_problem([{"url": url, "type": "image"}]) == (
            f"videos: media[0] ({url}): videos takes no photos; it takes a video")
    assert rules.media_problem([]) == "videos: a text-only post is not possible; videos needs a video"
    assert rules.media_problem([video()]) is None


# --- Mixing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["instagram", "threads"])
def test_carousels_may_mix_images_and_videos(platform):
    assert media_problem(platform, [image(), video(), image()]) is None


@pytest.mark.parametrize(
    ("platform", "media", "message"),
    [
        (
            "x",
            [image("a.jpg"), image("b.png"), video("c.mp4")],
            (
                "x: media[2] (https://cdn.example.com/m/c.mp4): "
                "x does not mix images and videos in one post; it takes a video or 1-4 images"
            ),
        ),
        (
            "tiktok",
            [video("c.mp4"), image("a.jpg")],
            (
                "tiktok: media[1] (https://cdn.example.com/m/a.jpg): "
                "tiktok does not mix images and videos in one post; it takes a video or 1-35 photos"
            ),
        ),
    ],
)
def test_x_and_tiktok_refuse_images_with_videos_naming_the_first_odd_item(platform, media, message):
    assert media_problem(platform, media) == message


# --- File extensions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "item"),
    [
        ("instagram", image("a.jpg")),
        ("instagram", image("a.jpeg")),
        ("instagram", video("a.mp4")),
        ("instagram", video("a.mov")),
        ("threads", image("a.png")),
        ("threads", video("a.mov")),
        ("tiktok", image("a.webp")),
        ("tiktok", video("a.webm")),
        ("x", image("a.gif")),
        ("x", image("a.webp")),
        ("x", image("a.png")),
        ("x", video("a.mp4")),
        ("x", video("a.gif")),  # X's one animated GIF takes a post alone, like a video
        ("x", video("a.webm")),  # X names no video container (docs/platforms.md#x): X judges the file
    ],
)
def test_an_extension_the_platform_takes_is_fine(platform, item):
    assert media_problem(platform, [item]) is None


@pytest.mark.parametrize(
    ("platform", "item", "message"),
    [
        ("tiktok", image("a.gif"), "tiktok does not take .gif photos (it takes .jfif, .jpe, .jpeg, .jpg, .webp)"),
        ("tiktok", image("a.png"), "tiktok does not take .png photos"),
        ("instagram", image("a.webp"), "instagram does not take .webp images (it takes .jfif, .jpe, .jpeg, .jpg)"),
        ("instagram", image("a.png"), "instagram does not take .png images"),
        ("instagram", image("a.mpo"), "instagram does not take .mpo images"),
        ("instagram", video("a.webm"), "instagram does not take .webm videos (it takes .m4v, .mov, .mp4)"),
        ("threads", image("a.webp"), "threads does not take .webp images"),
        ("threads", image("a.gif"), "threads does not take .gif images"),
        ("x", image("a.heic"), "x does not take .heic images"),
    ],
)
def test_an_extension_the_platform_never_takes_is_refused(platform, item, message):
    problem = media_problem(platform, [item])
    assert problem.startswith(f"{platform}: media[0] ({item['url']}): ")
    assert message in problem


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_image_file_declared_as_a_video_is_refused(platform):
    assert media_problem(platform, [video("a.png")]) == (
        f"{platform}: media[0] (https://cdn.example.com/m/a.png): .png is an image file, but the item's type is video"
    )


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_video_file_declared_as_an_image_is_refused(platform):
    assert media_problem(platform, [image("a.mp4")]) == (
        f"{platform}: media[0] (https://cdn.example.com/m/a.mp4): .mp4 is a video file, but the item's type is image"
    )


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_url_without_an_extension_is_fine(platform):
    items = [{"url": "https://cdn.example.com/media/12345", "type": taken(platform)[0]}]
    assert media_problem(platform, items) is None


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_extension_that_names_no_media_format_is_left_to_the_fetch(platform):
    items = [{"url": "https://cdn.example.com/render.php?id=7", "type": taken(platform)[0]}]
    assert media_problem(platform, items) is None


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.example.com/a.jpg?v=1",
        "https://cdn.example.com/a.jpg#top",
        "https://cdn.example.com/a.JPG",
        "https://cdn.example.com/A.JpEg?size=large&v=2",
    ],
)
def test_query_fragment_and_case_do_not_change_the_extension(url):
    assert media_problem("instagram", [{"url": url, "type": "image"}]) is None


def test_an_extension_in_the_query_string_is_not_the_files():
    item = {"url": "https://cdn.example.com/image?format=.gif", "type": "image"}
    assert media_problem("tiktok", [item]) is None


def test_the_first_item_with_a_wrong_extension_is_named():
    media = [image("ok.jpg"), image("bad.gif"), image("worse.bmp")]
    assert media_problem("tiktok", media).startswith("tiktok: media[1] (https://cdn.example.com/m/bad.gif): ")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://h/a.jpg", "jpg"),
        ("https://h/a.JPG?v=1", "jpg"),
        ("https://h/dir.d/file", None),  # a dot in a directory is not the file's
        ("https://h/a.jpg/", None),
        ("https://h/a%2Ejpg", "jpg"),
        ("https://h/a.jpg;jsessionid=1", "jpg"),
        ("https://h/archive.tar.gz", "gz"),
        ("https://h/", None),
        ("https://h/a.", None),
    ],
)
def test_url_extension(url, expected):
    assert url_extension(url) == expected
