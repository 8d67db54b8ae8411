"""LinkedIn's error table: what the REST API and the token endpoint answer -> the target's
error code (fanout/target_errors.py), read by fanout/platforms/mapping.py
(docs/platforms.md#linkedin).

LinkedIn answers `{"status", "serviceErrorCode"?, "code"?, "message"}`, or for a refused
input `{"errorDetailType", "message", "errorDetails": {"inputErrors": [{"code", ...}]}}`;
`code` is the REST code, `input` the first input error's code, `service` the service
error code. Anything unmatched is unknown_platform_error carrying the raw answer.
"""
from dataclasses import dataclass

from ...target_errors import AUTH, CAPTION, MEDIA, RATE, UNKNOWN
from .. import mapping
from ..envelope import Envelope, text_or_none
from ..mapping import Rule, number


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What LinkedIn said, reduced to the signals MAPPING reads."""

    code: str | None = None  # the REST code (EXPIRED_ACCESS_TOKEN...)
    service: int | None = None  # serviceErrorCode
    input: str | None = None  # the first input error's code (DUPLICATE_POST...)
    media_status: str | None = None  # a media's status read back


ENVELOPE = Envelope(Answer, message=("message", "error_description"),
                    text=("message", "error_description", "code", "error", "errorDetails.inputErrors[].description"),
                    fields={"code": ("code", text_or_none), "service": ("serviceErrorCode", number),
                            "input": ("errorDetails.inputErrors.0.code", text_or_none)})

MAPPING: tuple[Rule, ...] = (
    # The token: the engine refreshes once (or, without refresh tokens, asks whether the
    # token lives) and tries again, then the account expires.
    Rule("code", ("EXPIRED_ACCESS_TOKEN", "REVOKED_ACCESS_TOKEN", "INVALID_ACCESS_TOKEN"), AUTH),
    Rule("service", (65600, 65601, 65602, 65604), AUTH),
    Rule("http", (401,), AUTH),
    # A member token without w_member_social (the scope taken back): connect again.
    Rule("code", ("ACCESS_DENIED",), AUTH),
    Rule("http", (429,), RATE),
    # Normally caught before the call: the commentary over 3,000 characters.
    Rule("message", ("sharecommentary text length",), CAPTION),
    Rule("input", ("DUPLICATE_POST",), UNKNOWN),  # our choice: LinkedIn's words say which post
    Rule("media_status", ("PROCESSING_FAILED",), MEDIA),
    # The API version this server names is not served (FANOUT_LINKEDIN_API_VERSION).
    Rule("http", (426,), UNKNOWN),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
