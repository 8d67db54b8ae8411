"""The workspace dashboard at /dashboard: server-rendered pages for a workspace's owner
(docs/decisions.md#the-workspace-dashboard, README "The dashboard").

One module per part of the navigation (`overview`, `posts`, `accounts`, `keys`,
`webhooks`, `events`) and `signin`; `web` is what every page does around its own work (the
session, the CSRF token, the Problems), `render` the templates and the look, `contract`
what the forms take from openapi.yaml. Every action calls the model functions the API's
handlers call, so a rule is written once and a refusal reads as the API words it.
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, Response

from ..problems import NotFound
from . import accounts, events, keys, overview, posts, signin, webhooks
from .origin import own_pages_only
from ..pages.render import HEADERS, STATIC

# The files of static/ that pages load; nothing else of the package is served.
FILES = {"dashboard.css": "text/css", "dashboard.js": "text/javascript"}


async def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in FILES:
        raise NotFound(f"no file {name!r} in /dashboard/static")
    # Revalidated on each use (it changes when Fanout is upgraded), answered 304 when unchanged.
    return FileResponse(STATIC / name, media_type=FILES[name],
                        headers={**HEADERS, "Cache-Control": "no-cache"})


async def favicon(request: Request) -> Response:
    """`/favicon.ico`, which browsers ask for on every page of the server (and every page links)."""
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon",
                        headers={**HEADERS, "Cache-Control": "public, max-age=86400"})


# (path, endpoint, methods), in the order they are matched.
_ROUTES = [
    *signin.ROUTES,
    *overview.ROUTES,
    *posts.ROUTES,
    *accounts.ROUTES,
    *keys.ROUTES,
    *webhooks.ROUTES,
    *events.ROUTES,
    ("/dashboard/static/{name}", static, ("GET",)),
    ("/favicon.ico", favicon, ("GET",)),
]

# Every POST, whatever page it belongs to, is refused unless a dashboard page sent it
# (origin.py): one place, so a new form cannot forget it.
ROUTES = [(path, own_pages_only(endpoint) if "POST" in methods else endpoint, methods)
          for path, endpoint, methods in _ROUTES]
