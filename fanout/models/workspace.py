"""Workspaces, the tenant everything belongs to: made, given a plan, and locked while a
cap is checked (fanout/models/caps.py)."""
from __future__ import annotations

from ..plans import DEFAULT_PLAN, PLANS
from ..problems import InvalidRequest, NotFound
from .db import Compiled, locked, write_transaction
from .tables.workspace import Workspace


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
