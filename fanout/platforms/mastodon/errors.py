"""What a Mastodon instance answers: its error envelope and its error table -> the target's
error code (fanout/target_errors.py), read by fanout/platforms/mapping.py
(docs/platforms.md#mastodon).

Every error is `{"error": "<words>"}`, the OAuth endpoints' with `error_description`
beside it; the status and the words are the signals (Mastodon has no error codes).
Anything unmatched is unknown_platform_error carrying the raw answer.
"""
from ...target_errors import AUTH, CAPTION, MEDIA, OPTION, RATE, UNKNOWN
from ..envelope import Envelope
from ..mapping import Answer, Rule

ENVELOPE = Envelope(Answer, message=("error_description", "error"), text=("error", "error_description"))

# Read top to bottom, the first matching row wins.
MAPPING: tuple[Rule, ...] = (
    # A revoked or unknown token (tokens never expire): nothing to refresh, connect again.
    Rule("http", (401,), AUTH),
    Rule("message", ("outside the authorized scopes",), AUTH),  # 403: a scope taken back
    Rule("http", (429,), RATE),
    # "Validation failed: Text character limit of 500 exceeded" (normally caught before the call).
    Rule("message", ("character limit",), CAPTION),
    # "Cannot attach files that have not finished processing. Try again in a moment!"
    Rule("message", ("not finished processing",), UNKNOWN, transient=True),
    Rule("message", ("visibility", "language"), OPTION),
    # Uploads refused, media that failed processing, media a status cannot carry.
    Rule("message", ("file content type", "file type of uploaded media", "file is invalid", "file size",
                     "error processing", "cannot attach", "too many"), MEDIA),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
