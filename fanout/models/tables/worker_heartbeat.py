"""The worker heartbeats table: one row per queue worker process, kept fresh while it runs
(operations: fanout/models/heartbeat.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, IntegerField

from ..db import BaseModel


class WorkerHeartbeat(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    host = CharField(max_length=255)
    pid = IntegerField()
    started_at = DateTimeField()
    last_seen_at = DateTimeField(index=True)
