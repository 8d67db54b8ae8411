"""`GET /dashboard`: the plan, each of its caps as `GET /v1/usage` counts it, and the last posts."""
from __future__ import annotations

from starlette.responses import Response

from ..models import caps
from ..models.caps import Use
from ..models.post import list_posts, targets_of
from ..plans import get_plan
from ..views import post_summary
from .web import Visit, page

LAST_POSTS = 5


@page
def overview(visit: Visit) -> Response:
    plan = get_plan(visit.workspace.plan)
    usage = caps.usage(visit.workspace_id, plan, visit.rt.now())
    # Counted by the limiter, which counts nothing for this look; None while its store is down.
    usage["requests"] = Use(plan.requests_per_minute, visit.rt.throttle.count(visit.workspace_id))
    posts, _ = list_posts(visit.workspace_id, limit=LAST_POSTS)
    targets = targets_of([p.id for p in posts])
    return visit.page("overview.html", "overview", plan=plan, usage=usage,
                      posts=[post_summary(p, targets[p.id]) for p in posts])


ROUTES = [("/dashboard", overview, ("GET",))]
