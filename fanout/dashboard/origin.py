"""Whether a dashboard POST was sent by a page of the dashboard itself
(docs/decisions.md#the-workspace-dashboard).

The CSRF token stops a page elsewhere from acting in a signed-in session, but the sign-in
form has no session yet: its only authority is the link's token, and a page elsewhere can
carry its author's own link and sign a visitor's browser in to the author's workspace. So
every dashboard POST, the sign-in's included, must also come from the dashboard's origin:

- `Origin` present (and not `null`): it must be FANOUT_BASE_URL's origin, or the origin
  the request was sent to (its scheme and `Host`), which is the same unless a proxy in
  front rewrites them;
- otherwise `Sec-Fetch-Site`, when sent, must be `same-origin` (or `none`: typed or
  bookmarked by the person). The pages send no Referer (`Referrer-Policy: no-referrer`),
  and a browser then sends `Origin: null` on their own forms too, so `null` alone decides
  nothing;
- a request with neither (a script, `curl`) is left to the CSRF token: what it could do,
  its author can do anyway.
"""
from __future__ import annotations

import functools
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from .. import runtime
from ..pages.render import html

TITLE = "Not sent from the dashboard"


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of `url`, lower-case, the default port left out."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        return ""
    if port is not None and port != {"http": 80, "https": 443}.get(scheme):
        host = f"{host}:{port}"
    return f"{scheme}://{host}"


def own_origins(request: Request, base_url: str) -> set[str]:
    return {origin_of(base_url), origin_of(f"{request.url.scheme}://{request.headers.get('host', '')}")}


def refusal(request: Request, base_url: str) -> str | None:
    """Why this POST is not the dashboard's own, in words for its page; None when it is."""
    origin = request.headers.get("origin")
    where = "Nothing was done: use the dashboard's own pages."
    if origin and origin != "null":
        if origin_of(origin) not in own_origins(request, base_url):
            return f"This form was sent by a page of {origin}, not by the dashboard. {where}"
        return None
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"This form was sent by a page of another site, not by the dashboard. {where}"
    return None


def forbidden(request: Request, base_url: str) -> Response | None:
    """The 403 page for a POST that is not the dashboard's own (see above), or None."""
    why = refusal(request, base_url)
    if why is None:
        return None
    return html("message.html", 403, title=TITLE, text=why, link=(f"{base_url}/dashboard", "Open the dashboard"))


def own_pages_only(endpoint):
    """`endpoint` answering `forbidden` first; the dashboard's every POST route is wrapped so."""

    @functools.wraps(endpoint)
    async def guarded(request: Request) -> Response:
        return forbidden(request, runtime.current().settings.base_url) or await endpoint(request)

    return guarded
