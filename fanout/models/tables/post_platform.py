"""The (post, platform) table: what the post list filtered by platform pages through
(written by fanout/models/upload.py, read by fanout/models/post.py `page_query`)."""
from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField

from ..db import BaseModel
from .post import Post
from .workspace import Workspace


class PostPlatform(BaseModel):
    """One row per (post, platform): keyset pages filtered by platform walk this index."""

    post = ForeignKeyField(Post, on_delete="CASCADE")
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    platform = CharField(max_length=20)
    created_at = DateTimeField()

    class Meta:
        primary_key = False
        indexes = (
            (("post", "platform"), True),
            (("workspace", "platform", "created_at", "post"), False),
        )
