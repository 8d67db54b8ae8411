"""Operation handlers: parse, call a model function, shape the response."""
from __future__ import annotations

import functools

from ..errors import ApiError
from ..models import NotFound, PlanLimitExceeded, db


def api_call(handler):
    """Runs the handler on a pooled connection and turns domain errors into API errors."""

    @functools.wraps(handler)
    def wrapper(*args, **kwargs):
        try:
            with db.connection_context():
                return handler(*args, **kwargs)
        except NotFound as e:
            raise ApiError(404, "not_found", str(e)) from None
        except PlanLimitExceeded as e:
            raise ApiError(403, "plan_limit_exceeded", str(e)) from None

    return wrapper
