"""The dashboard sessions table: what a sign-in link starts, kept as the hash of the
cookie's token (operations: fanout/models/dashboard.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField

from ..db import BaseModel
from .workspace import Workspace


class DashboardSession(BaseModel):
    token_hash = CharField(primary_key=True, max_length=64)
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    created_at = DateTimeField()
    expires_at = DateTimeField(index=True)
