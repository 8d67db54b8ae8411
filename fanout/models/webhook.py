"""Webhook registrations: where events go, and the secret that signs them."""
from __future__ import annotations

import base64

from ..problems import NotFound
from . import caps
from .db import write_transaction
from .tables.webhook import EVENTS, Webhook
from .workspace import lock_workspace


def new_secret(randbytes) -> str:
    """`whsec_` + base64 of 32 random bytes (the Standard Webhooks form)."""
    return "whsec_" + base64.b64encode(randbytes(32)).decode()


def create_webhook(rt, workspace_id: str, *, url: str, events: list[str]) -> tuple[Webhook, str]:
    """The registration and its secret in clear, which only this call ever returns.

    The cap is counted under the workspace's row lock, so concurrent registrations cannot
    pass it together.
    """
    secret = new_secret(rt.randbytes)
    with write_transaction():
        caps.check_webhooks(lock_workspace(workspace_id))
        webhook = Webhook.create(
            id=rt.new_id("wh"),
            workspace=workspace_id,
            url=url,
            events=",".join(e for e in EVENTS if e in events),
            secret=rt.keyring.encrypt(secret),
            created_at=rt.now(),
        )
    return webhook, secret


def list_webhooks(workspace_id: str) -> list[Webhook]:
    return list(
        Webhook.select().where(Webhook.workspace == workspace_id).order_by(Webhook.created_at.desc(), Webhook.id.desc())
    )


def get_webhook(workspace_id: str, webhook_id: str) -> Webhook:
    webhook = Webhook.get_or_none((Webhook.id == webhook_id) & (Webhook.workspace == workspace_id))
    if webhook is None:
        raise NotFound("no such webhook in this workspace")
    return webhook


def delete_webhook(workspace_id: str, webhook_id: str) -> None:
    with write_transaction():
        deleted = Webhook.delete().where((Webhook.id == webhook_id) & (Webhook.workspace == workspace_id)).execute()
    if not deleted:
        raise NotFound("no such webhook in this workspace")
