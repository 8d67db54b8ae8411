"""`/dashboard/webhooks`: the registrations; register one (its secret shown once), edit
one (URL, events, enabled), one's deliveries with every attempt and a redelivery button
each, delete one.

Registering and editing check the body with the API's schema (`POST /v1/webhooks`,
`PATCH /v1/webhooks/{id}`) and a URL with the guard every delivery goes through
(fanout/models/webhook.py `guard_url`), then call the API's model functions.

Actions on one registration (`ACTIONS`) are buttons on its page, each posted to
`/dashboard/webhooks/{id}/actions/{name}` with the session's CSRF token, each running what
the API's operation runs: a test ping (fanout/tasks/webhooks.py `ping`) and secret
rotation. Each answers 303 to the registration's page, which shows the ping's outcome, or
the new secret with the end of the previous one's overlap, once (`flash`): a reload shows
the page, and sends nothing again. An action that `asks` first is a link to a page that
says what it does (`webhook_<name>.html`), whose form posts it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from starlette.responses import Response

from ..http import cursors
from ..models import caps, deliveries
from ..models import webhook as registrations
from ..outbound.guard import url_rule
from ..plans import WEBHOOKS_PER_WORKSPACE
from ..problems import InvalidRequest, NotFound, Problem
from ..tasks.webhooks import ping
from ..views import delivery_view, new_webhook_view, ping_view, webhook_view
from . import flash
from .contract import contract
from .web import Visit, page, see_other

PAGE = "/dashboard/webhooks"
PAGE_SIZE = 20
NOTICES = {
    "deleted": "The registration was deleted: no more events go to its URL.",
    "edited": "The registration was saved.",
    "redelivery": "A redelivery was asked for: it is attempted now, and shows as an attempt below.",
}
# The rotation form's choices of how long the previous secret still signs (seconds).
OVERLAPS = ((0, "Not at all: it stops at once"), (3600, "1 hour"), (registrations.DEFAULT_OVERLAP, "24 hours"),
            (registrations.MAX_OVERLAP, "7 days"))


@dataclass(frozen=True)
class Action:
    words: str  # the button's
    run: Callable[[Visit, str], Response]  # (the visit, the registration's id) -> the page to show
    style: str = "secondary"  # the button's look: secondary or danger
    asks: bool = False  # a link to webhook_<name>.html, which says what it does, instead of a button


def _page(visit: Visit, status: int = 200, **context) -> Response:
    terms = contract(visit.rt.settings.insecure_urls)
    context.setdefault("form", {"url": "", "events": terms.enum("WebhookEvent")[:2]})
    return visit.page("webhooks.html", "webhooks", status,
                      webhooks=[webhook_view(w) for w in registrations.list_webhooks(visit.workspace_id)],
                      used=caps.count_webhooks(visit.workspace_id), limit=WEBHOOKS_PER_WORKSPACE,
                      kinds=terms.enum("WebhookEvent"), notice=NOTICES.get(visit.query("done") or ""),
                      url_rule=url_rule(visit.rt.settings.insecure_urls), **context)


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
        url = registrations.guard_url(rt, form["url"])
        webhook, secret = registrations.create_webhook(rt, visit.workspace_id, url=url, events=form["events"])
    except Problem as e:
        return _page(visit, e.status, error=e, form=form)
    return _page(visit, 201, created=new_webhook_view(webhook, secret))


def _own(visit: Visit):
    return registrations.get_webhook(visit.workspace_id, visit.path_id("id", "wh", "webhook"))


def _webhook_page(visit: Visit, registration, status: int = 200, **context) -> Response:
    """One registration and its deliveries, newest first, with every attempt."""
    rt = visit.rt
    cursor = visit.query("cursor") or None
    rows, has_more = deliveries.page(registration.id, limit=PAGE_SIZE,
                                     after=cursors.after(rt.keyring, visit.workspace_id, cursor))
    attempts = deliveries.attempts_of([d.id for d in rows])
    context.setdefault("notice", NOTICES.get(visit.query("done") or ""))
    return visit.page("webhook.html", "webhooks", status, webhook=webhook_view(registration),
                      deliveries=[delivery_view(d, attempts[d.id]) for d in rows], actions=ACTIONS,
                      paged=cursor is not None,
                      next_cursor=cursors.next_cursor(rt.keyring, visit.workspace_id, rows, has_more), **context)


@page
def webhook(visit: Visit) -> Response:
    """The registration's page; once after an action, with what the action did (`flash`)."""
    registration = _own(visit)
    shown = flash.take(visit)
    context = {}
    if "pinged" in shown:
        context["pinged"] = shown["pinged"]
    if "secret" in shown:
        context["rotated"] = new_webhook_view(registration, shown["secret"])
    return flash.dropped(_webhook_page(visit, registration, **context), visit)


