"""GET /v1/usage: the plan and how much of each of its caps is used."""
from __future__ import annotations

import datetime as _dt

from .. import runtime
from ..models import caps
from ..plans import get_plan
from ..times import isoformat
from . import api_call


def _cap(limit: int, used: int | None, resets_at: _dt.datetime | None = None) -> dict:
    return {"limit": limit, "used": used, "resets_at": isoformat(resets_at)}


@api_call
def get_usage(token_info):
    now = runtime.current().now()
    plan = get_plan(token_info["plan"])
    # The counter already counted this request (fanout.throttle); None while its store is down.
    rate = token_info.get("rate")
    requests = _cap(plan.requests_per_minute, None)
    if rate is not None:
        requests = _cap(rate.limit, rate.limit - rate.remaining, now + _dt.timedelta(seconds=rate.reset))
    held = caps.usage(token_info["workspace_id"], plan, now)
    return {
        "plan": plan.name,
        **{name: _cap(use.limit, use.used, use.resets_at) for name, use in held.items()},
        "requests": requests,
    }, 200
