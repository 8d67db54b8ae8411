"""The connect sessions table: the single-use, 30-minute token behind a connect URL
(operations: fanout/models/connect_session.py)."""
from __future__ import annotations

from peewee import BooleanField, CharField, DateTimeField, ForeignKeyField, IntegerField, TextField

from ..db import BaseModel
from .workspace import Workspace


class ConnectSession(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    # sha256 of the token: the token itself travels only in the URL.
    token_hash = CharField(max_length=64, unique=True)
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    platform = CharField(max_length=20)
    sandbox = BooleanField()
    redirect_url = CharField(max_length=2048, null=True)
    created_at = DateTimeField()
    expires_at = DateTimeField(index=True)
    used_at = DateTimeField(null=True)
    # Live flows: sha256 of the OAuth `state` sent to the platform (the callback finds the
    # session by it) and the encrypted PKCE verifier, for platforms that use one.
    oauth_state_hash = CharField(max_length=64, null=True, unique=True)
    oauth_verifier = TextField(null=True)
    # A server-style flow: the server the user named (a Mastodon instance's host name).
    server = CharField(max_length=253, null=True)
    # Credentials flows: the sign-ins tried through this session's form (SIGN_IN_TRIES at most:
    # fanout/models/connect_session.py).
    sign_in_attempts = IntegerField(default=0)
    # A consent that granted several accounts: sha256 of the token the picker form posts
    # back, and the accounts offered, encrypted (they hold tokens), until one is picked.
    pick_hash = CharField(max_length=64, null=True, unique=True)
    choices = TextField(null=True)
