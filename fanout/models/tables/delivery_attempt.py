"""The delivery attempts table: every attempt at a delivery, as the deliveries list shows
it (written by fanout/models/deliveries.py)."""
from __future__ import annotations

from peewee import AutoField, BooleanField, CharField, DateTimeField, ForeignKeyField, IntegerField, TextField

from ..db import BaseModel
from .delivery import Delivery


class DeliveryAttempt(BaseModel):
    id = AutoField()
    delivery = ForeignKeyField(Delivery, backref="attempt_log", on_delete="CASCADE")
    number = IntegerField()
    attempted_at = DateTimeField()
    status_code = IntegerField(null=True)
    error = CharField(max_length=200, null=True)  # the failure class when there was no response
    error_message = TextField(null=True)  # the outbound client's words for it (a host at most, no secret)
    duration_ms = IntegerField()
    redelivery = BooleanField(default=False)  # asked for by POST .../redeliver

    class Meta:
        indexes = ((("delivery", "number"), True),)
