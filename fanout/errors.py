"""The error object `{"error": {"code", "message"}}` for every non-2xx answer.

Connexion and Starlette raise their own exceptions (problems, HTTP errors); the handlers
registered by the app factory turn all of them, and our own `ApiError`, into the one
envelope here. Nothing else in the service builds error bodies.
"""
from __future__ import annotations

import json
import logging
import re

from connexion.exceptions import ProblemException
from connexion.lifecycle import ConnexionRequest, ConnexionResponse

from .requestlog import request_id_of

log = logging.getLogger("fanout.errors")


class ApiError(ProblemException):
    """An error the API answers on purpose, with a stable code."""

    def __init__(self, status: int, code: str, message: str, headers: dict | None = None):
        super().__init__(status=status, title=code, detail=message, headers=headers)
        self.code = code
        self.message = message


def validation_error(message: str) -> ApiError:
    return ApiError(400, "validation_error", message)


def not_found(message: str = "no such resource in this workspace") -> ApiError:
    return ApiError(404, "not_found", message)


def plan_limit_exceeded(message: str) -> ApiError:
    return ApiError(403, "plan_limit_exceeded", message)


def error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


def _response(status: int, code: str, message: str, headers: dict | None = None) -> ConnexionResponse:
    return ConnexionResponse(
        status_code=status,
        mimetype="application/json",
        content_type="application/json",
        body=error_body(code, message),
        headers=dict(headers or {}),
    )


class AllowTable:
    """The methods each path of the spec documents, for 405 `Allow` headers.

    Connexion registers one route per (path, method), so its own `Allow` names only one.
    """

    def __init__(self, spec: dict):
        base = ""
        servers = spec.get("servers") or []
        if servers:
            base = servers[0]["url"].rstrip("/")
        self._routes = []
        for path, item in spec.get("paths", {}).items():
            methods = sorted(m.upper() for m in item if m in ("get", "put", "post", "delete", "patch"))
            pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(base + path))
            self._routes.append((re.compile(f"^{pattern}/?$"), methods))

    def allowed(self, path: str) -> list[str] | None:
        for pattern, methods in self._routes:
            if pattern.match(path):
                return methods
        return None


def _first_line(text: str) -> str:
    return (text or "").strip().split("\n", 1)[0].strip()


def make_error_handler(allow_table: AllowTable):
    """The handler for every HTTP-level exception Connexion or Starlette raises."""

    def render_error(request: ConnexionRequest, exc) -> ConnexionResponse:
        status = getattr(exc, "status_code", None) or getattr(exc, "status", 500)
        headers = dict(getattr(exc, "headers", None) or {})
        if isinstance(exc, ApiError):
            return _response(exc.status_code, exc.code, exc.message, headers)
        detail = _first_line(str(getattr(exc, "detail", "") or ""))
        if status == 401:
            headers["WWW-Authenticate"] = "Bearer"
            if "authorization" not in request.headers:
                return _response(401, "missing_api_key", "send the API key as 'Authorization: Bearer <key>'", headers)
            return _response(401, "invalid_api_key", "the API key is malformed, unknown or revoked", headers)
        if status == 404:
            return _response(404, "not_found", f"no route {request.url.path}")
        if status == 405:
            allowed = allow_table.allowed(request.url.path) or []
            headers["Allow"] = ", ".join(allowed)
            return _response(
                405, "method_not_allowed", f"{request.method} is not allowed here; use {' or '.join(allowed)}", headers
            )
        if status == 415:
            return _response(400, "validation_error", "send the body as JSON with 'Content-Type: application/json'")
        if 400 <= status < 500:
            return _response(400 if status in (400, 422) else status, "validation_error", detail or "invalid request")
        return render_crash(request, exc)

    return render_error


def render_crash(request: ConnexionRequest, exc: BaseException) -> ConnexionResponse:
    """500 with no detail for the client; the traceback goes to the log under the request id."""
    request_id = request_id_of(request.scope)
    log.error("unhandled error in %s %s [request_id=%s]", request.method, request.url.path, request_id,
              exc_info=(type(exc), exc, exc.__traceback__))
    return _response(500, "internal_error", f"an unexpected error occurred; quote request id {request_id} when reporting it")
