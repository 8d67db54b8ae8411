"""`GET /sandbox/{platform}/{target_id}`: the page a sandbox target's `external_url` shows.

A sandbox post is "published" here instead of on a platform, so clients can follow the
link exactly as they would a real permalink.
"""
from __future__ import annotations

import html

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..ids import is_id
from ..models import Post, Target, db
from ..platforms import NAMES
from .connect_pages import PAGE_HEADERS, page


def _find(platform: str, target_id: str):
    with db.connection_context():
        target = Target.get_or_none((Target.id == target_id) & (Target.platform == platform)
                                    & (Target.status == "published"))
        if target is None:
            return None
        post = Post.get_or_none((Post.id == target.post_id) & Post.sandbox)
        return (post, target) if post else None


async def show(request: Request) -> HTMLResponse:
    platform, target_id = request.path_params["platform"], request.path_params["target_id"]
    # Only a platform and a target id can name a page; anything else is not looked up
    # (PostgreSQL refuses NUL, and a query could not find it anyway).
    named = platform in NAMES and is_id(target_id, "tgt")
    found = await run_in_threadpool(_find, platform, target_id) if named else None
    if found is None:
        return page(404, "No such sandbox post", "Sandbox posts are shown here once published.")
    post, target = found
    name = html.escape(NAMES[target.platform])
    media = "".join(
        f"<li>{html.escape(m['type'])}: <code>{html.escape(m['url'])}</code></li>" for m in post.media_list
    )
    body = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>Sandbox {name} post · Fanout</title>"
        "<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}"
        "blockquote{white-space:pre-wrap;border-left:4px solid #ccc;margin:1rem 0;padding:.5rem 1rem}</style></head><body>"
        f"<p>Sandbox {name} post, published {target.published_at:%Y-%m-%d %H:%M:%S} UTC "
        "(no platform was called)</p>"
        f"<blockquote>{html.escape(post.caption)}</blockquote>"
        f"{'<ul>' + media + '</ul>' if media else ''}</body></html>"
    )
    return HTMLResponse(body, headers=PAGE_HEADERS)


ROUTES = [("/sandbox/{platform}/{target_id}", show)]
