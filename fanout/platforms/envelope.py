"""Where a platform's error answer keeps its parts, declared once per platform, and the one
reader that reduces an answer to what its mapping table reads (fanout/platforms/mapping.py,
docs/adding-a-platform.md).

A path names a member of the answer's JSON: `detail`, `error.message`, `errors[].message`
(that member of every element), `error.*` (every member), `errorDetails.inputErrors.0.code`
(an element by its index).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .mapping import Answer, quoted, scrub


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class Envelope:
    """A platform's error envelope.

    `at`: the path of the object the error lies in ("" for the answer itself); `flat`, when
    the answer may also come flat (an OAuth host's beside the API's nested one), the string
    member that marks it; `message`: paths of the platform's words for people,
    the first non-empty one taken; `text`: paths of the strings rows match by phrase (None:
    every string of the error object); `fields`: an answer field -> (path, how its value is
    read), the platform's codes.
    """

    answer: type[Answer] = Answer
    at: str = ""
    flat: str | None = None
    message: tuple[str, ...] = ("message",)
    text: tuple[str, ...] | None = ("message",)
    fields: Mapping[str, tuple[str, Callable[[Any], Any]]] = field(default_factory=dict)

    def read(self, response, *secrets: str | None) -> Answer:
        """The answer, reduced (`secrets` and tokens taken out of what it quotes)."""
        body = response.json()
        raw = quoted(response, *secrets)
        error = next(iter(values(body, self.at)), None)
        if not isinstance(error, dict) and self.flat and isinstance(body, dict) \
                and isinstance(body.get(self.flat), str):
            error = body
        if not isinstance(error, dict):
            return self.answer(raw=raw, http=response.status)
        message = next((v for path in self.message for v in values(error, path) if isinstance(v, str) and v), "")
        if self.text is None:
            strings = [v for v in error.values() if isinstance(v, str)]
        else:
            strings = [v for path in self.text for v in values(error, path) if isinstance(v, str) and v]
        found = {name: read(next(iter(values(error, path)), None)) for name, (path, read) in self.fields.items()}
        return self.answer(raw=raw, http=response.status, text=" ".join(strings).lower(),
                           message=scrub(message, *secrets), **found)


def values(body: Any, path: str) -> list:
    """What `path` names in `body` (see the module's docstring), in order."""
    found = [body]
    for name in path.split(".") if path else ():
        each = name.endswith("[]")
        name = name.removesuffix("[]")
        step = []
        for value in found:
            if name == "*" and isinstance(value, dict):
                step += list(value.values())
            elif isinstance(value, dict) and name in value:
                step.append(value[name])
            elif isinstance(value, list) and name.isdigit() and int(name) < len(value):
                step.append(value[int(name)])
        found = [v for value in step if isinstance(value, list) for v in value] if each else step
    return [v for v in found if v is not None]
