"""Facebook's error table: what the Graph API answers -> the target's error code
(fanout/target_errors.py), read by fanout/platforms/mapping.py (docs/platforms.md#facebook).

Graph's envelope is Meta's, read as Threads and Instagram read it
(fanout/platforms/graph_errors.py); a video's status read back as `error` is an answer too
(`video_status`). Branch on `code` and `error_subcode`, never the HTTP status, which Graph
chooses loosely. Anything unmatched is unknown_platform_error with the raw answer.
"""
import dataclasses
from dataclasses import dataclass

from ...target_errors import AUTH, MEDIA, RATE, UNKNOWN
from .. import graph_errors
from ..mapping import Rule


@dataclass(frozen=True)
class Answer(graph_errors.Answer):
    video_status: str | None = None  # a video's or Reel's status.video_status read back


ENVELOPE = dataclasses.replace(graph_errors.ENVELOPE, answer=Answer)

MAPPING: tuple[Rule, ...] = (
    # The token: 190 whatever its subcode (expired, revoked, password changed, app removed,
    # no role on the Page), 102 a session ended, 2500 none sent. A Page token has no refresh:
    # the engine asks whether it lives (`refresh`), then the account expires.
    Rule("code", (190, 102, 2500), AUTH),
    # Temporarily blocked for going too fast (368, subcode 1390008): a refusal, not retried.
    Rule("code", (368,), RATE),
    Rule("code", (4, 17, 32, 613, 80001), RATE),  # app, user, Page, custom and Page (BUC) limits
    Rule("subcode", (1366046,), MEDIA),  # photos over 4 MB
    Rule("code", (324,), MEDIA),  # missing or invalid image file (one Facebook could not fetch)
    Rule("video_status", ("error",), MEDIA),  # a video or Reel Facebook could not process
    # A permission the person can grant again by connecting again (#200 and #10 name it).
    Rule("message", ("pages_manage_posts", "pages_read_engagement", "pages_show_list"), AUTH),
    Rule("code", (1, 2), UNKNOWN, transient=True),  # "temporary": tried again, bounded by the engine
    Rule("http", (429,), RATE),
    Rule("http", tuple(range(500, 600)), UNKNOWN, transient=True),
)
