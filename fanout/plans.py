"""The workspace plans (docs/decisions.md#plans)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    name: str
    posts_per_month: int
    accounts: int
    keys: int
    requests_per_minute: int


PLANS = {
    plan.name: plan
    for plan in (
        Plan("FREE", 30, 4, 1, 30),
        Plan("STARTER", 300, 15, 3, 120),
        Plan("PRO", 2000, 50, 10, 300),
        Plan("BUSINESS", 20000, 250, 50, 600),
    )
}
DEFAULT_PLAN = "FREE"
# Webhook registrations per workspace, the same on every plan: each one multiplies every
# event into a delivery, so the cap bounds what one workspace can ask of the delivery lane.
WEBHOOKS_PER_WORKSPACE = 10


def get_plan(name: str) -> Plan:
    return PLANS[name]
