"""The targets table: one post to one account, and where its publishing stands (the
state machine: fanout/models/lifecycle.py)."""
from __future__ import annotations

import json

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, TextField

from ..db import BaseModel
from .post import Post


class Target(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    post = ForeignKeyField(Post, backref="targets", on_delete="CASCADE")
    # No foreign key: a disconnected account's targets stay readable.
    account_id = CharField(max_length=40, index=True)
    platform = CharField(max_length=20)
    position = IntegerField()
    status = CharField(max_length=20, default="pending")
    external_url = TextField(null=True)
    published_at = DateTimeField(null=True)
    error_code = CharField(max_length=40, null=True)
    error_message = TextField(null=True)
    # Why the first comment was not posted, on a published target (openapi.yaml, `Target`).
    first_comment_error = TextField(null=True)
    # What the platform did differently from what was asked, on a published target (JSON
    # list of words; openapi.yaml `Target.warnings`); null for none.
    warnings = TextField(null=True)
    # A thread's parts that are out, as the last step said (JSON, fanout/platforms/base.py
    # `PublishedParts`); null before any step said, and on a target without a thread.
    published_parts = TextField(null=True)
    # Each claim by a worker bumps `attempts`; a finish must name the attempt it belongs to,
    # so a worker whose lease was taken back can no longer settle the target.
    attempts = IntegerField(default=0)
    lease_expires_at = DateTimeField(null=True)
    # What the platform adapter saved between steps (JSON: container ids, upload ids...) and
    # when its next step is due, for a `processing` target nobody holds (fanout/platforms/base.py).
    state = TextField(null=True)
    next_check_at = DateTimeField(null=True)
    # The engine's own count, never in `state`, which is the adapter's alone: the transient
    # failures in a row (progress, a `Wait`, starts it again; past MAX_RETRIES the target
    # fails) and the type of the last unexpected error, whose traceback is logged once
    # (fanout/tasks/publishing.py).
    retries = IntegerField(default=0)
    crash_kind = TextField(null=True)
    updated_at = DateTimeField()
    # When a `pending` target may be claimed: its post's scheduled time, or its creation
    # (fanout/models/lifecycle.py). `wake_at`: the due time a wake-up task was enqueued for,
    # so the sweeper enqueues one for each target falling due soon, once
    # (fanout/tasks/publishing.py).
    due_at = DateTimeField(null=True)
    wake_at = DateTimeField(null=True)

    class Meta:
        indexes = (
            (("post", "position"), True),
            (("status", "updated_at"), False),
            (("status", "next_check_at"), False),
            (("status", "due_at"), False),
        )

    @property
    def saved_state(self) -> dict:
        return json.loads(self.state) if self.state else {}

    @property
    def warning_list(self) -> list[str]:
        return json.loads(self.warnings) if self.warnings else []

    @property
    def parts_out(self) -> list:
        """The permalinks of the thread's parts that are out, in order ([] before any is)."""
        return json.loads(self.published_parts) if self.published_parts else []
