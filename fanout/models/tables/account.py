"""The connected social accounts table (operations: fanout/models/account.py)."""
from __future__ import annotations

from peewee import BooleanField, CharField, DateTimeField, ForeignKeyField, TextField

from ..db import BaseModel
from .workspace import Workspace

STATUSES = ("active", "expired", "revoked")


class Account(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, backref="accounts", on_delete="CASCADE")
    platform = CharField(max_length=20)
    sandbox = BooleanField()
    username = CharField(max_length=200)
    platform_user_id = CharField(max_length=200)
    status = CharField(max_length=20, default="active")
    # Fernet tokens (crypto.Keyring); never the clear value.
    access_token = TextField(null=True)
    refresh_token = TextField(null=True)
    token_expires_at = DateTimeField(null=True)
    # When the periodic task refreshes the token (jittered), and until when one worker holds
    # the refresh (fanout/models/tokens.py).
    refresh_at = DateTimeField(null=True)
    refresh_claimed_until = DateTimeField(null=True)
    connected_at = DateTimeField()
    created_at = DateTimeField()
    # JSON: what the platform said of the account that the rules read (Grant.details).
    details = TextField(null=True)

    class Meta:
        indexes = (
            (("workspace", "platform", "sandbox", "platform_user_id"), True),
            (("workspace", "created_at"), False),
            (("status", "refresh_at"), False),
        )
