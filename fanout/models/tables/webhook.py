"""The webhook registrations table (operations: fanout/models/webhook.py)."""
from __future__ import annotations

from peewee import BooleanField, CharField, DateTimeField, ForeignKeyField, TextField

from ..db import BaseModel
from .workspace import Workspace

# What a registration may subscribe to, in the order its `events` are shown
# (openapi.yaml WebhookEvent). `webhook.test` is no subscription: only the test ping sends it.
EVENTS = ("post.completed", "post.failed", "account.connected", "account.disconnected", "account.expired",
          "webhook.disabled")


class Webhook(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, backref="webhooks", on_delete="CASCADE")
    url = CharField(max_length=2048)
    events = CharField(max_length=200)  # comma-separated, in EVENTS order
    secret = TextField()  # Fernet token of the signing secret
    # The secret before the last rotation (a Fernet token), signing too until the time beside it.
    previous_secret = TextField(null=True)
    previous_secret_expires_at = DateTimeField(null=True)
    # Disabled: no deliveries are made for it (PATCH, or every attempt failing for 5 days).
    enabled = BooleanField(default=True)
    disabled_reason = TextField(null=True)
    # The first failed attempt since the last successful one; None while attempts succeed.
    failing_since = DateTimeField(null=True)
    created_at = DateTimeField()

    class Meta:
        indexes = ((("workspace", "created_at"), False),)

    @property
    def event_list(self) -> list[str]:
        return self.events.split(",")
