"""TikTok's error table: what TikTok answers -> the target's error code (fanout/target_errors.py),
read by fanout/platforms/mapping.py (docs/platforms.md#tiktok)."""
from ...target_errors import AUTH, CAPTION, DOWNLOAD, MEDIA, OPTION, RATE, UNKNOWN, UNVERIFIED
from ..mapping import Rule

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
