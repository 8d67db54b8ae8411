"""What TikTok answers: its error envelope and its error table -> the target's error code
(fanout/target_errors.py), read by fanout/platforms/mapping.py (docs/platforms.md#tiktok).

Every API answer is the envelope `{"data", "error": {"code", "message", "log_id"}}`, where
only `error.code == "ok"` is success (whatever the HTTP status); the token endpoint answers
flat OAuth JSON (`error`, `error_description`), which its own reader says (oauth.py).
"""
from dataclasses import dataclass

from ...target_errors import AUTH, CAPTION, DOWNLOAD, MEDIA, OPTION, RATE, UNKNOWN, UNVERIFIED
from .. import mapping
from ..envelope import Envelope
from ..mapping import Rule

# openapi.yaml `TiktokOptions`, sent in `post_info` as TikTok names them (privacy_level
# and the three the creator may have turned off are chosen in `post_info`).
OPTION_FIELDS = ("privacy_level", "disable_comment", "disable_duet", "disable_stitch", "brand_content_toggle",
                 "brand_organic_toggle", "is_aigc", "auto_add_music")
INVALID_PARAM = ("invalid_param", "invalid_params")


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What TikTok said, reduced to the signals MAPPING reads (its rows read `message` as
    TikTok wrote it, and two signals of their own)."""

    code: str | None = None  # error.code
    fail_reason: str | None = None  # a FAILED status's

    def signal(self, name: str):
        words = self.message.lower()
        if name == "option":  # invalid_param naming one of TiktokOptions' fields
            return self.code in INVALID_PARAM and any(option in words for option in OPTION_FIELDS) or None
        if name == "length":
            return self.code in INVALID_PARAM and ("length" in words or "too long" in words or "exceed" in words) \
                and ("title" in words or "description" in words) or None
        return getattr(self, name)

    def said(self) -> str | None:
        """`code: message`; without a code, the raw answer."""
        return f"{self.code}: {self.message}" if self.code else None


ENVELOPE = Envelope(Answer, at="error", fields={"code": ("code", lambda value: str(value or "") or None)})

# Read top to bottom, the first matching row wins: `error.code` (or a status's
# `fail_reason`) before the HTTP status, since TikTok may put a refusal in a 200.
MAPPING: tuple[Rule, ...] = (
    Rule("code", ("access_token_invalid", "scope_not_authorized", "scope_permission_missed"), AUTH),
    Rule("code", ("rate_limit_exceeded", "spam_risk_too_many_posts", "spam_risk_too_many_pending_share",
                  "reached_active_user_cap"), RATE),
    Rule("code", ("url_ownership_unverified",), UNVERIFIED),
    Rule("code", ("invalid_file_upload",), MEDIA),
    Rule("length", (True,), CAPTION),  # invalid_param about the title's or description's length
    # The privacy level is not one the creator is offered (an unaudited app: SELF_ONLY only),
    # or TikTok refused another option of TiktokOptions for this account.
    Rule("code", ("privacy_level_option_mismatch", "unaudited_client_can_only_post_to_private_accounts"), OPTION),
    Rule("option", (True,), OPTION),
    Rule("code", ("internal_error",), UNKNOWN, transient=True),
    Rule("fail_reason", ("video_pull_failed", "photo_pull_failed"), DOWNLOAD),
    Rule("fail_reason", ("file_format_check_failed", "duration_check_failed", "frame_rate_check_failed",
                         "picture_size_check_failed", "spam_risk_text"), MEDIA),  # spam_risk_text: our choice
    Rule("fail_reason", ("spam_risk_too_many_posts",), RATE),
    Rule("fail_reason", ("auth_removed",), AUTH),
    Rule("http", (401,), AUTH),
    Rule("http", (429,), RATE),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
