"""A platform answer that breaks the platform's contract (docs/adding-a-platform.md#what-a-platform-answers).

A platform's answer is one of three kinds, and each is handled one way:
- transient: no answer (fanout/platforms/http.py's `PlatformUnreachable`), a 5xx, or a
  code the platform documents as "try again" (a mapping row with `transient`): retried,
  bounded by the engine;
- a refusal its mapping table names (fanout/platforms/mapping.py): the target fails with
  that row's code;
- a break of its contract: it answered, but not what its reference promises (a body that
  is not the JSON promised, a required field missing or of the wrong shape, a URL off its
  own hosts, a status the reference does not list). Asking again meets the same answer
  and, where the call creates something, creates it again: the target fails at once with
  `unknown_platform_error`, never retried.

The checks below raise `UnusableAnswer`; `Steps.run` (fanout/platforms/steps.py) and the
engine (fanout/tasks/publishing.py) turn it into the target's failure with `outcome`.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from ..target_errors import UNKNOWN
from .base import Outcome
from .mapping import scrub

SHOWN = 60  # characters of a value of the wrong shape quoted in a message


class UnusableAnswer(Exception):
    """The platform answered what its reference does not promise.

    `what` completes "<Platform> answered ..." and is safe to show (no token, no URL's
    query). `standing` says what may exist on the platform all the same, when the break came
    in or after the answer of a call that may have created the post."""

    def __init__(self, what: str, *, standing: str | None = None):
        super().__init__(what)
        self.what, self.standing = what, standing

    def after(self, standing: str | None) -> "UnusableAnswer":
        """The same break, said with what may exist because of the call before it."""
        return UnusableAnswer(self.what, standing=standing or self.standing)


def outcome(title: str, error: UnusableAnswer) -> Outcome:
    """The target's failure for a break of `title`'s contract."""
    message = f"{title} answered {error.what}; this server cannot use that answer, so it did not try again"
    if error.standing:
        message += f"; {error.standing}"
    return Outcome(error_code=UNKNOWN, error_message=message)


def may_be_out(title: str) -> str:
    """The `standing` of a break after a call that may have published the post."""
    return f"{title} may have published it all the same: check the account before posting it again"


def document(response, what: str, *secrets: str | None) -> dict:
    """The body of a `fanout.platforms.http.PlatformResponse` as the JSON object the
    reference promises for `what`."""
    try:
        body = json.loads(response.body)
    except ValueError:
        raise UnusableAnswer(f"{what} with a body that is not JSON (HTTP {response.status}: "
                             f"{scrub(response.text, *secrets) or '(empty body)'})") from None
    if not isinstance(body, dict):
        raise UnusableAnswer(f"{what} with JSON that is not an object (HTTP {response.status}: "
                             f"{scrub(response.text, *secrets)})")
    return body


def member(body: Any, key: str, what: str) -> Mapping[str, Any]:
    """The object the reference promises under `key`."""
    value = body.get(key) if isinstance(body, Mapping) else None
    if not isinstance(value, Mapping):
        raise UnusableAnswer(f"{what} without its {key} object" if value is None
                             else f"{what} with its {key} not an object")
    return value


def identifier(body: Any, key: str, what: str, shape: re.Pattern) -> str:
    """The id (or other required string) under `key`, of the shape the reference gives it;
    a number where the platform's ids are numbers is taken as its digits."""
    value = body.get(key) if isinstance(body, Mapping) else None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if value is None or value == "":
        raise UnusableAnswer(f"{what} without its {key}")
    if not isinstance(value, str) or not shape.fullmatch(value):
        raise UnusableAnswer(f"{what} with its {key} of the wrong shape ({shown(value)})")
    return value


def one_of(value: Any, documented: Iterable[str], what: str, name: str = "status") -> str:
    """A value the reference lists (a status), or the break."""
    documented = tuple(documented)
    if value not in documented:
        raise UnusableAnswer(f"{what} with {name} {shown(value)}, not one of {', '.join(documented)}")
    return value


def on_hosts(value: Any, hosts: Iterable[str], what: str, name: str = "a URL") -> str:
    """A URL the platform named for a later call (an upload URL), if it is https on one of
    its own `hosts`: what is sent there (the media, a token) goes nowhere else. The message
    names the URL's scheme and host only: its query may hold an upload's token."""
    hosts = tuple(hosts)
    if not isinstance(value, str) or not value:
        raise UnusableAnswer(f"{what} without {name}")
    try:
        parts = urlsplit(value)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        raise UnusableAnswer(f"{what} with {name} that is not a URL") from None
    if parts.scheme != "https" or host not in hosts or parts.username is not None:
        where = f"{parts.scheme}://{host}{f':{port}' if port else ''}" if parts.scheme and host else "no host"
        raise UnusableAnswer(f"{what} with {name} at {where}, not https on one of its hosts ({', '.join(hosts)})")
    return value


def shown(value: Any) -> str:
    """A value a platform answered, quoted short and without tokens."""
    text = scrub(value if isinstance(value, str) else json.dumps(value, default=str))
    return repr(text if len(text) <= SHOWN else text[: SHOWN - 1] + "…")
