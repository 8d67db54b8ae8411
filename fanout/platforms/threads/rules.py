"""Threads's caption and media rules (docs/platforms.md#threads), on fanout/platforms/rules.py's
`PlatformRules`."""
from fractions import Fraction

from ...media import MB, MediaLimits
from ..rules import JPEG, MOV, MP4, CountedCap, Needs, PlatformRules
from .text import link_count, threads_length

RULES = PlatformRules(
    platform="threads",
    caption_limit=500,
    caption_length=threads_length,
    caption_unit=" (an emoji counts its UTF-8 bytes)",
    # docs/platforms.md#threads: "at most 5 unique links" [C]
    counted=(CountedCap(5, link_count, "distinct links"),),
    needs=Needs.TEXT_OR_MEDIA,
    image_extensions=JPEG | {"png"},  # docs/platforms.md#threads: "JPEG and PNG"
    video_extensions=MP4 | MOV,  # "MOV/MP4"
    # single post, or a carousel of 2-20 "images, videos, or a mix".
    max_items=20,
    max_images=20,
    max_videos=20,
    mixed=True,
    media_limits=MediaLimits(
        platform="threads",
        image_formats=frozenset({"jpeg", "mpo", "png"}),
        video_formats=frozenset({"mp4", "mov"}),
        image_max_bytes=8 * MB,
        video_max_bytes=1000 * MB,
        # "aspect-ratio limit 10:1": either way round.
        min_aspect=Fraction(1, 10),
        max_aspect=Fraction(10),
        max_seconds=5 * 60,  # "> 0 s": no video has a duration of 0 (fanout/media.py)
    ),
)
