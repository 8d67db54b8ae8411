"""`/dashboard/webhooks`: the registrations; register one (its secret shown once), one's
deliveries with every attempt, delete one.

Registering checks the body with the API's schema and the URL with the guard every
delivery goes through, as `POST /v1/webhooks` does, then calls its model function.

Actions on one registration (`ACTIONS`) are buttons on its page, each posted to
`/dashboard/webhooks/{id}/actions/{name}` with the session's CSRF token, and each runs the
model function of the API's operation of the same name. Redelivery, test pings and secret
rotation join the table when the API has them: an `Action` with the button's words and a
function of the visit and the registration that answers the page to show.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from starlette.responses import Response

from ..http import cursors
from ..models import caps, deliveries
from ..models import webhook as registrations
from ..outbound.guard import UnsafeURL, check_url
from ..plans import WEBHOOKS_PER_WORKSPACE
from ..problems import InvalidRequest, NotFound, Problem
from ..views import delivery_view, new_webhook_view, webhook_view
from .contract import contract
from .web import Visit, page, see_other

PAGE = "/dashboard/webhooks"
PAGE_SIZE = 20
NOTICES = {"deleted": "The registration was deleted: no more events go to its URL."}


@dataclass(frozen=True)
class Action:
    words: str  # the button's
    run: Callable[[Visit, str], Response]  # (the visit, the registration's id) -> the page to show
    style: str = "secondary"  # the button's look: secondary or danger


ACTIONS: dict[str, Action] = {}


def _page(visit: Visit, status: int = 200, **context) -> Response:
    terms = contract(visit.rt.settings.insecure_urls)
    context.setdefault("form", {"url": "", "events": terms.enum("WebhookEvent")[:2]})
    return visit.page("webhooks.html", "webhooks", status,
                      webhooks=[webhook_view(w) for w in registrations.list_webhooks(visit.workspace_id)],
                      used=caps.count_webhooks(visit.workspace_id), limit=WEBHOOKS_PER_WORKSPACE,
                      kinds=terms.enum("WebhookEvent"), notice=NOTICES.get(visit.query("done") or ""), **context)


@page
def webhooks(visit: Visit) -> Response:
    return _page(visit)


@page(network=True)  # the URL's host is resolved
def register(visit: Visit) -> Response:
    """The secret is in this answer only (the page is never cached), never in a URL."""
    rt = visit.rt
    form = {"url": visit.form.get("url").strip(), "events": visit.form.all("event")}
    try:
        contract(rt.settings.insecure_urls).webhook.check(form)
        try:
            check_url(form["url"], rt.resolve, insecure=rt.settings.insecure_urls)
        except UnsafeURL as e:
            raise InvalidRequest(f"url: {e}") from None
        webhook, secret = registrations.create_webhook(rt, visit.workspace_id, url=form["url"], events=form["events"])
    except Problem as e:
        return _page(visit, e.status, error=e, form=form)
    return _page(visit, 201, created=new_webhook_view(webhook, secret))


def _own(visit: Visit):
    return registrations.get_webhook(visit.workspace_id, visit.path_id("id", "wh", "webhook"))


@page
def webhook(visit: Visit) -> Response:
    """One registration and its deliveries, newest first, with every attempt."""
    rt, registration = visit.rt, _own(visit)
    cursor = visit.query("cursor") or None
    rows, has_more = deliveries.page(registration.id, limit=PAGE_SIZE,
                                     after=cursors.after(rt.keyring, visit.workspace_id, cursor))
    attempts = deliveries.attempts_of([d.id for d in rows])
    return visit.page("webhook.html", "webhooks", webhook=webhook_view(registration),
                      deliveries=[delivery_view(d, attempts[d.id]) for d in rows], actions=ACTIONS,
                      paged=cursor is not None,
                      next_cursor=cursors.next_cursor(rt.keyring, visit.workspace_id, rows, has_more))


@page
def confirm_delete(visit: Visit) -> Response:
    return visit.page("webhook_delete.html", "webhooks", webhook=webhook_view(_own(visit)))


@page
def delete(visit: Visit) -> Response:
    registrations.delete_webhook(visit.workspace_id, visit.path_id("id", "wh", "webhook"))
    return see_other(PAGE, done="deleted")


@page
def act(visit: Visit) -> Response:
    """One of `ACTIONS` on one registration of this workspace."""
    webhook_id = _own(visit).id
    action = ACTIONS.get(visit.request.path_params["action"])
    if action is None:
        raise NotFound("no such action on a webhook")
    return action.run(visit, webhook_id)


ROUTES = [
    (PAGE, webhooks, ("GET",)),
    (PAGE, register, ("POST",)),
    ("/dashboard/webhooks/{id}", webhook, ("GET",)),
    ("/dashboard/webhooks/{id}/delete", confirm_delete, ("GET",)),
    ("/dashboard/webhooks/{id}/delete", delete, ("POST",)),
    ("/dashboard/webhooks/{id}/actions/{action}", act, ("POST",)),
]
