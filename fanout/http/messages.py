"""The 400's message for a value that breaks its schema, one rendering per kind of
jsonschema error: the field by its path as the client wrote it (`media[0].type`,
`overrides.linkedin.thread`), what is wrong, and what to send instead
(docs/decisions.md#errors; tests/http/test_messages.py pins each).

What a schema states in words (a `pattern`, `oneOf`, `anyOf` or `not` with a
description) is said in those words. Which other fields take a field one refuses
(`overrides.linkedin.thread`: which platforms have threads) is read from the schema itself.
"""
from __future__ import annotations

import difflib
from typing import Iterable

from jsonschema import ValidationError
from jsonschema.exceptions import best_match, relevance

from ..platforms import NAMES
from .errors import QUOTE_LIMIT

# Keywords that state a rule jsonschema can only report as a dump of the schema ("... is not
# valid under any of the given schemas"). openapi.yaml describes each such rule in words.
RULE_KEYWORDS = frozenset({"pattern", "oneOf", "anyOf", "not"})


def path_of(parts: Iterable) -> str:
    """`media[0].type` for ("media", 0, "type"); "body" for the body itself."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "body"


def first_error(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error to tell first: an unknown field wherever it is (a misspelt field is also
    the likeliest reason another is missing), then jsonschema's own choice."""
    return best_match(errors, key=lambda e: (e.validator == "additionalProperties", *relevance(e)))


def render(error: ValidationError, root: dict | None = None, where: str | None = None) -> str:
    """`where: what is wrong; what to send`. `root` is the schema validated against (for the
    fields beside this one); `where` replaces the path (a parameter's name)."""
    at = where or path_of(error.absolute_path)
    kind = error.validator
    value = error.instance
    rule = error.validator_value
    if kind == "additionalProperties" and isinstance(value, dict):
        return _unknown(error, root or {}, where)
    if kind == "required" and isinstance(value, dict):
        missing = next((name for name in rule if name not in value), rule[0])
        field = _properties(error.schema, root).get(missing, {})
        return f"{_join(at if where or error.absolute_path else '', missing)}: missing; send {expected(field, root)}"
    if kind in RULE_KEYWORDS:
        said = _rule_broken(error)
        if said:
            return f"{at}: {said}"
    if kind == "type":
        return f"{at}: got {_described(value)}; send {expected(error.schema, root)}"
    if kind == "enum":
        return f"{at}: {_quoted(value)} is not allowed; send {_one_of(rule)}"
    if kind == "format":
        if error.cause is not None and str(error.cause):
            return f"{at}: {error.cause}"
        return f"{at}: {_quoted(value)} is not a valid {rule}"
    if kind in ("minLength", "maxLength") and isinstance(value, str):
        got = "empty" if not value else f"{len(value)} characters"
        bound = "at least" if kind == "minLength" else "at most"
        return f"{at}: {got}; send {bound} {_count(rule, 'character')}"
    if kind in ("minItems", "maxItems", "minProperties", "maxProperties") and isinstance(value, (list, dict)):
        noun = "item" if kind.endswith("Items") else "field"
        got = "empty" if not value else _count(len(value), noun)
        bound = "at least" if kind.startswith("min") else "at most"
        return f"{at}: {got}; send {bound} {_count(rule, noun)}"
    if kind == "uniqueItems" and isinstance(value, list):
        seen = []
        for item in value:
            if item in seen:
                return f"{at}: {_quoted(item)} is listed twice; send each value once"
            seen.append(item)
    if kind == "minimum":
        least = f"more than {rule}" if error.schema.get("exclusiveMinimum") is True else f"{rule} or more"
        return f"{at}: {value} is below the minimum; send {least}"
    if kind == "maximum":
        exclusive = error.schema.get("exclusiveMaximum") is True
        return f"{at}: {value} is above the maximum; send {'less than ' if exclusive else 'at most '}{rule}"
    return f"{at}: {_shortened(error)}"


def expected(schema: dict, root: dict | None = None) -> str:
    """What a value of `schema` is, in words: "a string", "one of 'image' or 'video'"."""
    schema = _merged(schema, root)
    if "enum" in schema:
        return _one_of(schema["enum"])
    kind = schema.get("type")
    if kind == "string" and schema.get("format") == "date-time":
        words = "an RFC 3339 date-time with Z or an offset, such as '2026-11-22T10:04:05Z'"
    else:
        words = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false",
                 "array": "an array", "object": "an object"}.get(kind, "a value")
    return words + (" or null" if schema.get("nullable") else "")


