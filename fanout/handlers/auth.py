"""Bearer authentication (`x-bearerInfoFunc` in openapi.yaml)."""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from ..models import db
from ..models.api_key import find_key


def _lookup(token: str) -> dict | None:
    with db.connection_context():
        key = find_key(token)
    if key is None:
        return None
    return {
        "sub": key.workspace_id,
        "workspace_id": key.workspace_id,
        "key_id": key.id,
        "mode": key.mode,
        # Read on every request, never cached: a plan change applies to the next request.
        "plan": key.workspace.plan,
    }


async def authenticate(token: str) -> dict | None:
    """Token info for a valid key, else None (Connexion answers 401).

    Connexion calls security functions on the event loop, so the database lookup runs
    in the thread pool. No cache: a revoked key is refused on the very next request.
    """
    return await run_in_threadpool(_lookup, token)
