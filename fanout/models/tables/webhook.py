"""The webhook registrations table (operations: fanout/models/webhook.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField, TextField

from ..db import BaseModel
from ..workspace import Workspace

EVENTS = ("post.completed", "post.failed", "account.expired")


class Webhook(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, backref="webhooks", on_delete="CASCADE")
    url = CharField(max_length=2048)
    events = CharField(max_length=200)  # comma-separated, in EVENTS order
    secret = TextField()  # Fernet token of the signing secret
    created_at = DateTimeField()

    class Meta:
        indexes = ((("workspace", "created_at"), False),)

    @property
    def event_list(self) -> list[str]:
        return self.events.split(",")
