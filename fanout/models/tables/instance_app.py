"""The apps this server registered on the servers users chose (a Mastodon instance), one a
(platform, server), reused by every account there (operations: fanout/models/instance_apps.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, TextField

from ..db import BaseModel


class InstanceApp(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    platform = CharField(max_length=20)
    server = CharField(max_length=253)  # the host name, lower case
    client_id = TextField()
    # Fernet (crypto.Keyring): the platform says to keep it as a password.
    client_secret = TextField()
    created_at = DateTimeField()

    class Meta:
        table_name = "instance_app"
        indexes = ((("platform", "server"), True),)
