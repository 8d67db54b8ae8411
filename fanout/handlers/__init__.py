"""Operation handlers: parse, call a model function, shape the response."""
from __future__ import annotations

import functools

from ..errors import ApiError
from ..models import db
from ..models.errors import DomainError


def api_call(handler):
    """Runs the handler on a pooled connection and turns domain errors into API errors."""

    @functools.wraps(handler)
    def wrapper(*args, **kwargs):
        try:
            with db.connection_context():
                return handler(*args, **kwargs)
        except DomainError as e:
            raise ApiError(e.status, e.code, str(e)) from None

    return wrapper
