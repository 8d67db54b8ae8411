"""The error object `{"error": {"code", "message"}}` for every non-2xx answer of the API.

Our own failures are `fanout.problems.Problem`s; Connexion and Starlette raise their own
exceptions (problems, HTTP errors), which the handler here first turns into the Problem
they stand for. Every answer renders through `error_body`: nothing else in the service
builds error bodies.
"""
from __future__ import annotations

import json
import logging
import re
from urllib.parse import quote, unquote

from connexion.lifecycle import ConnexionRequest, ConnexionResponse
from jsonschema import Draft4Validator, ValidationError

from ..problems import InternalError, InvalidApiKey, InvalidRequest, MethodNotAllowed, MissingApiKey, NotFound, Problem
from .requestlog import request_id_of

log = logging.getLogger("fanout.errors")


# What an error message may quote of a value the client sent, and how long it may be.
QUOTE_LIMIT = 200
MESSAGE_LIMIT = 1000

# A quoted value (a Python repr, as jsonschema and our messages write them) or an unquoted
# run of non-space characters, either longer than QUOTE_LIMIT. Linear: the fixed count
# fails within QUOTE_LIMIT steps and the rest of a literal is consumed without backtracking.
_LONG_VALUE = re.compile(
    r"""(?P<q>['"])(?P<body>(?:(?!(?P=q))[^\\]|\\.){%d}(?:(?!(?P=q))[^\\]|\\.)*+)(?P=q)?"""
    r"""|(?P<run>[^\s'"]{%d,})""" % (QUOTE_LIMIT + 1, QUOTE_LIMIT + 1),
    re.DOTALL,
)


def _cut(match: re.Match, cut_short: bool) -> str:
    # A value running into the end of a message scanned only in part is longer than counted.
    count = ("at least " if cut_short and match.end() == len(match.string) else "") + "{} characters"
    if match.group("run"):
        run = match.group("run")
        return f"{run[:QUOTE_LIMIT]}… ({count.format(len(run))})"
    q, body = match.group("q"), match.group("body")
    return f"{q}{body[:QUOTE_LIMIT]}…{q} ({count.format(len(body))})"


def clip(message: str) -> str:
    """The message with every quoted value cut to QUOTE_LIMIT characters, at most MESSAGE_LIMIT long.

    Messages quote what clients send (jsonschema quotes the whole offending value), and a
    body may hold a megabyte: tests/test_request_limits.py pins what is left of it.
    """
    # Only the head is scanned: what survives is at most MESSAGE_LIMIT long anyway, and a
    # jsonschema message may quote a whole megabyte (a second of regex work per request).
    head = message[: 8 * MESSAGE_LIMIT]
    message = _LONG_VALUE.sub(lambda match: _cut(match, len(head) < len(message)), head)
    return message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "…"


def error_object(problem: Problem) -> dict:
    """`{"error": {"code", "message"}}`, the message clipped."""
    return {"error": {"code": problem.code, "message": clip(problem.message)}}


def error_body(problem: Problem) -> bytes:
    return json.dumps(error_object(problem)).encode()


def _response(problem: Problem) -> ConnexionResponse:
    return ConnexionResponse(
        status_code=problem.status,
        mimetype="application/json",
        content_type="application/json",
        body=error_body(problem),
        headers=dict(problem.headers),
    )


HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class RouteTable:
    """The paths of the spec: the methods each documents and its path parameters' schemas.

    The error handler needs it where Starlette's routing answers on the spec's behalf:
    - 405: Connexion registers one route per (path, method), so Starlette's own `Allow`
      names a single method; the table names every documented one.
    - 404: Starlette cannot route some path parameter values at all. Its mount pattern
      (`.*`) stops at a line break, and an encoded slash (`%2F`) is decoded into a path
      separator. Such a request still names a documented operation, so it gets the answer
      the operation gives: 400 if the value breaks the parameter's schema (as Connexion's
      validation would say), 404 `not_found` otherwise (an id that names nothing).
    Matching runs on the raw, still percent-encoded path, one segment per parameter.

    `pages` are the routes outside the spec (the documents, /docs, the connect pages) with
    their methods: the API is mounted at the root, so Starlette answers 404, not 405, for a
    page asked with another method.
    """

    def __init__(self, spec: dict, pages: tuple[tuple[str, tuple[str, ...]], ...] = ()):
        base = ""
        servers = spec.get("servers") or []
        if servers:
            base = servers[0]["url"].rstrip("/")
        self._spec = spec
        self._routes: list[tuple[str, list[str], dict[str, dict[str, dict]]]] = []
        for path, item in spec.get("paths", {}).items():
            shared = item.get("parameters") or []
            operations = {}
            for method in HTTP_METHODS:
                if method in item:
                    operations[method.upper()] = self._path_params([*shared, *(item[method].get("parameters") or [])])
            self._routes.append((base + path, (base + path).strip("/").split("/"), operations))
        for path, methods in pages:
            self._routes.append((path, path.strip("/").split("/"), {method: {} for method in methods}))

    def _resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            target = self._spec
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def _path_params(self, parameters: list) -> dict[str, dict]:
        params = {}
        for param in map(self._resolve, parameters):
            if param.get("in") == "path":
                params[param["name"]] = _inline_refs(param.get("schema") or {}, self._resolve)
        return params

    def match(self, raw_path: str) -> tuple[dict[str, dict[str, dict]], dict[str, str]] | None:
        """(documented methods with their path parameter schemas, parameter values) or None."""
        found = self._find(raw_path)
        return (found[1], found[2]) if found else None

    def route_of(self, raw_path: str) -> str | None:
        """The spec's path template a request path is for, e.g. /v1/posts/{id}, or None."""
        found = self._find(raw_path)
        return found[0] if found else None

    def _find(self, raw_path: str):
        segments = raw_path.strip("/").split("/")
        for path, template, operations in self._routes:
            if len(template) != len(segments):
                continue
            values = {}
            for pattern, segment in zip(template, segments):
                if pattern.startswith("{") and pattern.endswith("}"):
                    if not segment:
                        break
                    values[pattern[1:-1]] = unquote(segment)
                elif unquote(segment) != pattern:
                    break
            else:
                return path, operations, values
        return None


