"""HEAD only where it is documented.

Starlette answers HEAD wherever GET is routed: it would run the whole operation, and count
it against the workspace's quota, to send the headers alone. No operation of the API
documents HEAD, so on their paths HEAD gets what any undocumented method gets (openapi.yaml,
"Errors"): 405 `method_not_allowed` with `Allow`, before the key is checked, counting
nothing. The pages outside the spec (the documents, /docs, the connect pages) keep HEAD.
"""
from __future__ import annotations

from starlette.exceptions import HTTPException

from .routes import RouteTable, raw_path


class UndocumentedHeadMiddleware:
    def __init__(self, app, routes: RouteTable) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] == "HEAD":
            found = self.routes.match(raw_path(scope))
            if found is not None and "HEAD" not in found[0]:
                # Rendered by the error handler, which names the documented methods in `Allow`.
                raise HTTPException(405)
        await self.app(scope, receive, send)
