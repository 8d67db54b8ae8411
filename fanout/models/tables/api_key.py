"""The API keys table: lookup id + salted hash, never the key (operations: fanout/models/api_key.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField

from ...security import apikeys
from ..db import BaseModel
from .workspace import Workspace


class ApiKey(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, backref="keys", on_delete="CASCADE")
    mode = CharField(max_length=10)
    lookup = CharField(max_length=20, unique=True)
    salt = CharField(max_length=64)
    secret_hash = CharField(max_length=64)
    # What the dashboard's key list shows: the name given at creation, if any, and when the
    # key last authenticated a request (to the minute: fanout/models/api_key.py `mark_used`).
    name = CharField(max_length=100, null=True)
    created_at = DateTimeField()
    last_used_at = DateTimeField(null=True)
    revoked_at = DateTimeField(null=True)

    class Meta:
        indexes = ((("workspace", "revoked_at"), False),)

    @property
    def prefix(self) -> str:
        return apikeys.display_prefix(self.mode, self.lookup)
