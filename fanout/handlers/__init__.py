"""Operation handlers: parse, call a model function, shape the response."""
from __future__ import annotations

import functools
import inspect

from starlette.responses import Response

from ..ids import is_id
from ..models import db
from ..problems import NotFound


def fixed_signature(function):
    """`function` with its signature worked out once.

    Connexion inspects a handler's and a security function's signature on every request
    (to pick the arguments to pass); `inspect.signature` returns a `__signature__` at
    once instead of rebuilding it from the code object and the wrapper chain.
    """
    function.__signature__ = inspect.signature(function)
    return function


def api_call(handler):
    """Runs the handler on a pooled connection; the Problems it raises reach the app's
    error handler (fanout/errors.py), which answers them."""

    @functools.wraps(handler)
    def wrapper(*args, **kwargs):
        with db.connection_context():
            return handler(*args, **kwargs)

    return fixed_signature(wrapper)


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
