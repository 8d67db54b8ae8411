"""Threads's error table: what Threads answers -> the target's error code (fanout/target_errors.py),
read by fanout/platforms/mapping.py (docs/platforms.md#threads)."""
from ...target_errors import AUTH, CAPTION, DOWNLOAD, EXPIRED, MEDIA, OPTION, RATE, UNKNOWN
from ..mapping import Rule

# Read top to bottom, the first matching row wins: the body before the HTTP status, and in
# the body the subcode before the code (code 4 with subcode 2207051 is suspected spam, not a
# rate limit). Anything unmatched is unknown_platform_error with the raw answer.
MAPPING: tuple[Rule, ...] = (
    Rule("subcode", (2207051,), MEDIA),  # "we restrict certain activity" (our choice: spam)
    Rule("subcode", (2207042,), RATE),  # the daily publishing quota
    Rule("subcode", (2207052,), DOWNLOAD),  # "the media could not be fetched from this URI"
    Rule("subcode", (4279013,), UNKNOWN),  # "user restricted"
    Rule("message", ("error validating access token",), AUTH),
    Rule("message", ("text must be at most 500 characters", "threads_api__link_limit_exceeded"), CAPTION),
    Rule("message", ("media could not be fetched from this uri",), DOWNLOAD),
    Rule("message", ("quote_post_id", "reply_control", "topic_tag"), OPTION),  # ThreadsOptions refused
    Rule("code", (190, 10, *range(200, 300)), AUTH),
    Rule("code", (4, 9, 17, 32, 613), RATE),
    Rule("code", (4279013,), UNKNOWN),
    Rule("container_status", ("EXPIRED",), EXPIRED),
    Rule("container_error", ("FAILED_DOWNLOADING_VIDEO",), DOWNLOAD),
    Rule("container_error", (
        "FAILED_PROCESSING_AUDIO", "FAILED_PROCESSING_VIDEO", "INVALID_ASPEC_RATIO", "INVALID_BIT_RATE",
        "INVALID_DURATION", "INVALID_FRAME_RATE", "INVALID_AUDIO_CHANNELS", "INVALID_AUDIO_CHANNEL_LAYOUT",
    ), MEDIA),
    Rule("container_error", ("UNKNOWN",), UNKNOWN),
    Rule("http", (429,), RATE),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
