"""The pages' HTML: Jinja2 templates from this package's `templates/`, escaped by default,
with the look every page of Fanout shares (`static/dashboard.css`): the dashboard, the
sign-in pages, the connect pages and the sandbox post page.

Pages load nothing from elsewhere: the stylesheet and the one small script
(`static/dashboard.js`: copy buttons, and a post's page following its targets) are served
by Fanout itself under /dashboard/static, so the policy below allows 'self' and nothing else.
"""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.responses import HTMLResponse

FOLDER = Path(__file__).resolve().parent
STATIC = FOLDER / "static"

# Every page: never cached (keys and secrets are shown once), never framed, and sending no
# Referer (sign-in and connect links carry their tokens in the URL).
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}
# No `form-action`: browsers apply it to the redirects after a post too, and a "Connect"
# button's post goes on to the connect flow, which may be on FANOUT_CONNECT_URL's host and
# then on the platform's consent page.
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
          "base-uri 'none'; frame-ancestors 'none'")

_env = Environment(
    loader=FileSystemLoader(FOLDER / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def when(value) -> Markup:
    """A time as people read it, `2026-11-22 10:04 UTC`, in a <time> element; an API view's
    RFC 3339 string or a datetime; a dash for none."""
    if value is None:
        return Markup('<span class="none">—</span>')
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is not None:
        value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    machine = value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return Markup(f'<time datetime="{machine}">{value:%Y-%m-%d %H:%M} UTC</time>')


_env.globals["when"] = when


def html(template: str, status: int = 200, headers: dict | None = None, **context) -> HTMLResponse:
    """The page `template` rendered with `context`, with the pages' headers and policy."""
    body = _env.get_template(template).render(**context)
    return HTMLResponse(body, status_code=status, headers={**HEADERS, "Content-Security-Policy": POLICY,
                                                            **(headers or {})})


def render(template: str, **context) -> str:
    """The HTML of `template`, for a page that sends it with headers of its own."""
    return _env.get_template(template).render(**context)


__all__ = ["HEADERS", "POLICY", "STATIC", "Markup", "escape", "html", "render", "when"]
