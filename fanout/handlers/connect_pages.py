"""The connect pages on {connect_url}: what the end user's browser opens.

`GET /connect/{platform}?session=...` starts the flow (fanout/connect_flow.py) and
redirects, or shows a credentials platform's sign-in form, which `POST /connect/{platform}`
takes (form-encoded, the session token in it), as it takes the picker shown after a consent
that granted several accounts (the pick's token in it); `GET /connect/{platform}/callback` is where a platform sends the browser back
after consent; `GET /connect/done` is the built-in confirmation page (after a refused
consent, with a link to try again). These answer HTML, never the JSON error object, and
never a 500 for a bad or stale link.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from .. import runtime
from ..connect_flow import OUTCOMES, Form, Pick, Redirect, Refused, finish, open_link, remedy, take_form
from ..pages.render import render

# The session token is in the URL: keep it out of Referer headers, caches and frames.
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # The stylesheet every page of Fanout shares, from this server; nothing else.
    "Content-Security-Policy": "default-src 'none'; style-src 'self'",
}

SESSION_PROBLEMS = {
    "unknown": (404, "This connect link is not valid", "Ask the app that sent you here for a new link."),
    "expired": (410, "This connect link has expired", "Links work for 30 minutes. Ask the app that sent you here for a new one."),
    "used": (410, "This connect link was already used", "Each link works once. Ask the app that sent you here for a new one."),
    # The platform's callback: a `state` we did not issue, or issued and already used.
    "bad_state": (400, "This sign-in cannot be completed",
                  ("The answer from the platform does not match a sign-in in progress, or it was already used. "
                   "Start again from the app that sent you here.")),
    "late_state": (400, "This sign-in took too long",
                   "Connect links work for 30 minutes. Ask the app that sent you here for a new one."),
    "tries": (410, "Too many sign-in attempts",
              "This connect link allows a few tries only. Ask the app that sent you here for a new one."),
}

# A retry's session token, as `connect_flow.denied` adds it (and no longer than a connect link takes).
RETRY_TOKEN = re.compile(r"[0-9A-Za-z]{1,200}")


# The most a sign-in form's body may hold: two inputs and the session token.
MAX_FORM_BYTES = 8192


def page(status: int, title: str, text: str, link: tuple[str, str] | None = None) -> HTMLResponse:
    """The page, in the look of every page of Fanout (fanout/pages/render.py), with
    `link` (href, words) as a paragraph of its own."""
    return HTMLResponse(render("message.html", title=title, text=text, link=link), status_code=status,
                        headers=PAGE_HEADERS)


def form_page(form: Form) -> HTMLResponse:
    """A live session's form, posted to this page with the session token: a credentials
    platform's sign-in, or a server-style platform's question of the server.
    The identifier typed is shown again after a refusal; the password never is. No CSP
    `form-action`: browsers apply it to the redirect after the post too, which goes on to
    the client's `redirect_url` (tests/test_credentials_connect.py)."""
    if form.kind == "server":
        [server] = form.fields
        body = render("connect_form.html", title=f"Connect your {form.title} account",
                      text=(f"Which {form.title} server is your account on? Fanout sends you there to sign in and "
                            f"grant access; it never sees your password."),
                      link=None, form=form, inputs=[(server, form.identifier, "text", "url")])
        return HTMLResponse(body, status_code=form.status, headers=PAGE_HEADERS)
    identifier, password = form.fields
    body = render("connect_form.html", title=f"Connect your {form.title} account",
                  text=(f"Sign in with an app password made for Fanout, not your account's main password. "
                        f"Fanout keeps only the access {form.title} grants, never the password."),
                  link=None, form=form, inputs=[(identifier, form.identifier, "text", "username"),
                                                (password, "", "password", "current-password")])
    return HTMLResponse(body, status_code=form.status, headers=PAGE_HEADERS)


