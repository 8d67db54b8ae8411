"""POST/GET /v1/webhooks, GET/DELETE /v1/webhooks/{id}."""
from __future__ import annotations

from .. import runtime
from ..http import cursors
from ..models import deliveries
from ..models import webhook as webhooks
from ..outbound.guard import UnsafeURL, check_url
from ..problems import InvalidRequest
from ..views import delivery_view, list_view, new_webhook_view, page_view, webhook_view
from . import api_call, known_id, network_call, no_content


@network_call  # check_url resolves the host
def create_webhook(body, token_info):
    rt = runtime.current()
    try:
        check_url(body["url"], rt.resolve, insecure=rt.settings.insecure_urls)
    except UnsafeURL as e:
        raise InvalidRequest(f"url: {e}") from None
    webhook, secret = webhooks.create_webhook(rt, token_info["workspace_id"], url=body["url"], events=body["events"])
    return new_webhook_view(webhook, secret), 201


@api_call
def list_webhooks(token_info):
    return list_view([webhook_view(w) for w in webhooks.list_webhooks(token_info["workspace_id"])]), 200


@api_call
def get_webhook(id, token_info):
    return webhook_view(webhooks.get_webhook(token_info["workspace_id"], known_id(id, "wh", "webhook"))), 200


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
