"""Meta Graph API conventions shared by the Threads and Instagram emulators:
the error envelope, the version prefix, `fields=` selection and timestamps."""
from __future__ import annotations

import datetime as dt
import secrets
import string
from typing import Any, Callable, Iterable, Mapping

from ..clock import as_utc
from ..wire import Refusal, Response

# Graph accepts any version prefix, and none.
VERSION = r"(?:/v\d+(?:\.\d+)?)?"

_TRACE_ALPHABET = string.ascii_letters + string.digits + "-_"


def fbtrace_id() -> str:
    return "A" + "".join(secrets.choice(_TRACE_ALPHABET) for _ in range(22))


def error_body(message: str, *, code: int, type: str = "OAuthException", subcode: int | None = None,
               **extra: Any) -> dict:
    """The Graph error envelope: {"error": {"message", "type", "code", "error_subcode"?, ..., "fbtrace_id"}}."""
    error: dict[str, Any] = {"message": message, "type": type, "code": code}
    if subcode is not None:
        error["error_subcode"] = subcode
    error.update(extra)
    error["fbtrace_id"] = fbtrace_id()
    return {"error": error}


class GraphError(Refusal):
    """A Graph error answer (HTTP 400 unless told), raised from a handler."""

    def __init__(self, message: str, *, code: int, type: str = "OAuthException", subcode: int | None = None,
                 status: int = 400, **extra: Any):
        self.code, self.subcode, self.message = code, subcode, message
        super().__init__(Response.json(status, error_body(message, code=code, type=type, subcode=subcode, **extra)))


def graph_time(instant: dt.datetime) -> str:
    """Graph's timestamp form: 2026-11-22T10:04:05+0000."""
    return as_utc(instant).strftime("%Y-%m-%dT%H:%M:%S+0000")


def requested_fields(value: str | None, default: Iterable[str] = ("id",)) -> list[str]:
    if not value:
        return list(default)
    return [f.strip() for f in value.split(",") if f.strip()]


def select(fields: list[str], available: Mapping[str, Callable[[], Any]], node_type: str, *,
           error_type: str = "OAuthException") -> dict:
    """The requested fields of a node (those with a value), its `id` always included if it
    has one; a field the node does not have is Graph's error 100 ("Tried accessing
    nonexisting field")."""
    for name in fields:
        if name not in available:
            raise GraphError(f"(#100) Tried accessing nonexisting field ({name}) on node type ({node_type})",
                             code=100, type=error_type)
    out = {name: available[name]() for name in dict.fromkeys(["id", *fields]) if name in available}
    return {name: value for name, value in out.items() if value is not None}


def unknown_object(object_id: str, method: str = "get") -> GraphError:
    return GraphError(
        f"Unsupported {method} request. Object with ID '{object_id}' does not exist, cannot be loaded due to "
        "missing permissions, or does not support this operation.",
        code=100, subcode=33, type="GraphMethodException")
