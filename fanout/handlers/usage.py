"""GET /v1/usage: the plan and how much of each of its caps is used."""
from __future__ import annotations

from .. import runtime
from ..models import caps
from ..plans import get_plan
from ..views import usage_view
from ..http.execution import api_call


@api_call
def get_usage(token_info):
    now = runtime.current().now()
    plan = get_plan(token_info["plan"])
    # The counter already counted this request (fanout.http.throttle): None while its store is down.
    return usage_view(plan, caps.usage(token_info["workspace_id"], plan, now), token_info.get("rate"), now), 200
