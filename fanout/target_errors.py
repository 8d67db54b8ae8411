"""The target error codes: why one platform's target of a post failed (openapi.yaml,
`TargetErrorCode`; contracts/test_target_errors.py holds the two lists equal).

The engine, the adapters' mapping tables, media checking and the sandbox all answer with
these names; no other module spells a code. Imports nothing, so any module may import it.
"""
AUTH = "platform_auth_expired"
RATE = "platform_rate_limited"
MEDIA = "platform_rejected_media"
EXPIRED = "container_expired"
DOWNLOAD = "media_download_failed"
UNVERIFIED = "url_ownership_unverified"
CAPTION = "caption_too_long"
UNKNOWN = "unknown_platform_error"
# Only fetching the media shows it; what the request shows is refused at upload with 422.
UNSUPPORTED = "unsupported_media_for_platform"
# An option (openapi.yaml, `<Platform>Options`) the platform does not take for this account
# or this content: found before any call, or answered by the platform.
OPTION = "platform_option_rejected"

CODES = (AUTH, RATE, MEDIA, EXPIRED, DOWNLOAD, UNVERIFIED, CAPTION, UNKNOWN, UNSUPPORTED, OPTION)

# What a sandbox post's `simulate_error` may force (openapi.yaml, `SimulatedError`).
SIMULATED = (AUTH, RATE, MEDIA, EXPIRED, DOWNLOAD, UNVERIFIED, CAPTION, UNKNOWN, OPTION)
