"""LinkedIn's caption and media rules (docs/platforms.md#linkedin), on fanout/platforms/rules.py's
`PlatformRules`."""
from ...media import MB, MediaLimits
from ..rules import AltText, JPEG, MP4, Needs, PlatformRules
from .text import COMMENTARY_LIMIT, linkedin_length

RULES = PlatformRules(
    platform="linkedin",
    caption_limit=COMMENTARY_LIMIT,
    caption_length=linkedin_length,
    caption_unit=" once escaped for LinkedIn (each of \\ | { } @ [ ] ( ) < > * _ ~, and a # that starts no hashtag, "
                 "counts 2)",
    needs=Needs.TEXT_OR_MEDIA,
    # The Images API: JPG, PNG, GIF [C]; the Videos API: MP4 [C].
    image_extensions=JPEG | {"png", "gif"},
    video_extensions=MP4,
    # One image, 2-20 as a multi-image post, or one video; never mixed [C].
    max_items=20,
    max_images=20,
    max_videos=1,
    mixed=False,
    # `altText` on an image of `content.media` or `content.multiImage` (docs/platforms.md#alt-text).
    alt_text=AltText(frozenset({"image"})),
    media_limits=MediaLimits(
        platform="linkedin",
        image_formats=frozenset({"jpeg", "mpo", "png", "gif"}),
        video_formats=frozenset({"mp4"}),
        # LinkedIn caps an image's pixels (36,152,320) [C], not its bytes; 5 MB is what
        # integrators hold to [S].
        image_max_bytes=5 * MB,
        video_max_bytes=500 * MB,  # 75 KB to 500 MB [C]: the smallest is LinkedIn's to refuse
        min_seconds=3,
        max_seconds=30 * 60,
    ),
)