def _unknown(error: ValidationError, root: dict, where: str | None) -> str:
    """An unknown field: which fields beside it take it (the platforms that have a thread),
    else what it may have meant, else what the object takes."""
    parts = list(error.absolute_path)
    known = _properties(error.schema, root)
    extras = [name for name in error.instance if name not in known]
    name = extras[0] if extras else "?"
    at = _join(where or path_of(parts) if parts or where else "", name)
    takers = _takers(root, parts, name) if root else None
    if takers:
        owner, others = takers
        verb = "does" if len(others) == 1 else "do"
        return f"{at}: {owner} takes no {name} ({_listed(others)} {verb}); remove it"
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75) if len(name) <= 64 else []
    if close:
        return f"{at}: unknown field; did you mean {close[0]}?"
    return f"{at}: unknown field; send only {_listed(list(known), 'or')}"


def _takers(root: dict, parts: list, name: str) -> tuple[str, list[str]] | None:
    """(what refuses `name`, the ones beside it that take it), one level up at a time:
    `overrides.linkedin` refuses `thread`, and `overrides.bluesky`, `.threads` and `.x` take it."""
    for level in range(len(parts) - 1, -1, -1):
        part = parts[level]
        if isinstance(part, int):
            continue
        parent = _schema_at(root, parts[:level])
        if parent is None:
            continue
        others = []
        for sibling in _properties(parent, root):
            if sibling == part:
                continue
            there = _schema_at(root, [*parts[:level], sibling, *parts[level + 1:]])
            if there is not None and name in _properties(there, root):
                others.append(sibling)
        if others:
            return _title(part), [_title(o) for o in others]
    return None


def _title(name: str) -> str:
    return NAMES.get(name, name)


def _schema_at(root: dict, parts: list) -> dict | None:
    node = _merged(root, root)
    for part in parts:
        if isinstance(part, int):
            node = node.get("items")
        else:
            node = _properties(node, root).get(part)
        if not isinstance(node, dict):
            return None
        node = _merged(node, root)
    return node


def _resolved(node: dict, root: dict | None) -> dict:
    for _ in range(20):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not ref or root is None or not ref.startswith("#/"):
            break
        target = root
        for key in ref[2:].split("/"):
            target = target.get(key, {}) if isinstance(target, dict) else {}
        node = target
    return node if isinstance(node, dict) else {}


def _merged(node: dict, root: dict | None) -> dict:
    """`node` with its $ref followed and its allOf's members folded in."""
    node = _resolved(node, root)
    if "allOf" not in node:
        return node
    merged: dict = {}
    for member in node["allOf"]:
        member = _merged(member, root)
        merged.update({k: v for k, v in member.items() if k != "properties"})
        merged.setdefault("properties", {}).update(member.get("properties", {}))
    merged.update({k: v for k, v in node.items() if k not in ("allOf", "properties")})
    merged.setdefault("properties", {}).update(node.get("properties", {}))
    return merged


def _properties(node: dict, root: dict | None) -> dict:
    return dict(_merged(node, root).get("properties") or {})


def _join(at: str, name: str) -> str:
    return f"{at}.{name}" if at and at != "body" else name


def _listed(names: list[str], last: str = "and") -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def _one_of(values: list) -> str:
    quoted = [_quoted(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"one of {_listed(quoted, 'or')}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _described(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return _quoted(value) if isinstance(value, str) else str(value)


def _rule_broken(error: ValidationError) -> str | None:
    """The broken rule in the spec's words (its description's first paragraph), or None."""
    if not isinstance(error.schema, dict):
        return None
    description = (error.schema.get("description") or "").strip()
    if not description:
        return None
    rule = " ".join(description.split("\n\n")[0].split()).rstrip(".")
    rule = rule[0].lower() + rule[1:]  # a message goes on after `where: `
    if isinstance(error.instance, str):
        rule += f" (got {_quoted(error.instance)})"
    return rule


def _quoted(value) -> str:
    """`value` quoted, cut to QUOTE_LIMIT; the closing quote stays, so it reads as one value."""
    if not isinstance(value, str):
        return repr(value)
    quoted = repr(value)
    return quoted if len(quoted) <= QUOTE_LIMIT else f"{quoted[:QUOTE_LIMIT]}…{quoted[0]} ({len(value)} characters)"


def _shortened(error: ValidationError) -> str:
    """jsonschema's message with the offending value cut here, where it is known, so the
    message errors.clip scans stays short even for a megabyte of caption."""
    quoted = repr(error.instance)
    if len(quoted) <= QUOTE_LIMIT:
        return error.message
    if isinstance(error.instance, str):
        short = _quoted(error.instance)
    else:
        size = f" of {len(error.instance)} items" if isinstance(error.instance, (list, dict)) else ""
        short = f"a {type(error.instance).__name__}{size}"
    return error.message.replace(quoted, short)