def _inline_refs(schema, resolve):
    schema = resolve(schema)
    if isinstance(schema, dict):
        return {key: _inline_refs(value, resolve) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_inline_refs(value, resolve) for value in schema]
    return schema


def raw_path(scope) -> str:
    """The whole request path as sent, still percent-encoded."""
    raw = scope.get("raw_path")
    return raw.decode("latin-1") if raw else quote(scope.get("path", ""), safe="/")


def _path_param_problem(params: dict[str, dict], values: dict[str, str]) -> str | None:
    for name, schema in params.items():
        try:
            Draft4Validator(schema).validate(values.get(name))
        except ValidationError as e:
            return f"path parameter '{name}': {e.message}"
    return None


def _first_line(text: str) -> str:
    return (text or "").strip().split("\n", 1)[0].strip()


def make_error_handler(routes: RouteTable):
    """The handler for our Problems and every HTTP-level exception Connexion or Starlette raises."""

    def render_error(request: ConnexionRequest, exc) -> ConnexionResponse:
        if isinstance(exc, Problem):
            return _response(exc)
        problem = _problem_of(request, routes, exc)
        return _response(problem) if problem is not None else render_crash(request, exc)

    return render_error


def _problem_of(request: ConnexionRequest, routes: RouteTable, exc) -> Problem | None:
    """The Problem a Connexion or Starlette exception stands for; None for a server error."""
    status = getattr(exc, "status_code", None) or getattr(exc, "status", 500)
    headers = dict(getattr(exc, "headers", None) or {})
    detail = _first_line(str(getattr(exc, "detail", "") or ""))
    if status == 401:
        if "authorization" not in request.headers:
            return MissingApiKey("send the API key as 'Authorization: Bearer <key>'", headers)
        scheme = request.headers["authorization"].strip().partition(" ")[0]
        if scheme.lower() != "bearer":
            return InvalidApiKey("the Authorization header needs the Bearer scheme: "
                                 "send 'Authorization: Bearer <key>'", headers)
        return InvalidApiKey("the API key is malformed, unknown or revoked", headers)
    if status in (404, 405):
        return _routing_problem(request, routes, status, headers)
    if status == 415:
        return InvalidRequest("send the body as JSON with 'Content-Type: application/json'")
    if 400 <= status < 500:
        problem = InvalidRequest(detail or "invalid request")
        # Another client error the framework chose (none is known to reach here) keeps its status.
        problem.status = 400 if status in (400, 422) else status
        return problem
    return None


def _routing_problem(request: ConnexionRequest, routes: RouteTable, status: int, headers: dict) -> Problem:
    """404 or 405 from Starlette's routing, answered the way the spec documents it."""
    found = routes.match(raw_path(request.scope))
    if found is None:
        if status == 405 and headers.get("Allow"):
            # A route outside the spec (the served spec itself, the connect pages).
            allowed = [m.strip() for m in headers["Allow"].split(",")]
            return MethodNotAllowed(f"{request.method} is not allowed here; use {' or '.join(allowed)}", headers)
        return NotFound(f"no route {request.url.path!r}")
    operations, values = found
    # HEAD is an undocumented method like any other here (fanout/http/headmethod.py).
    method = request.method
    if method not in operations:
        allowed = sorted(operations)
        headers["Allow"] = ", ".join(allowed)
        return MethodNotAllowed(f"{request.method} is not allowed here; use {' or '.join(allowed)}", headers)
    # A documented operation whose path Starlette could not route (see RouteTable).
    problem = _path_param_problem(operations[method], values)
    if problem:
        return InvalidRequest(problem)
    return NotFound("no such resource in this workspace")


def render_crash(request: ConnexionRequest, exc: BaseException) -> ConnexionResponse:
    """500 with no detail for the client; the traceback goes to the log under the request id."""
    request_id = request_id_of(request.scope)
    log.error("unhandled error in %s %s [request_id=%s]", request.method, request.url.path, request_id,
              exc_info=(type(exc), exc, exc.__traceback__))
    return _response(InternalError(f"an unexpected error occurred; quote request id {request_id} when reporting it"))
