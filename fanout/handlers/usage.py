"""GET /v1/usage: the plan and how much of each of its caps is used."""
from __future__ import annotations

import datetime as _dt

from .. import runtime
from ..models.account import count_accounts
from ..models.api_key import count_active_keys
from ..models.usage import next_month_start, posts_this_month
from ..models.webhook import count_webhooks
from ..plans import WEBHOOKS_PER_WORKSPACE, get_plan
from ..times import isoformat
from . import api_call


def _cap(limit: int, used: int | None, resets_at: _dt.datetime | None = None) -> dict:
    return {"limit": limit, "used": used, "resets_at": isoformat(resets_at)}


@api_call
def get_usage(token_info):
    now = runtime.current().now()
    workspace_id = token_info["workspace_id"]
    plan = get_plan(token_info["plan"])
    # The counter already counted this request (fanout.throttle); None while its store is down.
    rate = token_info.get("rate")
    requests = _cap(plan.requests_per_minute, None)
    if rate is not None:
        requests = _cap(rate.limit, rate.limit - rate.remaining, now + _dt.timedelta(seconds=rate.reset))
    return {
        "plan": plan.name,
        "posts": _cap(plan.posts_per_month, posts_this_month(workspace_id, now), next_month_start(now)),
        "accounts": _cap(plan.accounts, count_accounts(workspace_id)),
        "api_keys": _cap(plan.keys, count_active_keys(workspace_id)),
        "webhooks": _cap(WEBHOOKS_PER_WORKSPACE, count_webhooks(workspace_id)),
        "requests": requests,
    }, 200
