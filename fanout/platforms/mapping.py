"""A platform's mapping table: what it answers, matched row by row to a target error code
(docs/platforms.md, each adapter's section), and the raw answer made safe to quote.

Each platform has one table (`MAPPING`, in its package's errors.py) of `Rule`s read top to
bottom; the first row whose signal matches decides. An answer object offers the signals by
name (`signal(name)`): the HTTP status, the platform's code or problem type, and `message`,
its error text in lower case, which a row matches by phrase.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from ..target_errors import UNKNOWN
from .base import Outcome

RAW_LIMIT = 500


@dataclass(frozen=True)
class Rule:
    """One row: a signal of the answer, the values that match, the target code."""

    signal: str  # a name the answer's `signal` knows: http, message, code, subcode...
    values: tuple
    code: str  # a target error code (fanout/target_errors.py)
    transient: bool = False  # worth trying again (bounded by the engine)
    # Calls repeated (a Retry each) before `code` applies: Meta's advice for some answers.
    repeats: int = 0


class Signals(Protocol):
    def signal(self, name: str) -> Any: ...


@dataclass(frozen=True)
class Answer:
    """What a platform said, reduced to the signals its table reads: the HTTP status, the
    error text and the platform's own words; a platform's answer adds its codes as fields,
    each a signal by its name."""

    raw: str  # clipped, tokens removed: safe for a target's error message (`quoted`)
    http: int | None = None
    text: str = ""  # every error string, lower case
    message: str = ""  # the platform's own words, for people

    def signal(self, name: str):
        return self.text if name == "message" else getattr(self, name)

    def said(self) -> str | None:
        """What a failure's message quotes after the platform's name (None: the raw answer)."""
        return self.message or self.raw


def outcome_of(table: tuple[Rule, ...], title: str, answer: Answer, *,
               unknown_in_words: bool = False) -> tuple[Rule | None, Outcome]:
    """The target's failure for an answer, and the row of `table` that decided it (None:
    none matched). An unknown failure quotes the raw answer, unless `unknown_in_words` and a
    row matched an answer with words of its own."""
    rule = classify(table, answer)
    code = rule.code if rule else UNKNOWN
    said = answer.said()
    if said is None or (code == UNKNOWN and not (unknown_in_words and rule and answer.message)):
        return rule, Outcome(error_code=code, error_message=f"{title} answered {answer.raw}")
    return rule, Outcome(error_code=code, error_message=f"{title}: {said}")


def quoted(response, *secrets: str | None) -> str:
    """A platform's answer as a target's error message may quote it: its status and body,
    clipped to a line, `secrets` and every token taken out."""
    return f"HTTP {response.status}: {scrub(response.text, *secrets) or '(empty body)'}"


def classify(mapping: tuple[Rule, ...], answer: Signals) -> Rule | None:
    """The first row of `mapping` the answer matches (rows are read top to bottom)."""
    for rule in mapping:
        value = answer.signal(rule.signal)
        if rule.signal == "message":
            if any(phrase in value for phrase in rule.values):
                return rule
        elif value is not None and value in rule.values:
            return rule
    return None


def number(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# An upload URL's token (TikTok's `upload_token`, LinkedIn's `uploadToken`) lets anyone
# write to that upload: hidden like the account's.
_TOKEN_IN_QUERY = re.compile(r"\b(access_token|refresh_token|client_secret|code|code_verifier|upload_token)"
                             r"=[^&\s\"']+", re.IGNORECASE)
_TOKEN_IN_JSON = re.compile(r"(\"(?:access_token|refresh_token|client_secret|upload_token|uploadToken)\"\s*:\s*\")"
                            r"[^\"]*", re.IGNORECASE)


def scrub(text: str, *secrets: str | None) -> str:
    """`text` clipped to one short line, with tokens and secrets taken out."""
    for secret in filter(None, secrets):
        text = text.replace(secret, "[hidden]")
    text = _TOKEN_IN_QUERY.sub(r"\1=[hidden]", text)
    text = _TOKEN_IN_JSON.sub(r"\1[hidden]", text)
    text = " ".join(text.split())
    return text if len(text) <= RAW_LIMIT else text[: RAW_LIMIT - 1] + "…"
