"""The workspaces table: the tenant everything belongs to, and its plan (operations:
fanout/models/workspace.py)."""
from __future__ import annotations

from peewee import CharField, DateTimeField

from ...plans import DEFAULT_PLAN, PLANS, Plan
from ..db import BaseModel


class Workspace(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    name = CharField(max_length=200)
    plan = CharField(max_length=20, default=DEFAULT_PLAN)
    created_at = DateTimeField()

    @property
    def limits(self) -> Plan:
        return PLANS[self.plan]
