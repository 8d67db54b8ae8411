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

from connexion.lifecycle import ConnexionRequest, ConnexionResponse

from ..problems import InternalError, InvalidApiKey, InvalidRequest, MissingApiKey, Problem
from .requestlog import request_id_of
from .routes import RouteTable, routing_problem

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
    body may hold a megabyte: tests/http/test_request_limits.py pins what is left of it.
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
    # Ended by a newline like every other JSON answer (Connexion's serializer writes one), so
    # a terminal shows `curl`'s output of a refusal and of a success alike.
    return json.dumps(error_object(problem)).encode() + b"\n"


def _response(problem: Problem) -> ConnexionResponse:
    return ConnexionResponse(
        status_code=problem.status,
        mimetype="application/json",
        content_type="application/json",
        body=error_body(problem),
        headers=dict(problem.headers),
    )


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
        return routing_problem(request, routes, status, headers)
    if status == 415:
        return InvalidRequest("send the body as JSON with 'Content-Type: application/json'")
    if 400 <= status < 500:
        problem = InvalidRequest(detail or "invalid request")
        # Another client error the framework chose (none is known to reach here) keeps its status.
        problem.status = 400 if status in (400, 422) else status
        return problem
    return None


def render_crash(request: ConnexionRequest, exc: BaseException) -> ConnexionResponse:
    """500 with no detail for the client; the traceback goes to the log under the request id."""
    request_id = request_id_of(request.scope)
    log.error("unhandled error in %s %s [request_id=%s]", request.method, request.url.path, request_id,
              exc_info=(type(exc), exc, exc.__traceback__))
    return _response(InternalError(f"an unexpected error occurred; quote request id {request_id} when reporting it"))
