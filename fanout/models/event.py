"""Events (one per resolved target, or about an account) and their deliveries to webhook registrations."""
from __future__ import annotations

import datetime as _dt
import json
from typing import Callable

from peewee import AutoField, CharField, DateTimeField, ForeignKeyField, IntegerField, TextField

from .db import BaseModel
from .post import Post, Target
from .tables.webhook import Webhook
from .workspace import Workspace


class Event(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    # The subject: a target (post.completed, post.failed) or an account (account.expired).
    post = ForeignKeyField(Post, on_delete="CASCADE", null=True)
    target = ForeignKeyField(Target, on_delete="CASCADE", unique=True, null=True)
    # No foreign key: the event outlives a disconnected account, as its deliveries do.
    account_id = CharField(max_length=40, null=True)
    type = CharField(max_length=30)
    # The exact bytes every attempt sends, so every retry carries the same signature input.
    body = TextField()
    created_at = DateTimeField()


class Delivery(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    event = ForeignKeyField(Event, on_delete="CASCADE")
    webhook = ForeignKeyField(Webhook, backref="deliveries", on_delete="CASCADE")
    status = CharField(max_length=12, default="pending")  # pending | succeeded | failed
    attempts = IntegerField(default=0)
    next_attempt_at = DateTimeField(null=True)
    # While one worker sends an attempt, others leave the delivery alone until this passes.
    claimed_until = DateTimeField(null=True)
    created_at = DateTimeField()

    class Meta:
        indexes = (
            (("event", "webhook"), True),
            (("webhook", "created_at", "id"), False),
            (("status", "next_attempt_at"), False),
        )


class DeliveryAttempt(BaseModel):
    id = AutoField()
    delivery = ForeignKeyField(Delivery, backref="attempt_log", on_delete="CASCADE")
    number = IntegerField()
    attempted_at = DateTimeField()
    status_code = IntegerField(null=True)
    error = CharField(max_length=200, null=True)  # the failure class when there was no response
    duration_ms = IntegerField()

    class Meta:
        indexes = ((("delivery", "number"), True),)


def record_event(rt, workspace_id: str, kind: str, payload: Callable[[str], dict], now: _dt.datetime, *,
                 post: str | None = None, target: str | None = None, account_id: str | None = None) -> list[str]:
    """Write the event and one pending delivery per registration subscribed to `kind`; call
    inside the transaction that made it happen. Returns the delivery ids, to send after commit."""
    event_id = rt.new_id("evt")
    body = json.dumps(payload(event_id), separators=(",", ":"))
    Event.create(id=event_id, workspace=workspace_id, post=post, target=target, account_id=account_id,
                 type=kind, body=body, created_at=now)
    ids = []
    for webhook in Webhook.select().where(Webhook.workspace == workspace_id):
        if kind in webhook.event_list:
            ids.append(Delivery.create(id=rt.new_id("dlv"), event=event_id, webhook=webhook,
                                       next_attempt_at=now, created_at=now).id)
    return ids