def pick_page(choice: Pick) -> HTMLResponse:
    """The accounts one consent granted (a Facebook user's Pages), one to pick, posted to
    this page with the pick's token."""
    body = render("connect_pick.html", title=f"Choose the {choice.noun} to connect",
                  text=(f"Your {choice.title} sign-in manages several. Fanout connects the one you choose as an "
                        f"account; connect again for another."),
                  link=None, pick=choice)
    return HTMLResponse(body, status_code=choice.status, headers=PAGE_HEADERS)


def with_query(url: str, params: dict) -> str:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urlunsplit(parts._replace(query=urlencode(query)))


def names() -> dict[str, str]:
    """The platforms this server connects, by id: their names."""
    return {name: p.title for name, p in runtime.current().platforms.items()}


def unknown_platform() -> HTMLResponse:
    *others, last = names().values()
    return page(404, "Unknown platform", f"Fanout connects {', '.join(others)} and {last}.")


def answer(outcome: Redirect | Refused | Form) -> Response:
    if isinstance(outcome, Refused):
        return page(*SESSION_PROBLEMS[outcome.reason])
    if isinstance(outcome, Form):
        return form_page(outcome)
    if isinstance(outcome, Pick):
        return pick_page(outcome)
    url = with_query(outcome.url, outcome.params) if outcome.params else outcome.url
    return RedirectResponse(url, status_code=302, headers=PAGE_HEADERS)


async def connect(request: Request) -> Response:
    platform = request.path_params["platform"]
    token = request.query_params.get("session", "")
    if platform not in runtime.current().platforms:
        return unknown_platform()
    if not token or len(token) > 200:
        return page(400, "This connect link is incomplete", "Ask the app that sent you here for a new link.")
    return answer(await run_in_threadpool(open_link, runtime.current(), token, platform))


async def sign_in_form(request: Request) -> Response:
    """`POST /connect/{platform}`: a credentials form, or the picker of several accounts
    (it posts `pick`), as the browser sends it."""
    platform = request.path_params["platform"]
    if platform not in runtime.current().platforms:
        return unknown_platform()
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
        return page(415, "This sign-in cannot be read", "Send it from the connect page's form.")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return page(413, "This sign-in is too long", "Send it from the connect page's form.")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=10)
    except (UnicodeDecodeError, ValueError):
        return page(400, "This sign-in cannot be read", "Send it from the connect page's form.")
    posted = {name: values[0] for name, values in fields.items()}
    return answer(await run_in_threadpool(take_form, runtime.current(), platform, posted))


async def callback(request: Request) -> Response:
    platform = request.path_params["platform"]
    if platform not in runtime.current().platforms:
        return unknown_platform()
    query = {k: request.query_params[k] for k in ("state", "code", "error") if k in request.query_params}
    return answer(await run_in_threadpool(finish, runtime.current(), platform, query))


async def done(request: Request) -> Response:
    query = request.query_params
    outcome = query.get("status") if query.get("status") == "connected" else query.get("error", "")
    title = OUTCOMES.get(outcome, "Connect flow finished")
    name = names().get(query.get("platform", ""))
    if outcome == "connected":
        account = f"Your {name} account" if name else "Your account"
        return page(200, title, f"{account} is connected. You can close this window.")
    said = remedy(runtime.current(), outcome, query.get("platform"))
    return page(200, title, f"Connecting {name or 'the account'} did not finish ({outcome or 'no outcome'}).{' ' + said if said else ''} "
                            "You can close this window.", retry_link(query, outcome, name))


def retry_link(query, outcome: str, name: str | None) -> tuple[str, str] | None:
    """After a refused consent, the new connect link `connect_flow.denied` made: a path on
    this host, never a URL from the query, so the page links nowhere else."""
    token = query.get("retry", "")
    if outcome != "access_denied" or name is None or not RETRY_TOKEN.fullmatch(token):
        return None
    return f"/connect/{query['platform']}?{urlencode({'session': token})}", f"Try connecting {name} again"


ROUTES = [
    ("/connect/done", done),
    ("/connect/{platform}", connect),
    ("/connect/{platform}/callback", callback),
]
# Pages that take a form's POST.
FORM_ROUTES = [("/connect/{platform}", sign_in_form)]
