"""GET /healthz and GET /readyz: no key, no rate limit (openapi.yaml, tag `monitoring`)."""
from __future__ import annotations

from .. import runtime
from ..ops.readiness import readiness


def get_liveness():
    return {"status": "ok"}, 200


async def get_readiness():
    # Async: the checks run on threads of their own, each bounded (fanout/ops/readiness.py).
    report, ready = await readiness(runtime.current())
    return report, 200 if ready else 503
