"""Requests and answers as the emulators see them: parsed once, whatever the encoding.

Platform APIs take parameters in the query string, an urlencoded body, a multipart body
or JSON; `Request.params` merges them so a handler reads one mapping.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlsplit

# Values never written to the call log: secrets stay out of logs, the emulators' too.
SECRET_NAMES = frozenset({"access_token", "client_secret", "refresh_token", "fb_exchange_token", "code_verifier",
                          "token", "upload_token", "password"})
MASK = "***"


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: Mapping[str, str]  # first value of each name
    form: Mapping[str, str]  # urlencoded or multipart fields (file parts in `files`)
    json: Any
    headers: Message
    files: Mapping[str, bytes] = field(default_factory=dict)
    raw_body: bytes = b""

    @property
    def params(self) -> dict[str, str]:
        """Query, then body fields (a JSON object's scalars too), later ones winning."""
        merged = dict(self.query)
        if isinstance(self.json, dict):
            merged.update({k: _scalar(v) for k, v in self.json.items() if not isinstance(v, (dict, list))})
        merged.update(self.form)
        return merged

    def bearer(self) -> str | None:
        value = self.headers.get("Authorization", "")
        scheme, _, token = value.partition(" ")
        return token.strip() or None if scheme.lower() in ("bearer", "oauth") else None

    def logged_body(self) -> Any:
        """The body for the call log, secrets masked."""
        if self.form or self.files:
            return {**mask(self.form), **{name: f"<file, {len(data)} bytes>" for name, data in self.files.items()}}
        if self.json is not None:
            return mask(self.json)
        return f"<{len(self.raw_body)} bytes>" if self.raw_body else None


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def mask(value: Any) -> Any:
    """`value` with the values of secret-named keys replaced, at any depth."""
    if isinstance(value, Mapping):
        return {k: MASK if k in SECRET_NAMES else mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


def parse_request(method: str, target: str, headers: Message, body: bytes) -> Request:
    parts = urlsplit(target)
    query = _first_values(parse_qsl(parts.query, keep_blank_values=True))
    content_type = headers.get_content_type() if headers.get("Content-Type") else ""
    form: dict[str, str] = {}
    files: dict[str, bytes] = {}
    data: Any = None
    if content_type == "application/x-www-form-urlencoded":
        form = _first_values(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    elif content_type == "multipart/form-data":
        form, files = _multipart(headers.get("Content-Type", ""), body)
    elif content_type.endswith("json") and body:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
    return Request(method.upper(), parts.path or "/", query, form, data, headers, files, body)


def _first_values(pairs: list[tuple[str, str]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, value in pairs:
        values.setdefault(name, value)
    return values


def _multipart(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, bytes]]:
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    form: dict[str, str] = {}
    files: dict[str, bytes] = {}
    if not message.is_multipart():
        return form, files
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        if part.get_filename():
            files.setdefault(name, payload)
        else:
            form.setdefault(name, payload.decode(part.get_content_charset() or "utf-8", "replace"))
    return form, files


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, value: Any, headers: Mapping[str, str] | None = None) -> "Response":
        body = json.dumps(value, ensure_ascii=False).encode("utf-8")
        return cls(status, body, {"Content-Type": "application/json; charset=UTF-8", **(headers or {})})

    @classmethod
    def redirect(cls, location: str) -> "Response":
        return cls(302, b"", {"Location": location})


class Refusal(Exception):
    """Raised by a handler to answer with `response` (an error the platform would give)."""

    def __init__(self, response: Response):
        super().__init__(response.status)
        self.response = response
