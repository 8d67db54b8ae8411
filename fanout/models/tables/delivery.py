"""The deliveries table: one event to one webhook registration, and its schedule
(operations: fanout/models/deliveries.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField

from ..db import BaseModel
from .event import Event
from .webhook import Webhook


class Delivery(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    event = ForeignKeyField(Event, on_delete="CASCADE")
    webhook = ForeignKeyField(Webhook, backref="deliveries", on_delete="CASCADE")
    status = CharField(max_length=12, default="pending")  # pending | succeeded | failed
    attempts = IntegerField(default=0)
    next_attempt_at = DateTimeField(null=True)
    # While one worker sends an attempt, others leave the delivery alone until this passes.
    claimed_until = DateTimeField(null=True)
    # A redelivery asked for (POST .../redeliver) and not sent yet, whatever the status;
    # `redeliveries` counts those sent, so the schedule counts only the automatic attempts.
    redeliver_at = DateTimeField(null=True)
    redeliveries = IntegerField(default=0)
    created_at = DateTimeField()

    class Meta:
        indexes = (
            (("event", "webhook"), True),
            (("webhook", "created_at", "id"), False),
            (("status", "next_attempt_at"), False),
            (("redeliver_at",), False),
        )
