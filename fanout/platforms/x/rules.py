"""X's caption and media rules (docs/platforms.md#x), on fanout/platforms/rules.py's
`PlatformRules`."""
from ...media import MB, VIDEO_FORMATS, MediaLimits
from ..rules import AltText, JPEG, KNOWN_VIDEO, Needs, PlatformRules
from .text import x_weighted_length

RULES = PlatformRules(
    platform="x",
    # docs/platforms.md#x: twitter-text v3 weighted length; the longer limit of X Premium is [U] and
    # not assumed.
    caption_limit=280,
    caption_length=x_weighted_length,
    caption_unit=" as X counts them (a URL 23, CJK and emoji 2)",
    needs=Needs.TEXT_OR_MEDIA,
    # "JPG, PNG, GIF, WEBP".
    image_extensions=JPEG | {"png", "gif", "webp"},
    # X names no video container, so every video extension passes here and X judges
    # the file. A .gif may be declared a video too: X's "1 animated GIF" takes a post
    # alone, as a video does. Whether a GIF sent as an image is animated (and so may
    # not join other images) only fetching tells.
    video_extensions=KNOWN_VIDEO | {"gif"},
    # "up to 4 photos, or 1 animated GIF, or 1 video", never together.
    max_items=4,
    max_images=4,
    max_videos=1,
    mixed=False,
    # POST /2/media/metadata after the upload: images and GIFs, 1,000 characters
    # (docs/platforms.md#alt-text).
    alt_text=AltText(frozenset({"image"}), 1000),
    media_limits=MediaLimits(
        platform="x",
        image_formats=frozenset({"jpeg", "mpo", "png", "gif", "webp"}),
        # Any video container (X judges the codec), and a GIF declared a video.
        video_formats=VIDEO_FORMATS | {"gif"},
        image_max_bytes=5 * MB,
        animated_max_bytes=15 * MB,
        video_max_bytes=512 * MB,
        min_seconds=0.5,
        max_seconds=140,
    ),
)
