"""Bearer authentication (`x-bearerInfoFunc` in openapi.yaml)."""
from __future__ import annotations

from .. import runtime
from ..models import db
from ..models.api_key import find_key, mark_used
from ..plans import get_plan
from ..http.execution import fixed_signature, on_the_stores


def _lookup(token: str) -> dict | None:
    rt = runtime.current()
    with db.connection_context():
        key = find_key(token)
        if key is not None:
            mark_used(key, rt.now())
    if key is None:
        return None
    plan = key.workspace_plan  # read on every request, never cached: a change applies at once
    return {
        "sub": key.workspace_id,
        "workspace_id": key.workspace_id,
        "key_id": key.id,
        "mode": key.mode,
        "plan": plan,
        # Counted in the same call as the lookup (fanout/http/throttle.py applies it).
        "rate": rt.throttle.check(key.workspace_id, get_plan(plan).requests_per_minute),
    }


@fixed_signature
async def authenticate(token: str) -> dict | None:
    """Token info for a valid key, else None (Connexion answers 401).

    Connexion calls security functions on the event loop; the lookup runs where
    `on_the_stores` puts work on the stores, and the request is counted against the
    workspace's requests per minute in the same call. No cache: a revoked key is refused
    on the very next request.
    """
    return await on_the_stores(_lookup, token)
