"""What every dashboard page does before and after its own work: the session, the form and
its CSRF token, the database connection, and the answer to a Problem.

A page is a plain function of a `Visit` (the signed-in request), decorated with `page`:

- no session (no cookie, or one that names no live session): 303 to /dashboard/sign-in;
- a POST (which `origin` has already refused unless a page of the dashboard sent it): its
  form read (url-encoded, at most MAX_FORM_BYTES), and refused with 403 unless it carries
  the session's CSRF token (fanout/models/dashboard.py `csrf_token`);
- the function runs with a database connection, where `on_the_stores` puts API handlers
  (on the event loop for the embedded default), or always in the thread pool when it
  waits on the network (`page(network=True)`: a webhook URL's host is resolved);
- a Problem it raises is shown as the API would word it, with its status; anything else
  is a 500 page naming the request id, and its traceback goes to the log.

Every page reads and changes its own workspace's rows only: ids come from the path or the
form and are looked up together with the session's workspace, so another workspace's id is
404, exactly as the API answers it.
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import runtime
from ..http.execution import on_the_stores
from ..http.requestlog import request_id_of
from ..ids import is_id
from ..models import DashboardSession, db
from ..models.dashboard import csrf_matches, csrf_token, session_of
from ..problems import NotFound, Problem
from ..times import isoformat
from ..pages.render import HEADERS, html

log = logging.getLogger(__name__)

COOKIE = "fanout_dashboard"
COOKIE_PATH = "/dashboard"
SIGN_IN = "/dashboard/sign-in"
# A post's caption (10,000 characters, up to 9 bytes each once percent-encoded) and its
# media URLs fit with room to spare.
MAX_FORM_BYTES = 256 * 1024
MAX_FORM_FIELDS = 200

NAVIGATION = (
    ("overview", "Overview", "/dashboard"),
    ("posts", "Posts", "/dashboard/posts"),
    ("accounts", "Accounts", "/dashboard/accounts"),
    ("keys", "Keys", "/dashboard/keys"),
    ("webhooks", "Webhooks", "/dashboard/webhooks"),
    ("events", "Events", "/dashboard/events"),
)

# The headings of a refusal shown on a page of its own, by status.
REFUSALS = {
    400: "This cannot be done",
    403: "Not allowed",
    404: "Not found",
    409: "Not possible now",
    413: "Too much at once",
    415: "This form cannot be read",
    422: "This cannot be done",
}


class Form:
    """A posted form: the values of each field, in order."""

    def __init__(self, fields: dict[str, list[str]] | None = None) -> None:
        self.fields = fields or {}

    def get(self, name: str, default: str = "") -> str:
        values = self.fields.get(name)
        return values[0] if values else default

    def all(self, name: str) -> list[str]:
        return list(self.fields.get(name, []))


@dataclass(frozen=True)
class Alert:
    """A refusal to show on a page, like a Problem's: its message and code."""

    message: str
    code: str | None = None


class Refused(Exception):
    """A request the dashboard refuses on its own account (no API rule is involved): a form
    that is not what its pages send, or without the session's CSRF token."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


@dataclass
class Visit:
    """A signed-in request: the session, its workspace and, for a POST, its form."""

    request: Request
    rt: runtime.Runtime
    session: DashboardSession
    token: str
    form: Form = field(default_factory=Form)

    @property
    def workspace(self):
        return self.session.workspace

    @property
    def workspace_id(self) -> str:
        return self.session.workspace_id

    @property
    def csrf(self) -> str:
        return csrf_token(self.token)

    def query(self, name: str) -> str | None:
        return self.request.query_params.get(name)

    def path_id(self, name: str, prefix: str, what: str) -> str:
        """The path's id, if it has the shape of a `prefix` id; else 404 at once, as the API does."""
        value = self.request.path_params[name]
        if not is_id(value, prefix):
            raise NotFound(f"no such {what} in this workspace")
        return value

    def page(self, template: str, section: str, status: int = 200, **context) -> Response:
        """The dashboard page `template`, under the navigation with `section` current."""
        return html(template, status, workspace=self.workspace, csrf=self.csrf, navigation=NAVIGATION,
                    section=section, platform_names={name: p.title for name, p in self.rt.platforms.items()},
                    now=isoformat(self.rt.now()), **context)

    def refusal(self, status: int, title: str, message: str, code: str | None = None) -> Response:
        return self.page("refusal.html", "", status, title=title, message=message, code=code)


def see_other(path: str, **query) -> RedirectResponse:
    """303 to a page of the dashboard, with `query` (values that are None left out)."""
    params = {k: v for k, v in query.items() if v is not None}
    return RedirectResponse(f"{path}?{urlencode(params)}" if params else path, status_code=303, headers=HEADERS)


def to_sign_in(stale_cookie: bool) -> RedirectResponse:
    answer = see_other(SIGN_IN)
    if stale_cookie:
        answer.delete_cookie(COOKIE, path=COOKIE_PATH)
    return answer


async def read_form(request: Request) -> Form:
    """The url-encoded form of a POST; Refused when it is anything else, or too big."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
        raise Refused(415, REFUSALS[415], "Send it from the dashboard's own form.")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise Refused(413, REFUSALS[413], f"A form of the dashboard holds at most {MAX_FORM_BYTES // 1024} KiB.")
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS,
                          encoding="utf-8", errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, REFUSALS[400], "The form could not be read. Send it from the dashboard's own form.") from None
    return Form(fields)


def page(function=None, *, network: bool = False):
    """A dashboard page or action (see the module's docstring): `function(visit)` answers a Response."""
    if function is None:
        return functools.partial(page, network=network)

    @functools.wraps(function)
    async def endpoint(request: Request) -> Response:
        rt = runtime.current()
        token = request.cookies.get(COOKIE)
        form, unreadable = Form(), None
        if request.method == "POST":
            try:
                form = await read_form(request)
            except Refused as e:
                unreadable = e

        def run() -> Response:
            with db.connection_context():
                session = session_of(rt, token)
                if session is None:
                    return to_sign_in(stale_cookie=token is not None)
                visit = Visit(request, rt, session, token, form)
                if unreadable is not None:
                    return visit.refusal(unreadable.status, unreadable.title, unreadable.message)
                if request.method == "POST" and not csrf_matches(token, form.get("csrf")):
                    return visit.refusal(403, "This form has expired",
                                         "It did not carry this session's security token, so nothing was done. "
                                         "Go back, reload the page and send it again.")
                try:
                    return function(visit)
                except Problem as e:
                    return visit.refusal(e.status, REFUSALS.get(e.status, "This cannot be done"), e.message, e.code)
                except Exception:
                    # Our fault: the page says so and names the request, the log has the traceback.
                    request_id = request_id_of(request.scope)
                    log.exception("unhandled error in %s %s [request_id=%s]", request.method, request.url.path,
                                  request_id)
                    return visit.refusal(500, "Something went wrong",
                                         f"An unexpected error occurred; quote request id {request_id} when reporting it.",
                                         "internal_error")

        if network:
            return await run_in_threadpool(run)
        return await on_the_stores(run)

    return endpoint
