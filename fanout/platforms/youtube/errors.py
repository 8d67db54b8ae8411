"""What YouTube answers: Google's error envelope and the error table -> the target's error
code (fanout/target_errors.py), read by fanout/platforms/mapping.py
(docs/platforms.md#youtube).

The Data API answers `{"error": {"code", "message", "errors": [{"message", "domain",
"reason"}], "status"}}`, the first error's `reason` naming what happened (`quotaExceeded`,
`invalidTitle`...); Google's token endpoint answers flat `{"error", "error_description"}`.
Anything unmatched is unknown_platform_error carrying the raw answer.
"""
from dataclasses import dataclass

from ...target_errors import AUTH, CAPTION, MEDIA, OPTION, RATE, UNKNOWN
from .. import mapping
from ..envelope import Envelope, text_or_none
from ..mapping import Rule


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What YouTube said, reduced to the signals MAPPING reads."""

    reason: str | None = None  # the first error's reason


ENVELOPE = Envelope(Answer, at="error", flat="error", message=("message", "error_description"),
                    text=("message", "error_description", "errors[].reason"),
                    fields={"reason": ("errors.0.reason", text_or_none)})

MAPPING: tuple[Rule, ...] = (
    # The token (the engine refreshes once and tries again, then the account expires), a
    # scope not granted, a Google account without a channel.
    Rule("reason", ("authError", "insufficientPermissions", "youtubeSignupRequired"), AUTH),
    Rule("http", (401,), AUTH),
    # The project's daily quota, the per-user rates, the channel's own daily uploads.
    Rule("reason", ("quotaExceeded", "rateLimitExceeded", "userRateLimitExceeded", "uploadLimitExceeded"), RATE),
    Rule("http", (429,), RATE),
    # Normally caught before the call: the description over 5,000 bytes (or holding < >).
    Rule("reason", ("invalidDescription",), CAPTION),
    Rule("reason", ("invalidTitle", "invalidTags", "invalidCategoryId"), OPTION),
    Rule("reason", ("mediaBodyRequired",), MEDIA),
    # A 5xx to an upload's PUT means: ask the session what it holds, and go on from there.
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
