"""Workspaces: the tenant everything belongs to, and its plan."""
from __future__ import annotations

from peewee import CharField, DateTimeField

from ..plans import DEFAULT_PLAN, PLANS, Plan
from ..problems import InvalidRequest, NotFound
from .db import BaseModel, Compiled, locked, write_transaction


class Workspace(BaseModel):
    id = CharField(primary_key=True, max_length=40)
    name = CharField(max_length=200)
    plan = CharField(max_length=20, default=DEFAULT_PLAN)
    created_at = DateTimeField()

    @property
    def limits(self) -> Plan:
        return PLANS[self.plan]


def create_workspace(rt, name: str, plan: str = DEFAULT_PLAN) -> Workspace:
    if plan not in PLANS:
        raise InvalidRequest(f"unknown plan {plan!r}; one of {', '.join(PLANS)}")
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidRequest("a workspace name is 1 to 200 characters")
    with write_transaction():
        return Workspace.create(id=rt.new_id("ws"), name=name, plan=plan, created_at=rt.now())


def set_plan(workspace_id: str, plan: str) -> Workspace:
    if plan not in PLANS:
        raise InvalidRequest(f"unknown plan {plan!r}; one of {', '.join(PLANS)}")
    with write_transaction():
        if not Workspace.update(plan=plan).where(Workspace.id == workspace_id).execute():
            raise NotFound(f"no workspace {workspace_id}")
    return Workspace.get_by_id(workspace_id)


_LOCK = Compiled(Workspace, lambda id: locked(Workspace.select().where(Workspace.id == id).limit(1)))


def lock_workspace(workspace_id: str) -> Workspace:
    """The workspace row, locked until the transaction ends (caps are checked under it)."""
    workspace = _LOCK.first(workspace_id)
    if workspace is None:
        raise NotFound(f"no workspace {workspace_id}")
    return workspace
