"""Bluesky's caption and media rules (docs/platforms.md#bluesky), on fanout/platforms/rules.py's
`PlatformRules`."""
from ...media import MB, MediaLimits
from ..rules import AltText, JPEG, MP4, Needs, PlatformRules
from .text import GRAPHEMES, bluesky_length

RULES = PlatformRules(
    platform="bluesky",
    caption_limit=GRAPHEMES,
    caption_length=bluesky_length,
    caption_unit=" counted as graphemes (a tenth of its UTF-8 bytes when more: Bluesky caps a post at 3,000 bytes too)",
    needs=Needs.TEXT_OR_MEDIA,
    # app.bsky.embed.images takes image/*: the formats browsers show.
    image_extensions=JPEG | {"png", "gif", "webp"},
    # app.bsky.embed.video is video/mp4.
    video_extensions=MP4,
    # 1-4 images, or one video; an embed is one or the other.
    max_items=4,
    max_images=4,
    max_videos=1,
    mixed=False,
    # `alt` on each image of app.bsky.embed.images and on app.bsky.embed.video; the
    # Lexicon states no cap (docs/platforms.md#alt-text).
    alt_text=AltText(frozenset({"image", "video"})),
    media_limits=MediaLimits(
        platform="bluesky",
        image_formats=frozenset({"jpeg", "mpo", "png", "gif", "webp"}),
        video_formats=frozenset({"mp4"}),
        # docs/platforms.md#bluesky: the Lexicon says 2,000,000 but servers enforced 1,000,000
        # until 2026 [CONFLICT]; the smaller one works everywhere.
        image_max_bytes=1 * MB,
        # The video service: 100 MB ("formerly limited to 100mb" in the Lexicon, which now
        # says 300) and 3 minutes [U].
        video_max_bytes=100 * MB,
        max_seconds=3 * 60,
    ),
)
