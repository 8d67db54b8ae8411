"""`GET /sandbox/{platform}/{target_id}`: the page a sandbox target's `external_url` shows.

A sandbox post is "published" here instead of on a platform, so clients can follow the
link exactly as they would a real permalink. The page shows what the target published
(its platform's override where the post has one: fanout/content.py): the caption, each
part of a thread as a reply to the one before (`#part-2`, ...), and the first comment
(`#comment`), from fanout/pages/templates/sandbox_post.html. Media are shown as a
platform would: images as images, videos as players that load nothing until played, each
with a link to its URL. Those URLs are the client's, on other origins, so the page's
Content-Security-Policy lets images and videos (nothing else but the stylesheet every page
of Fanout shares, from this server: no script, frame or font) load over https, and over http too only where this server takes http media URLs
(FANOUT_INSECURE_URLS, for local development); Referrer-Policy no-referrer keeps the
page's address from the media hosts (docs/decisions.md#sandbox-publishing).
"""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from .. import runtime
from ..ids import is_id
from ..models import Post, Target, db
from ..platforms import NAMES
from ..pages.render import render
from .connect_pages import PAGE_HEADERS, page


def media_policy(insecure_urls: bool) -> dict:
    """The page headers, with the sources media may load from."""
    sources = "https: http:" if insecure_urls else "https:"
    return {**PAGE_HEADERS,
            "Content-Security-Policy": f"{PAGE_HEADERS['Content-Security-Policy']}; img-src {sources}; media-src {sources}"}


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
    content = post.content_for(target.platform)
    body = render("sandbox_post.html", platform=NAMES[target.platform], published_at=target.published_at,
                  parts=(content, *content.thread), first_comment=content.first_comment)
    return HTMLResponse(body, headers=media_policy(runtime.current().settings.insecure_urls))


ROUTES = [("/sandbox/{platform}/{target_id}", show)]
