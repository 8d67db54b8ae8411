"""`GET /sandbox/{platform}/{target_id}`: the page a sandbox target's `external_url` shows.

A sandbox post is "published" here instead of on a platform, so clients can follow the
link exactly as they would a real permalink. The page shows what the target published
(its platform's override where the post has one: fanout/content.py): the caption, each
part of a thread as a reply to the one before (`#part-2`, ...), and the first comment
(`#comment`). Media are shown as a platform would: images as images, videos as players that load nothing until played, each
with a link to its URL. Those URLs are the client's, on other origins, so the page's
Content-Security-Policy lets images and videos (nothing else: no script, frame, style or
font) load over https, and over http too only where this server takes http media URLs
(FANOUT_INSECURE_URLS, for local development); Referrer-Policy no-referrer keeps the
page's address from the media hosts (docs/decisions.md#sandbox-publishing).
"""
from __future__ import annotations

import html

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from .. import runtime
from ..ids import is_id
from ..models import Post, Target, db
from ..platforms import NAMES
from .connect_pages import PAGE_HEADERS, page


def media_policy(insecure_urls: bool) -> dict:
    """The page headers, with the sources media may load from."""
    sources = "https: http:" if insecure_urls else "https:"
    return {**PAGE_HEADERS,
            "Content-Security-Policy": f"{PAGE_HEADERS['Content-Security-Policy']}; img-src {sources}; media-src {sources}"}


def _item(number: int, item: dict) -> str:
    url = html.escape(item["url"])
    if item["type"] == "image":
        shown = f'<img src="{url}" alt="Image {number} of the post">'
    else:
        shown = f'<video src="{url}" controls preload="none"></video>'
    return f'<figure>{shown}<figcaption><a href="{url}">{url}</a></figcaption></figure>'


def _part(number: int, count: int, part) -> str:
    """One post of the target: the first alone, or a thread's part replying to the one before."""
    media = "".join(_item(n, item) for n, item in enumerate(part.media, 1))
    text = f"<blockquote>{html.escape(part.caption)}</blockquote>{media}"
    if count == 1:
        return text
    heading = f"Part {number} of {count}" + (f", a reply to part {number - 1}" if number > 1 else "")
    return f'<section id="part-{number}"><h2>{heading}</h2>{text}</section>'


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
    content = post.content_for(target.platform)
    parts = (content, *content.thread)
    shown = "".join(_part(n, len(parts), part) for n, part in enumerate(parts, 1))
    if content.first_comment is not None:
        shown += (f'<section id="comment"><h2>First comment</h2>'
                  f"<blockquote>{html.escape(content.first_comment)}</blockquote></section>")
    body = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>Sandbox {name} post · Fanout</title>"
        "<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}"
        "blockquote{white-space:pre-wrap;border-left:4px solid #ccc;margin:1rem 0;padding:.5rem 1rem}"
        "figure{margin:1rem 0}img,video{display:block;max-width:100%;background:#eee}"
        "figcaption{font-size:.8rem;overflow-wrap:anywhere}h2{font-size:1rem}</style></head><body>"
        f"<p>Sandbox {name} post, published {target.published_at:%Y-%m-%d %H:%M:%S} UTC "
        "(no platform was called)</p>"
        f"{shown}</body></html>"
    )
    return HTMLResponse(body, headers=media_policy(runtime.current().settings.insecure_urls))


ROUTES = [("/sandbox/{platform}/{target_id}", show)]
