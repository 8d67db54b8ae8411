"""What Meta's Graph API answers, as Threads and Instagram read it (docs/platforms.md#threads,
#instagram): its error envelope, `{"error": {"message", "type", "code", "error_subcode",
"error_user_msg", ...}}`, or the flat one of Instagram's OAuth host (`{"error_type",
"code", "error_message"}`); the shapes its contract promises; and the token calls' answers.
Each platform's table (its errors.py) reads the `Answer`s (fanout/platforms/mapping.py).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import mapping
from .base import AuthFailed
from .envelope import Envelope
from .http import PlatformResponse
from .mapping import number
from .oauth import answered

# Not a failure: the container is not ready to publish yet; poll it again (a table's code).
NOT_READY = "not_ready"
# Graph ids are strings of digits (some objects' joined by `_`); a container's status is
# one of these (Threads' `status`, Instagram's `status_code`).
GRAPH_ID = re.compile(r"[0-9]{1,32}(?:_[0-9]{1,32})?")
CONTAINER_STATUSES = ("IN_PROGRESS", "FINISHED", "PUBLISHED", "ERROR", "EXPIRED")


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What the platform said, reduced to the signals a mapping table reads (`text`: the
    error object's strings, lower case); a failed container's status and error besides."""

    code: int | None = None
    subcode: int | None = None
    container_status: str | None = None
    container_error: str | None = None


ENVELOPE = Envelope(Answer, at="error", flat="error_message", message=("error_user_msg", "message", "error_message"),
                    text=None, fields={"code": ("code", number), "subcode": ("error_subcode", number)})


# --- token calls -------------------------------------------------------------------------

def json_or_refusal(title: str, response: PlatformResponse, what: str, *secrets: str | None) -> Mapping[str, Any]:
    """A 200 JSON object; AuthFailed when the platform refuses, PlatformUnreachable when it
    is busy or limited (the token stays as it is and is tried again later)."""
    body = answered(response, title, what).json()
    if response.status != 200 or not isinstance(body, dict):
        answer = ENVELOPE.read(response, *secrets)
        raise AuthFailed(f"{title} refused {what}: {answer.message or answer.raw}")
    return body


def token_answer(title: str, response: PlatformResponse, what: str, *secrets: str | None) -> Mapping[str, Any]:
    body = json_or_refusal(title, response, what, *secrets)
    if not isinstance(body.get("access_token"), str) or not body["access_token"]:
        raise AuthFailed(f"{title} answered {what} without a token")
    return body
