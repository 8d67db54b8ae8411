"""Bearer authentication (`x-bearerInfoFunc` in openapi.yaml)."""
from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from .. import runtime
from ..models import db
from . import fixed_signature
from ..models.api_key import find_key
from ..plans import get_plan


def _lookup(token: str) -> dict | None:
    with db.connection_context():
        key = find_key(token)
    if key is None:
        return None
    plan = key.workspace_plan  # read on every request, never cached: a change applies at once
    return {
        "sub": key.workspace_id,
        "workspace_id": key.workspace_id,
        "key_id": key.id,
        "mode": key.mode,
        "plan": plan,
        # Counted in the same trip to the thread pool (fanout/throttle.py applies it).
        "rate": runtime.current().throttle.check(key.workspace_id, get_plan(plan).requests_per_minute),
    }


@fixed_signature
async def authenticate(token: str) -> dict | None:
    """Token info for a valid key, else None (Connexion answers 401).

    Connexion calls security functions on the event loop. On the embedded default the
    lookup runs right there: one indexed read and one UPSERT on local files take less
    than a trip to the thread pool and back (bench/README.md, bench_api.py). When the
    database or the limiter is across a network, a slow round trip must not stall every
    other request, so the lookup goes to the thread pool. Either way the request is
    counted against the workspace's requests per minute in the same call. No cache: a
    revoked key is refused on the very next request.
    """
    if runtime.current().settings.local_stores:
        return _lookup(token)
    return await run_in_threadpool(_lookup, token)
