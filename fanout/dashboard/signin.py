"""Signing in and out (docs/decisions.md#the-workspace-dashboard).

`GET /dashboard/sign-in?token=...`, the link `fanout dashboard-link` prints, shows which
workspace it signs in to and a "Sign in" button; the button's post spends the link and
starts the session. Opening the link alone spends nothing: chat and mail programs open
links to preview them, and would otherwise use up the link before its owner could.

The session's cookie: `HttpOnly`, `SameSite=Lax`, `Secure` when FANOUT_BASE_URL is https,
for /dashboard only, 12 hours. Signing out ends the session on the server, so the cookie
is worth nothing afterwards even where a copy of it was kept.

Each client address may try ATTEMPTS links a minute (opening one or posting one), counted
by the API's limiter (fanout/ratelimit.py, on the runtime's clock); more are answered 429
with `Retry-After` and not looked up. A link is 128 random bits, so this does not make it
safe, but nobody gets to guess at the speed of the server; a person with a link spends two
attempts and is never slowed. Every POST must come from a dashboard page (origin.py).
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from .. import runtime
from ..http.execution import on_the_stores
from ..models import db
from ..models.dashboard import SESSION_LIFETIME, LinkUnusable, open_link, session_of, sign_in, sign_out
from ..pages.render import html
from .web import COOKIE, COOKIE_PATH, SIGN_IN, Refused, Visit, page, read_form, see_other

HOW = "Run `fanout dashboard-link WORKSPACE_ID` on the server for a new link."
LINK_PROBLEMS = {
    "unknown": (404, "This sign-in link is not valid", f"Check that the whole link was copied. {HOW}"),
    "expired": (410, "This sign-in link has expired", f"Links work for 15 minutes. {HOW}"),
    "used": (410, "This sign-in link was already used", f"Each link signs in once. {HOW}"),
}
NOTICES = {"signed_out": "You are signed out."}
ATTEMPTS = 20  # sign-in links a client address may open or post per minute


def _plain(template: str, status: int = 200, **context) -> Response:
    return html(template, status, **context)


def _too_many(rt, request: Request) -> Response | None:
    """The 429 page once this address tried ATTEMPTS links in the last minute, else None
    (the attempt counted). Like the API's limits it fails open while its store is down."""
    address = request.client.host if request.client else ""
    decision = rt.throttle.check(f"sign-in:{address}", ATTEMPTS)
    if decision is None or decision.allowed:
        return None
    return html("message.html", 429, headers={"Retry-After": str(decision.retry_after)},
                title="Too many sign-in attempts",
                text=f"This address tried {ATTEMPTS} sign-in links within a minute. "
                     f"Try again in {decision.retry_after} s. {HOW}")


def _link_problem(reason: str) -> Response:
    status, title, text = LINK_PROBLEMS[reason]
    return _plain("message.html", status, title=title, text=text)


async def show(request: Request) -> Response:
    """`GET /dashboard/sign-in`: the link's confirmation, or how to get a link."""
    rt = runtime.current()
    token = request.query_params.get("token")

    def run() -> Response:
        with db.connection_context():
            if token is None:
                if session_of(rt, request.cookies.get(COOKIE)) is not None:
                    return see_other("/dashboard")
                return _plain("sign_in.html", notice=NOTICES.get(request.query_params.get("done", "")))
            refused = _too_many(rt, request)
            if refused is not None:
                return refused
            if not token or len(token) > 100:
                return _link_problem("unknown")
            try:
                workspace = open_link(rt, token)
            except LinkUnusable as e:
                return _link_problem(e.reason)
            return _plain("sign_in_confirm.html", workspace=workspace, token=token)

    return await on_the_stores(run)


async def confirm(request: Request) -> Response:
    """`POST /dashboard/sign-in`: the link's token spent, a session started. The link is the
    form's only authority; a page elsewhere may know one (its author's own), which is why
    only the dashboard's own pages may send this form (origin.py)."""
    rt = runtime.current()
    try:
        form = await read_form(request)
    except Refused as e:
        return _plain("message.html", e.status, title=e.title, text=e.message)
    token, previous = form.get("token"), request.cookies.get(COOKIE)

    def run() -> Response:
        with db.connection_context():
            refused = _too_many(rt, request)
            if refused is not None:
                return refused
            if not token or len(token) > 100:
                return _link_problem("unknown")
            try:
                session_token, _ = sign_in(rt, token)
            except LinkUnusable as e:
                return _link_problem(e.reason)
            if previous:
                sign_out(previous)  # this browser's session of before, whichever workspace
        answer = see_other("/dashboard")
        answer.set_cookie(COOKIE, session_token, max_age=int(SESSION_LIFETIME.total_seconds()), path=COOKIE_PATH,
                          httponly=True, samesite="lax", secure=rt.settings.base_url.startswith("https:"))
        return answer

    return await on_the_stores(run)


@page
def sign_out_now(visit: Visit) -> Response:
    """`POST /dashboard/sign-out`: the session ended on the server and its cookie dropped."""
    sign_out(visit.token)
    answer = see_other(SIGN_IN, done="signed_out")
    answer.delete_cookie(COOKIE, path=COOKIE_PATH)
    return answer


ROUTES = [
    (SIGN_IN, show, ("GET",)),
    (SIGN_IN, confirm, ("POST",)),
    ("/dashboard/sign-out", sign_out_now, ("POST",)),
]
