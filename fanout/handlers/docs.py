"""What a developer reads without a key: the spec as served, `/docs` and the index page.

`/docs` is Swagger UI from the installed `swagger-ui-bundle` package: nothing is fetched
from a CDN, and its script comes from this server so the page's CSP allows only 'self'.
"""
from __future__ import annotations

import functools
import html
import json

import yaml
from pathlib import Path

from starlette.responses import FileResponse, HTMLResponse, Response
from swagger_ui_bundle import swagger_ui_path

from .. import spec as _spec
from ..problems import NotFound

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# The only files of the bundle the page loads; nothing else of the package is served.
STATIC = {
    "swagger-ui.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
}
DOC_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# Swagger UI injects inline styles; scripts and everything else come from this server.
DOCS_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:"

DOCS_HTML = """<!doctype html>
<html lang=en><head><meta charset=utf-8>
<title>Fanout API · Docs</title>
<link rel=stylesheet href="/docs/static/swagger-ui.css">
<link rel=icon href="/favicon.ico">
</head><body><div id=swagger-ui></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>
"""

# Keys are pasted into "Authorize" and kept in this tab only (persistAuthorization off).
DOCS_INIT = """window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
});
"""


def index_html(title: str) -> str:
    links = [
        ("/dashboard", "Workspace dashboard"),
        ("/docs", "Interactive API docs"),
        ("/v1/openapi.json", "OpenAPI document (JSON)"),
        ("/v1/openapi.yaml", "OpenAPI document (YAML)"),
        ("/healthz", "Liveness"),
        ("/readyz", "Readiness"),
    ]
    items = "".join(f'<li><a href="{href}">{html.escape(text)}</a> <code>{href}</code></li>' for href, text in links)
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>"
        '<link rel="icon" href="/favicon.ico">'
        "<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}</style>"
        f"</head><body><h1>{html.escape(title)}</h1>"
        "<p>A social publishing API. Every <code>/v1</code> request needs "
        "<code>Authorization: Bearer &lt;API key&gt;</code>.</p>"
        f"<ul>{items}</ul></body></html>"
    )


def routes(spec: dict, base_url: str) -> list:
    """Starlette routes for the documents and pages, rendered once for this deployment."""
    index = index_html(spec["info"]["title"])

    # Made and rendered on first use: dumping YAML takes a quarter second, and most apps
    # never serve it.
    @functools.cache
    def rendered(media_type: str) -> bytes:
        doc = _spec.published(spec, base_url)
        if media_type == "application/json":
            return json.dumps(doc, ensure_ascii=False).encode()
        return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True).encode()

    async def openapi_json(request):
        return Response(rendered("application/json"), media_type="application/json", headers=DOC_HEADERS)

    async def openapi_yaml(request):
        return Response(rendered("application/yaml"), media_type="application/yaml", headers=DOC_HEADERS)

    async def docs_page(request):
        return HTMLResponse(DOCS_HTML, headers={**DOC_HEADERS, "Content-Security-Policy": DOCS_CSP})

    async def docs_init(request):
        return Response(DOCS_INIT, media_type="text/javascript", headers=DOC_HEADERS)

    async def static(request):
        name = request.path_params["name"]
        if name not in STATIC:
            raise NotFound(f"no file {name!r} in /docs/static")
        return FileResponse(Path(swagger_ui_path) / name, media_type=STATIC[name],
                            headers={**DOC_HEADERS, "Cache-Control": "public, max-age=86400"})

    async def home(request):
        return HTMLResponse(index, headers={**DOC_HEADERS, "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"})

    return [
        ("/v1/openapi.json", openapi_json),
        ("/v1/openapi.yaml", openapi_yaml),
        ("/docs", docs_page),
        ("/docs/init.js", docs_init),
        ("/docs/static/{name}", static),
        ("/", home),
    ]

