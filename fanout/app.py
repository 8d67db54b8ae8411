"""The app factory: `create_app(settings)` builds the Connexion app over a booted runtime."""
from __future__ import annotations

import logging

from connexion import AsyncApp
from connexion.exceptions import ProblemException
from connexion.middleware import ConnexionMiddleware, MiddlewarePosition
from connexion.middleware.swagger_ui import SwaggerUIMiddleware
from starlette.exceptions import HTTPException

from . import dashboard
from . import runtime as _runtime
from . import spec as _spec
from .boot import boot
from .handlers import connect_pages, docs, sandbox_pages
from .http import spec_check, specification
from .http.bodylimit import BodyLimitMiddleware
from .http.errors import make_error_handler, render_crash
from .http.execution import HeldConnection
from .http.headmethod import UndocumentedHeadMiddleware
from .http.mediatype import MediaTypeMiddleware
from .http.operations import DecoratedOnceApi
from .http.requestlog import RequestIdHeader, RequestIdMiddleware
from .http.routes import RouteTable
from .http.throttle import RateLimitHeaders, RateLimitMiddleware
from .http.validation import VALIDATOR_MAP_WITH_CLEAR_ERRORS
from .problems import Problem
from .settings import Settings

log = logging.getLogger(__name__)

spec_check.install()
specification.install()


def create_app(settings: Settings, rt: _runtime.Runtime | None = None) -> AsyncApp:
    if rt is None:
        rt = boot(settings)
    # Connexion's Swagger UI middleware would serve the spec with every $ref expanded, and
    # route every request once more on its way through: handlers.docs serves the spec as
    # written, so the stack goes without it.
    middlewares = [m for m in ConnexionMiddleware.default_middlewares if m is not SwaggerUIMiddleware]
    app = AsyncApp(__name__, specification_dir=str(_spec.FOLDER), middlewares=middlewares)
    app._middleware_app.api_cls = DecoratedOnceApi
    # Built once a process and shared (fanout/http/specification.py), not the file, which
    # Connexion would parse (and Jinja-render) again. `spec`, the document as loaded, is
    # shared too: what reads it below only reads.
    shared = specification.shared(settings.insecure_urls)
    spec = shared.raw
    app.add_api(
        shared,
        strict_validation=True,
        validate_responses=settings.validate_responses,
        validator_map=VALIDATOR_MAP_WITH_CLEAR_ERRORS,
    )
    pages = connect_pages.ROUTES + sandbox_pages.ROUTES + docs.routes(spec, settings.base_url)
    forms = {path for path, _ in connect_pages.FORM_ROUTES}
    page_methods = {path: ("GET", "HEAD", "POST") if path in forms else ("GET", "HEAD") for path, _ in pages}
    for path, _, methods in dashboard.ROUTES:
        page_methods[path] = tuple(dict.fromkeys([*page_methods.get(path, ()), *methods, *(("HEAD",) if "GET" in methods else ())]))
    routes = RouteTable(spec, pages=tuple(page_methods.items()))
    render_error = make_error_handler(routes)
    app.add_error_handler(Problem, render_error)
    app.add_error_handler(ProblemException, render_error)
    app.add_error_handler(HTTPException, render_error)
    app.add_error_handler(Exception, render_crash)
    # With the stores in local files, requests run their statements on the event loop's
    # thread (http/execution.py on_the_stores), on a connection held while requests keep coming.
    connection = HeldConnection().request if settings.local_stores else None
    app.add_middleware(RequestIdMiddleware, position=MiddlewarePosition.BEFORE_EXCEPTION, routes=routes,
                       metrics=rt.metrics, connection=connection)
    app.add_middleware(RateLimitHeaders, position=MiddlewarePosition.BEFORE_EXCEPTION)
    app.add_middleware(BodyLimitMiddleware, position=MiddlewarePosition.BEFORE_EXCEPTION, max_bytes=settings.max_body_bytes)
    app.add_middleware(UndocumentedHeadMiddleware, position=MiddlewarePosition.BEFORE_ROUTING, routes=routes)
    app.add_middleware(MediaTypeMiddleware, position=MiddlewarePosition.BEFORE_ROUTING)
    app.add_middleware(RateLimitMiddleware, position=MiddlewarePosition.BEFORE_VALIDATION)
    if settings.validate_responses:
        # Innermost copies of the headers, so response validation finds the ones the spec
        # requires; without it the outer middlewares add them, a layer less each.
        app.add_middleware(RateLimitHeaders, position=MiddlewarePosition.BEFORE_CONTEXT)
        app.add_middleware(RequestIdHeader, position=MiddlewarePosition.BEFORE_CONTEXT)
    for path, endpoint in pages:
        app.add_url_rule(path, endpoint.__name__, endpoint, methods=["GET"])
    for path, endpoint in connect_pages.FORM_ROUTES:
        app.add_url_rule(path, endpoint.__name__, endpoint, methods=["POST"])
    for path, endpoint, methods in dashboard.ROUTES:
        app.add_url_rule(path, f"{endpoint.__module__}.{endpoint.__name__}", endpoint, methods=list(methods))
    return app
