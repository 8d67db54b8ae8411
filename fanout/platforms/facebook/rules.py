"""Facebook's caption and media rules (docs/platforms.md#facebook), on fanout/platforms/rules.py's
`PlatformRules`."""
from ...media import MB, MediaLimits
from ..rules import JPEG, MOV, MP4, AltText, Needs, PlatformRules
from .text import MESSAGE_LIMIT, facebook_length

RULES = PlatformRules(
    platform="facebook",
    caption_limit=MESSAGE_LIMIT,
    caption_length=facebook_length,
    caption_unit="",
    needs=Needs.TEXT_OR_MEDIA,
    # Photos: JPEG, PNG, GIF, BMP, TIFF [S]; videos: MP4 and MOV, what Reels take [C] (a
    # Page video takes more, but which one a video becomes is read from an MP4's header).
    image_extensions=JPEG | {"png", "gif", "bmp", "tif", "tiff"},
    video_extensions=MP4 | MOV,
    # 1 to 10 photos attached to one post, or one video; never mixed (our choice, as the
    # decisions have it).
    max_items=10,
    max_images=10,
    max_videos=1,
    mixed=False,
    # `alt_text_custom` on each photo (docs/platforms.md#alt-text); no cap of its own.
    alt_text=AltText(frozenset({"image"})),
    media_limits=MediaLimits(
        platform="facebook",
        image_formats=frozenset({"jpeg", "mpo", "png", "gif", "bmp", "tiff"}),
        video_formats=frozenset({"mp4", "mov"}),
        image_max_bytes=4 * MB,  # "photos should be smaller than 4 MB" [S]
        # The video is fetched whole to read its header (a Reel or a Page video): 1 GB, our
        # choice; Facebook's own caps are larger.
        video_max_bytes=1000 * MB,
    ),
)