def _edit_page(visit: Visit, registration, status: int = 200, error: Problem | None = None,
               form: dict | None = None) -> Response:
    view = webhook_view(registration)
    return visit.page("webhook_edit.html", "webhooks", status, webhook=view, error=error,
                      kinds=contract(visit.rt.settings.insecure_urls).enum("WebhookEvent"),
                      url_rule=url_rule(visit.rt.settings.insecure_urls),
                      form=form or {"url": view["url"], "events": view["events"], "enabled": view["enabled"]})


@page
def edit_form(visit: Visit) -> Response:
    return _edit_page(visit, _own(visit))


@page(network=True)  # a new URL's host is resolved
def edit(visit: Visit) -> Response:
    """`PATCH /v1/webhooks/{id}` with what the form changes: the URL when it is a new one
    (guarded as at registration), the events and whether it is enabled."""
    rt, registration = visit.rt, _own(visit)
    form = {"url": visit.form.get("url").strip(), "events": visit.form.all("event"),
            "enabled": visit.form.get("enabled") == "on"}
    body = {"events": form["events"], "enabled": form["enabled"]}
    if form["url"] != registration.url:
        body["url"] = form["url"]
    try:
        contract(rt.settings.insecure_urls).webhook_update.check(body)
        url = registrations.guard_url(rt, body["url"]) if "url" in body else None
        registrations.update_webhook(rt, visit.workspace_id, registration.id, url=url, events=body["events"],
                                     enabled=body["enabled"])
    except Problem as e:
        return _edit_page(visit, registration, e.status, error=e, form=form)
    return see_other(f"{PAGE}/{registration.id}", done="edited")


@page
def redeliver(visit: Visit) -> Response:
    """`POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver`: one more attempt, now."""
    webhook_id = _own(visit).id
    delivery_id = visit.path_id("delivery_id", "dlv", "delivery of this webhook")
    delivery = deliveries.request_redelivery(visit.workspace_id, webhook_id, delivery_id, visit.rt.now())
    visit.rt.tasks.deliver(delivery.id)
    return see_other(f"{PAGE}/{webhook_id}", done="redelivery")


@page
def confirm_delete(visit: Visit) -> Response:
    return visit.page("webhook_delete.html", "webhooks", webhook=webhook_view(_own(visit)))


@page
def delete(visit: Visit) -> Response:
    registrations.delete_webhook(visit.workspace_id, visit.path_id("id", "wh", "webhook"))
    return see_other(PAGE, done="deleted")


def _test(visit: Visit, webhook_id: str) -> Response:
    """`POST /v1/webhooks/{id}/test`: a `webhook.test` ping sent now; the registration's
    page then says what the endpoint did with it (its status or the error, and how long)."""
    pinged = ping_view(ping(visit.rt, visit.workspace_id, webhook_id))
    return flash.redirect_with(visit, f"{PAGE}/{webhook_id}", pinged=pinged)


def _rotate(visit: Visit, webhook_id: str) -> Response:
    """`POST /v1/webhooks/{id}/rotate-secret`: the new secret, shown once on the
    registration's page, with when the previous one stops signing."""
    body = {}
    chosen = visit.form.get("expire_after_seconds")
    if chosen:
        if not chosen.isdigit():
            raise InvalidRequest("expire_after_seconds must be a whole number of seconds")
        body["expire_after_seconds"] = int(chosen)
    contract(visit.rt.settings.insecure_urls).rotation.check(body)
    registration, secret = registrations.rotate_secret(
        visit.rt, visit.workspace_id, webhook_id, body.get("expire_after_seconds", registrations.DEFAULT_OVERLAP))
    return flash.redirect_with(visit, f"{PAGE}/{registration.id}", secret=secret)


ACTIONS: dict[str, Action] = {
    "test": Action("Send a test ping", _test),
    "rotate-secret": Action("Rotate the secret", _rotate, asks=True),
}


@page
def confirm_action(visit: Visit) -> Response:
    """The page of an action that asks first (`Action.asks`), with its form."""
    registration = _own(visit)
    name = visit.request.path_params["action"]
    action = ACTIONS.get(name)
    if action is None or not action.asks:
        raise NotFound("no such action on a webhook")
    return visit.page(f"webhook_{name}.html", "webhooks", webhook=webhook_view(registration), action=action,
                      name=name, overlaps=OVERLAPS, default_overlap=registrations.DEFAULT_OVERLAP)


@page(network=True)  # a test ping is sent, and answered, within the request
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
    ("/dashboard/webhooks/{id}/edit", edit_form, ("GET",)),
    ("/dashboard/webhooks/{id}/edit", edit, ("POST",)),
    ("/dashboard/webhooks/{id}/deliveries/{delivery_id}/redeliver", redeliver, ("POST",)),
    ("/dashboard/webhooks/{id}/delete", confirm_delete, ("GET",)),
    ("/dashboard/webhooks/{id}/delete", delete, ("POST",)),
    ("/dashboard/webhooks/{id}/actions/{action}", confirm_action, ("GET",)),
    ("/dashboard/webhooks/{id}/actions/{action}", act, ("POST",)),
]
