"""The monthly post count table: per workspace, per UTC calendar month, sandbox and live
together (counted and read by fanout/models/caps.py)."""
from __future__ import annotations

from peewee import CharField, ForeignKeyField, IntegerField

from ..db import BaseModel
from .workspace import Workspace


class MonthlyUsage(BaseModel):
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    month = CharField(max_length=7)  # "2026-11"
    posts = IntegerField(default=0)

    class Meta:
        primary_key = False
        indexes = ((("workspace", "month"), True),)
