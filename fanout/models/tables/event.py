"""The events table: the workspace's log, each event with the exact bytes its deliveries
send (recorded by fanout/models/event.py, read by fanout/models/event_log.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField, TextField

from ..db import BaseModel
from .post import Post
from .target import Target
from .workspace import Workspace


class Event(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    # The subject: a target (post.*), an account (account.*) or neither (webhook.*).
    post = ForeignKeyField(Post, on_delete="CASCADE", null=True)
    target = ForeignKeyField(Target, on_delete="CASCADE", unique=True, null=True)
    # The account of an account.* event, or of a post.* event's target (the `account_id`
    # filter of the log takes both). No foreign key: the event outlives a disconnected
    # account, as its deliveries do.
    account_id = CharField(max_length=40, null=True)
    type = CharField(max_length=30)
    # The exact bytes every attempt sends, so every retry carries the same signature input.
    body = TextField()
    # When it was recorded: the log's order (strictly increasing within a workspace).
    created_at = DateTimeField()

    class Meta:
        indexes = (
            (("workspace", "created_at", "id"), False),
            (("workspace", "type", "created_at", "id"), False),
            (("workspace", "account_id", "created_at", "id"), False),
            (("post", "created_at", "id"), False),  # a post's events, in order
            (("created_at",), False),  # pruning, across workspaces
        )
