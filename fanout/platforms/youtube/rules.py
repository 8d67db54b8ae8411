"""YouTube's caption and media rules (docs/platforms.md#youtube), on fanout/platforms/rules.py's
`PlatformRules`: a video and nothing else; the caption is its description (5,000 UTF-8
bytes); what a description and a title refuse is refused at upload (`request_problem`), the
tags' 500 characters before the call (`options_problem`)."""
from ...media import MB, MediaLimits
from ...target_errors import OPTION
from ..rules import MOV, MP4, Needs, PlatformRules, TextCap
from .text import DESCRIPTION_LIMIT, REFUSED, TAGS_LIMIT, default_title, description_length, tags_length

GB = 1000 * MB
COMMENT_LIMIT = 10_000  # characters of a comment's textOriginal [U]


def request_problem(caption: str, options) -> str | None:
    """What YouTube refuses outright in this content (400 at upload): `<` or `>` in the
    caption, which is the video's description; no title to give the video."""
    if any(ch in caption for ch in REFUSED):
        return ("youtube: the caption is the video's description there, and YouTube refuses < and > in one; leave "
                "them out, or give overrides.youtube a caption of its own")
    if not options.get("title") and not default_title(caption):
        return ("youtube: a video needs a title, and the caption has no line of text to make one from; give "
                "overrides.youtube.options.title")
    return None


def options_problem(options, media) -> tuple[str, str] | None:
    """The tags over YouTube's 500 characters, as it counts them."""
    tags = options.get("tags") or ()
    if (length := tags_length(tags)) > TAGS_LIMIT:
        return OPTION, (f"options.tags come to {length} characters as YouTube counts them (the commas between "
                        f"them, and a tag with a space as if quoted); youtube allows {TAGS_LIMIT}")
    return None


RULES = PlatformRules(
    platform="youtube",
    caption_limit=DESCRIPTION_LIMIT,
    caption_length=description_length,
    caption_unit=" in UTF-8 bytes (the video's description)",
    needs=Needs.MEDIA,
    request_problem=request_problem,
    options_problem=options_problem,
    # Videos only. MOV, MPEG-4, MP4, AVI, WMV, FLV, 3GPP, WebM, MPEG-PS [S] (YouTube's
    # help: "Supported YouTube file formats").
    image_extensions=frozenset(),
    video_extensions=MP4 | MOV | {"webm", "avi", "wmv", "flv", "3gp", "mpg", "mpeg"},
    max_items=1,
    max_images=0,
    max_videos=1,
    mixed=False,
    media_limits=MediaLimits(
        platform="youtube",
        image_formats=frozenset(),
        video_formats=frozenset({"mp4", "mov", "webm", "avi", "wmv", "flv", "3gp", "mpeg"}),
        image_max_bytes=0,
        video_max_bytes=256 * GB,  # videos.insert: "Maximum file size: 256GB" [C]
        # 15 minutes for a channel that has not verified its phone, 12 hours otherwise [S]:
        # YouTube judges the channel's own.
        max_seconds=12 * 3600,
    ),
    # A comment's text, not a post's [U].
    comment_cap=TextCap(COMMENT_LIMIT, len),
)
