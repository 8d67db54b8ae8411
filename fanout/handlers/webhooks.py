"""POST/GET /v1/webhooks, GET/PATCH/DELETE /v1/webhooks/{id}, its deliveries, redelivery,
test ping and secret rotation. The rules are fanout/models/webhook.py's and
fanout/models/deliveries.py's; the ping is sent by fanout/tasks/webhooks.py."""
from __future__ import annotations

from .. import runtime
from ..http import cursors
from ..models import deliveries
from ..models import webhook as webhooks
from ..tasks.webhooks import ping
from ..views import delivery_view, list_view, new_webhook_view, page_view, ping_view, webhook_view
from ..http.execution import api_call, fixed_signature, network_call
from . import known_id, no_content


@network_call  # the URL's host is resolved
def create_webhook(body, token_info):
    rt = runtime.current()
    url = webhooks.guard_url(rt, body["url"])
    webhook, secret = webhooks.create_webhook(rt, token_info["workspace_id"], url=url, events=body["events"])
    return new_webhook_view(webhook, secret), 201


@api_call
def list_webhooks(token_info):
    return list_view([webhook_view(w) for w in webhooks.list_webhooks(token_info["workspace_id"])]), 200


@api_call
def get_webhook(id, token_info):
    return webhook_view(webhooks.get_webhook(token_info["workspace_id"], known_id(id, "wh", "webhook"))), 200


@network_call  # a new URL's host is resolved
def update_webhook(id, body, token_info):
    rt = runtime.current()
    workspace_id, webhook_id = token_info["workspace_id"], known_id(id, "wh", "webhook")
    webhooks.get_webhook(workspace_id, webhook_id)  # 404 before the URL is looked at
    url = webhooks.guard_url(rt, body["url"]) if "url" in body else None
    webhook = webhooks.update_webhook(rt, workspace_id, webhook_id, url=url, events=body.get("events"),
                                      enabled=body.get("enabled"))
    return webhook_view(webhook), 200


@api_call
def delete_webhook(id, token_info):
    webhooks.delete_webhook(token_info["workspace_id"], known_id(id, "wh", "webhook"))
    return no_content()


@api_call
def list_deliveries(id, token_info, limit=20, cursor=None):
    rt = runtime.current()
    workspace_id = token_info["workspace_id"]
    webhooks.get_webhook(workspace_id, known_id(id, "wh", "webhook"))  # 404 unless it is this workspace's
    rows, has_more = deliveries.page(id, limit=limit, after=cursors.after(rt.keyring, workspace_id, cursor))
    attempts = deliveries.attempts_of([d.id for d in rows])
    items = [delivery_view(d, attempts[d.id]) for d in rows]
    return page_view(items, cursors.next_cursor(rt.keyring, workspace_id, rows, has_more), has_more), 200


@api_call
def redeliver(id, delivery_id, token_info):
    rt = runtime.current()
    delivery = deliveries.request_redelivery(token_info["workspace_id"], known_id(id, "wh", "webhook"),
                                             known_id(delivery_id, "dlv", "delivery of this webhook"), rt.now())
    rt.tasks.deliver(delivery.id)
    return delivery_view(delivery, deliveries.attempts_of([delivery.id])[delivery.id]), 202


@fixed_signature
def test_webhook(id, token_info):
    """The ping is sent, and answered, within this request: a plain function, which
    Connexion runs in Starlette's thread pool, holding no database connection while the
    endpoint takes its time (`ping` takes one only to read the registration)."""
    return ping_view(ping(runtime.current(), token_info["workspace_id"], known_id(id, "wh", "webhook"))), 200


@api_call
def rotate_webhook_secret(id, token_info, body=None):
    expire = (body or {}).get("expire_after_seconds", webhooks.DEFAULT_OVERLAP)
    webhook, secret = webhooks.rotate_secret(runtime.current(), token_info["workspace_id"],
                                             known_id(id, "wh", "webhook"), expire)
    return new_webhook_view(webhook, secret), 200
