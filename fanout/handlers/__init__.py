"""Operation handlers: parse, call a model function, shape the response.

Where they run (the event loop or a thread pool) is fanout/http/execution.py's.
"""
from __future__ import annotations

from starlette.responses import Response

from ..ids import is_id
from ..problems import NotFound


def no_content() -> Response:
    """204 as the spec documents it: no body and no Content-Type (Connexion would add one)."""
    return Response(status_code=204)


def known_id(value: str, prefix: str, what: str) -> str:
    """`value`, if it has the shape of a `prefix` id; else 404 at once, without a query.

    No such id exists, and a query with it might fail (PostgreSQL refuses NUL in text).
    """
    if not is_id(value, prefix):
        raise NotFound(f"no such {what} in this workspace")
    return value
