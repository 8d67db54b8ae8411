"""What Pinterest answers: its error envelope and its error table -> the target's error code
(fanout/target_errors.py), read by fanout/platforms/mapping.py (docs/platforms.md#pinterest).

Every API error is `{"code": <integer>, "message": "<text>"}` [C]; a request that breaks the
schema names the field at the end of its message ("'abc' does not match '^\\d+$' -
'board_id'") [S]. The upload store is S3 and answers XML, which no row reads: a refused
upload is the file's fault (fanout/platforms/steps.py `Steps.refused`) unless it is a 403.
Anything unmatched is unknown_platform_error carrying the raw answer.
"""
import re
from dataclasses import dataclass

from ...target_errors import AUTH, CAPTION, MEDIA, OPTION, RATE, UNKNOWN
from .. import mapping
from ..envelope import Envelope
from ..mapping import Rule, number

# Pin, board and media ids are strings of digits [C].
PINTEREST_ID = re.compile(r"[0-9]{1,30}")


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What Pinterest said, reduced to the signals MAPPING reads."""

    code: int | None = None  # Pinterest's own code (2, 8, 29, 50...)
    media_status: str | None = None  # a video upload's status read back


ENVELOPE = Envelope(Answer, fields={"code": ("code", number)})

# Read top to bottom, the first matching row wins (the platform reference's mapping table).
MAPPING: tuple[Rule, ...] = (
    # An expired, revoked or unknown token (code 2): the engine refreshes once and tries
    # again, then the account expires.
    Rule("http", (401,), AUTH),
    # The token lacks a scope it was granted (pins:write taken back): connect again.
    Rule("code", (29,), AUTH),
    Rule("http", (429,), RATE),  # code 8, whichever limit
    # The board is not there or not the user's; a board id or link it refuses.
    Rule("message", ("board not found", "- 'board_id'", "- 'link'", "- 'title'"), OPTION),
    # Normally caught before the call: the description over 800 characters.
    Rule("message", ("- 'description'",), CAPTION),
    Rule("media_status", ("failed",), MEDIA),
    Rule("message", ("could not fetch the image", "unable to reach the url", "cover_image", "media_source",
                     "media not found"), MEDIA),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
