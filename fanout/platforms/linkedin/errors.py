"""LinkedIn's error table: what the REST API and the token endpoint answer -> the target's
error code (fanout/target_errors.py), read by fanout/platforms/mapping.py
(docs/platforms.md#linkedin).

LinkedIn answers `{"status", "serviceErrorCode"?, "code"?, "message"}`, or for a refused
input `{"errorDetailType", "message", "errorDetails": {"inputErrors": [{"code", ...}]}}`;
`code` is the REST code, `input` the first input error's code, `service` the service
error code. Anything unmatched is unknown_platform_error carrying the raw answer.
"""
from ...target_errors import AUTH, CAPTION, MEDIA, RATE, UNKNOWN
from ..mapping import Rule

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
