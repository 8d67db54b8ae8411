"""What X answers: its error envelope and its error table -> the target's error code
(fanout/target_errors.py), read by fanout/platforms/mapping.py (docs/platforms.md#x).

Errors are problem+json (`type`, `title`, `detail`), partial errors a list `errors`, the
token endpoint's OAuth's own (`error`, `error_description`), a media's processing error an
object (`error`: {code, name, message}).
"""
import re
from dataclasses import dataclass
from typing import Any

from ...target_errors import AUTH, CAPTION, EXPIRED, MEDIA, OPTION, RATE, UNKNOWN
from .. import mapping
from ..envelope import Envelope
from ..mapping import Rule

# Post and media ids are strings of digits.
X_ID = re.compile(r"[0-9]{1,20}")


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What X said, reduced to the signals MAPPING reads."""

    type: str | None = None  # the problem type's last segment (`usage-capped`), or about:blank


def _last_segment(value: Any) -> str | None:
    return value.rsplit("/", 1)[-1] if isinstance(value, str) else None


ENVELOPE = Envelope(Answer, message=("detail", "errors[].message", "title", "error.message"),
                    text=("title", "detail", "error", "error_description", "errors[].message", "error.*"),
                    fields={"type": ("type", _last_segment)})

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
