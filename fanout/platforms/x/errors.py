"""X's error table: what X answers -> the target's error code (fanout/target_errors.py),
read by fanout/platforms/mapping.py (docs/platforms.md#x)."""
from ...target_errors import AUTH, CAPTION, EXPIRED, MEDIA, OPTION, RATE, UNKNOWN
from ..mapping import Rule

# Read top to bottom, the first matching row wins: the problem's type and words before the
# HTTP status (X answers a duplicate with 403, like a suspension). Unmatched: unknown.
MAPPING: tuple[Rule, ...] = (
    Rule("type", ("unsupported-authentication",), AUTH),
    Rule("http", (401,), AUTH),  # expired, revoked or unknown token: refresh once, then reconnect
    Rule("http", (429,), RATE),  # the rate limits and `usage-capped`
    Rule("type", ("usage-capped",), RATE),
    Rule("message", ("text is too long", "tweet text is too long"), CAPTION),
    Rule("message", ("quote_tweet_id", "reply_settings"), OPTION),  # an option of XOptions refused
    Rule("message", ("duplicate content",), UNKNOWN),  # our choice: X's words say what happened
    Rule("message", ("expired",), EXPIRED),  # a media id past its expires_after_secs
    Rule("message", ("maximum of 4 items", "not allowed to post a video longer", "invalidmedia",
                     "unsupported video format", "unsupported media", "media type", "too large"), MEDIA),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
