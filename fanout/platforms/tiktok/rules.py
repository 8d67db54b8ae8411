"""TikTok's caption and media rules (docs/platforms.md#tiktok), on fanout/platforms/rules.py's
`PlatformRules`."""
from ...media import MB, MediaLimits
from ...target_errors import CAPTION, OPTION
from ..rules import JPEG, MOV, MP4, Needs, PlatformRules
from ..text import utf16_len

# openapi.yaml, `TiktokOptions`: what only a photo post or only a video takes.
PHOTO_ONLY = ("title", "auto_add_music")
VIDEO_ONLY = ("disable_duet", "disable_stitch")
PHOTO_TITLE_LIMIT = 90  # UTF-16 units [S]


def options_problem(options, media) -> tuple[str, str] | None:
    """Options this content cannot take: a photo post's on a video and the other way round,
    and a photo title over its cap."""
    photos = any(item["type"] == "image" for item in media)
    for name in VIDEO_ONLY if photos else PHOTO_ONLY:
        if name in options:
            kind, other = ("a video", "a photo post") if photos else ("a photo post", "a video")
            return OPTION, f"options.{name} is for {kind}; this tiktok post is {other}"
    title = options.get("title")
    if title is not None and (length := utf16_len(title)) > PHOTO_TITLE_LIMIT:
        return CAPTION, (f"options.title is {length} characters in UTF-16 code units; tiktok allows "
                         f"{PHOTO_TITLE_LIMIT} for a photo post's title")
    return None


RULES = PlatformRules(
    platform="tiktok",
    # docs/platforms.md#tiktok: a video's `title` is at most 2200 UTF-16 units [C]. A photo post has a
    # `title` of 90 and a `description` of 4000 [S]: the caption goes to the
    # description there, so the same 2200 cap (docs/decisions.md#captions) always fits it, and the
    # 90-unit photo title is never filled from the caption.
    caption_limit=2200,
    caption_length=utf16_len,
    caption_unit=" in UTF-16 code units",
    needs=Needs.MEDIA,
    options_problem=options_problem,
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
