"""TikTok's caption and media rules (docs/platforms.md#tiktok), on fanout/platforms/rules.py's
`PlatformRules`."""
from ...media import MB, MediaLimits
from ..rules import JPEG, MOV, MP4, PlatformRules
from ..text import utf16_len

RULES = PlatformRules(
    platform="tiktok",
    # docs/platforms.md#tiktok: a video's `title` is at most 2200 UTF-16 units [C]. A photo post has a
    # `title` of 90 and a `description` of 4000 [S]: the caption goes to the
    # description there, so the same 2200 cap (docs/decisions.md#captions) always fits it, and the
    # 90-unit photo title is never filled from the caption.
    caption_limit=2200,
    caption_length=utf16_len,
    caption_unit=" in UTF-16 code units",
    text_only=False,
    # photos "JPEG or WEBP (PNG not accepted on photo posts)" [S];
    # video "MP4 (recommended), WebM, MOV".
    image_extensions=JPEG | {"webp"},
    video_extensions=MP4 | MOV | {"webm"},
    # one video, or up to 35 photos; "photos and videos cannot be mixed" [S].
    max_items=35,
    max_images=35,
    max_videos=1,
    mixed=False,
    media_limits=MediaLimits(
        platform="tiktok",
        image_formats=frozenset({"jpeg", "mpo", "webp"}),
        video_formats=frozenset({"mp4", "mov", "webm"}),
        image_max_bytes=20 * MB,  # [S]; "<= 1080p" [S] is left to TikTok
        video_max_bytes=4000 * MB,
        # 3 s [S] to 10 min; the creator's own maximum (creator_info's
        # max_video_post_duration_sec) narrows it at publish time.
        min_seconds=3,
        max_seconds=10 * 60,
    ),
    image_noun="photo",
)
