"""The Idempotency-Key table: one claim per (workspace, key), and the answer it stands
for (operations: fanout/models/idempotency.py)."""
from __future__ import annotations

from peewee import AutoField, CharField, DateTimeField, ForeignKeyField, IntegerField, TextField

from ..db import BaseModel
from .workspace import Workspace


class IdempotencyRecord(BaseModel):
    id = AutoField()
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    key = CharField(max_length=255)
    fingerprint = CharField(max_length=64)
    state = CharField(max_length=10)  # running | done
    # Random per claim: how a request tells the row it inserted from one that was there.
    claim_token = CharField(max_length=32)
    response_status = IntegerField(null=True)
    response_body = TextField(null=True)
    created_at = DateTimeField(index=True)
    claimed_at = DateTimeField()

    class Meta:
        indexes = ((("workspace", "key"), True),)
