"""The routes of the spec, and the 404 or 405 a request gets where Starlette's routing answers.

Connexion registers one Starlette route per (path, method), so Starlette's own 404 and 405
do not say what the spec documents; the error handler (fanout/http/errors.py) asks
`routing_problem` for the answer, and the HEAD middleware and the access log ask the
`RouteTable` which operation a request path is for.
"""
from __future__ import annotations

from urllib.parse import quote, unquote

from connexion.lifecycle import ConnexionRequest
from jsonschema import Draft4Validator, ValidationError

from ..problems import InvalidRequest, MethodNotAllowed, NotFound, Problem


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


def routing_problem(request: ConnexionRequest, routes: RouteTable, status: int, headers: dict) -> Problem:
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
