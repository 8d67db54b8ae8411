"""Instagram's caption and media rules (docs/platforms.md#instagram), on fanout/platforms/rules.py's
`PlatformRules`."""
from fractions import Fraction

from ...media import MB, MediaLimits
from ...target_errors import OPTION
from ..rules import AltText, JPEG, MOV, MP4, CountedCap, Needs, PlatformRules, TextCap
from .text import hashtag_count, instagram_length, link_count, mention_count

# A Reel's options (openapi.yaml, `InstagramOptions`): Instagram takes them on a Reel's
# container only.
REEL_ONLY = ("share_to_feed", "cover_url", "thumb_offset")


def options_problem(options, media) -> tuple[str, str] | None:
    """Options this content cannot take: a Reel's on anything but one video."""
    reel = len(media) == 1 and media[0]["type"] == "video"
    for name in REEL_ONLY:
        if name in options and not reel:
            return OPTION, (f"options.{name} is for a Reel (one video); this instagram post is "
                            f"{_kind(media)}")
    return None


def _kind(media) -> str:
    if len(media) > 1:
        return f"a carousel of {len(media)} items"
    return "an image" if media else "text only"


RULES = PlatformRules(
    platform="instagram",
    # docs/platforms.md#instagram: "Maximum 2200 characters, 30 hashtags, and 20 @ tags";
    # the unit is [U]: code points after NFC, our choice.
    caption_limit=2200,
    caption_length=instagram_length,
    caption_unit="",
    counted=(CountedCap(30, hashtag_count, "hashtags"), CountedCap(20, mention_count, "@mentions")),
    needs=Needs.MEDIA,
    # Comments through the API: "cannot exceed 300 characters", "no more than 4 hashtags",
    # "no more than 1 URL" (Instagram's API rules for comments [S]; the Graph API reference
    # states none): counted as captions are.
    comment_cap=TextCap(300, instagram_length, "", (CountedCap(4, hashtag_count, "hashtags"),
                                                    CountedCap(1, link_count, "distinct links"))),
    options_problem=options_problem,
    # "JPEG is the only image format supported" (MPO and JPS named as not supported);
    # Reels: "MOV or MP4".
    image_extensions=JPEG,
    video_extensions=MP4 | MOV,
    # A single image or Reel, or a carousel of 2-10 "images and/or videos".
    max_items=10,
    max_images=10,
    max_videos=10,
    mixed=True,
    # `alt_text` on an image's container: "optional, images only, <=1000 chars" [C].
    alt_text=AltText(frozenset({"image"}), 1000),
    media_limits=MediaLimits(
        platform="instagram",
        image_formats=frozenset({"jpeg"}),  # an MPO (multi-picture JPEG) is refused
        video_formats=frozenset({"mp4", "mov"}),
        image_max_bytes=8 * MB,
        # Reels: 300 MB, where older copies of the page say 1 GB [CONFLICT]: the smaller.
        video_max_bytes=300 * MB,
        min_aspect=Fraction(4, 5),
        max_aspect=Fraction(191, 100),
        min_seconds=3,
        max_seconds=15 * 60,
    ),
)
