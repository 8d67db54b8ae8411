"""Bluesky's error table: what the PDS, the entryway and the video service answer -> the
target's error code (fanout/target_errors.py), read by fanout/platforms/mapping.py
(docs/platforms.md#bluesky).

Every XRPC error is `{"error": "<Name>", "message"}`; `error` is the signal read first. A
video job that failed gives its `failureCode` as `job_error`. Anything unmatched is
unknown_platform_error carrying the raw answer.
"""
from dataclasses import dataclass

from ...target_errors import AUTH, CAPTION, MEDIA, RATE, UNKNOWN
from .. import mapping
from ..envelope import Envelope, text_or_none
from ..mapping import Rule


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What Bluesky said, reduced to the signals MAPPING reads."""

    error: str | None = None  # the XRPC error name
    job_error: str | None = None  # a failed video job's failureCode

    def said(self) -> str:
        return f"{self.error}: {self.message}" if self.error and self.message else self.message or self.raw


ENVELOPE = Envelope(Answer, message=("message",), text=("error", "message"),
                    fields={"error": ("error", text_or_none)})

MAPPING: tuple[Rule, ...] = (
    # The token or the account: the engine refreshes the session once and tries again
    # (an access JWT lives 2 hours), then the account expires.
    Rule("error", ("AuthMissing", "AuthenticationRequired", "AuthFactorTokenRequired", "ExpiredToken",
                   "InvalidToken", "AccountTakedown", "AccountDeactivated"), AUTH),
    Rule("error", ("RateLimitExceeded", "DailyLimitExceeded"), RATE),
    Rule("http", (429,), RATE),
    Rule("error", ("BlobTooLarge", "InvalidMimeType", "InvalidSize", "PayloadTooLarge", "VideoTooLarge",
                   "VideoTooLong", "UnsupportedContentType"), MEDIA),
    Rule("http", (413,), MEDIA),
    Rule("job_error", ("validation_failure", "encoding_failure", "pds_upload_unsupported_blob_size"), MEDIA),
    # The validator's words for the text's 300 graphemes or 3,000 bytes (normally caught
    # before any call).
    Rule("message", ("record/text must not be longer than",), CAPTION),
    Rule("error", ("UpstreamFailure", "UpstreamTimeout", "InternalServerError"), UNKNOWN, transient=True),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
    Rule("http", (401,), AUTH),
)
