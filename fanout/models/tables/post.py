"""The posts table: what a client sent, and the status its targets give it (derived by
fanout/models/post.py `derive_status`)."""
from __future__ import annotations

import json

from peewee import BooleanField, CharField, DateTimeField, ForeignKeyField, TextField

from ...content import Content, content_for, parse_overrides
from ..db import BaseModel
from .workspace import Workspace


class Post(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    workspace = ForeignKeyField(Workspace, backref="posts", on_delete="CASCADE")
    sandbox = BooleanField()
    caption = TextField()
    media = TextField()  # JSON list of {"url", "type"}
    simulate_error = CharField(max_length=40, null=True)
    # Per-platform content (JSON by platform, fanout/content.py), null when there is none.
    overrides = TextField(null=True)
    # Stored (re-derived whenever a target moves) so the status filter is an indexed query.
    status = CharField(max_length=20)
    created_at = DateTimeField()
    # When it publishes (docs/decisions.md#posts-in-time); null: at once.
    scheduled_at = DateTimeField(null=True)

    class Meta:
        indexes = (
            (("workspace", "created_at", "id"), False),
            (("workspace", "status", "created_at", "id"), False),
        )

    @property
    def media_list(self) -> list[dict]:
        return json.loads(self.media)

    def content_for(self, platform: str) -> Content:
        """What this post's targets on `platform` publish (fanout/content.py)."""
        return content_for(self.caption, self.media_list, parse_overrides(self.overrides), platform)
