"""Instagram's error table: what Instagram answers -> the target's error code (fanout/target_errors.py),
read by fanout/platforms/mapping.py (docs/platforms.md#instagram)."""
from ...target_errors import AUTH, CAPTION, DOWNLOAD, EXPIRED, MEDIA, OPTION, RATE, UNKNOWN
from ..graph_errors import NOT_READY
from ..mapping import Rule

# Read top to bottom, the first matching row wins (docs/platforms.md#the-instagram-adapter):
# token errors, then subcodes, then codes alone, then the HTTP status. The subcode before
# the code: code 4 with subcode 2207051 is suspected spam, not a rate limit, and code 9
# with 2207042 is the daily quota. Anything unmatched is unknown_platform_error with the
# raw answer.
MAPPING: tuple[Rule, ...] = (
    Rule("code", (190, 102), AUTH),  # expired, revoked, password changed, logged out...
    Rule("message", ("error validating access token",), AUTH),
    Rule("subcode", (2207042,), RATE),  # the daily publishing quota
    Rule("subcode", (2207027,), NOT_READY),  # "not ready for publishing": poll again
    Rule("subcode", (2207020, 2207006), EXPIRED),  # the media expired / cannot be found: a new container
    # "does not exist or has been expired": Meta advises 1-2 tries within minutes first.
    Rule("subcode", (2207008,), EXPIRED, repeats=2),
    Rule("subcode", (2207052, 2207003, 2207077), DOWNLOAD),  # could not fetch our URL
    Rule("subcode", (2207010, 2207040), CAPTION),  # 2200 characters / 30 hashtags, 20 @ tags
    Rule("subcode", (2207057,), OPTION),  # thumb_offset not within the video
    Rule("subcode", (2207004, 2207005, 2207009, 2207026, 2207023, 2207028,
                     2207051), MEDIA),  # size, format, aspect ratio...; 2207051 spam: our choice
    # An option of InstagramOptions refused ("param collaborators is not allowed", an unknown location).
    Rule("message", ("collaborators", "location_id", "cover_url", "share_to_feed", "thumb_offset"), OPTION),
    Rule("subcode", (2207001, 2207032, 2207053, 2207082), UNKNOWN, transient=True),  # server errors
    Rule("subcode", (2207050,), UNKNOWN),  # the account is restricted
    Rule("code", (10, *range(200, 300)), AUTH),  # a permission missing: reconnect
    Rule("code", (4, 9, 17, 32, 341, 613), RATE),
    Rule("code", (1, 2, -1), UNKNOWN, transient=True),
    Rule("container_status", ("EXPIRED",), EXPIRED),
    Rule("container_status", ("ERROR",), MEDIA),  # an ERROR whose subcode is not above
    Rule("http", (429,), RATE),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
