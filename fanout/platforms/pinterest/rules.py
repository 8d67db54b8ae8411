"""Pinterest's caption and media rules (docs/platforms.md#pinterest), on fanout/platforms/rules.py's
`PlatformRules`: one image or one video a Pin, the caption its description."""
from ...media import MB, MediaLimits
from ...target_errors import OPTION
from ..rules import JPEG, MOV, MP4, AltText, Needs, PlatformRules

# PinCreate's caps, JSON Schema maxLength, so code points [C].
DESCRIPTION_LIMIT = 800
TITLE_LIMIT = 100
ALT_TEXT_LIMIT = 500
# openapi.yaml, `PinterestOptions`: what only a video Pin takes.
VIDEO_ONLY = ("cover_at_ms",)


def options_problem(options, media) -> tuple[str, str] | None:
    """A video Pin's option on an image Pin."""
    if any(item["type"] == "image" for item in media):
        for name in VIDEO_ONLY:
            if name in options:
                return OPTION, f"options.{name} is for a video Pin; this pinterest post is an image Pin"
    return None


RULES = PlatformRules(
    platform="pinterest",
    caption_limit=DESCRIPTION_LIMIT,
    caption_length=len,
    caption_unit="",
    needs=Needs.MEDIA,
    options_problem=options_problem,
    # Images JPEG, PNG, WebP, GIF; videos MP4, MOV, M4V [S].
    image_extensions=JPEG | {"png", "webp", "gif"},
    video_extensions=MP4 | MOV,
    # A Pin is one image or one video: carousels (2-5 images) are not offered.
    max_items=1,
    max_images=1,
    max_videos=1,
    mixed=False,
    # PinCreate's `alt_text`, the Pin's, whichever its media (docs/platforms.md#alt-text).
    alt_text=AltText(frozenset({"image", "video"}), ALT_TEXT_LIMIT),
    media_limits=MediaLimits(
        platform="pinterest",
        image_formats=frozenset({"jpeg", "mpo", "png", "webp", "gif"}),
        video_formats=frozenset({"mp4", "mov"}),
        image_max_bytes=20 * MB,  # "20-32 MB" [S]: the smaller
        video_max_bytes=2000 * MB,  # 2 GB [S]
        min_seconds=4,  # 4 s to 15 minutes [S]
        max_seconds=15 * 60,
    ),
)
