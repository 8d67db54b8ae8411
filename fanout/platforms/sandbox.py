"""The sandbox platform: an adapter on the same seam as the live ones that never calls a
network and gives deterministic results (docs/decisions.md#posts-and-targets).

It publishes in two steps, as container platforms do, so sandbox posts run through the
engine's machinery (saved state, parking, reconciling after a lost worker):
1. check the post (simulate_error, caption cap, media rules) and "create a container",
   whose id is derived from the target id;
2. "publish" it: the external URL is the target's page on this server.
`FANOUT_SANDBOX_LATENCY` is how long each simulated call is in flight.
"""
from __future__ import annotations

from ..target_errors import CAPTION, MEDIA
from .base import Job, Outcome, Result, Step, Wait, failed, published
from .rules import PlatformRules


def sandbox_identity(taken: set[str], platform: str) -> tuple[str, str]:
    """The lowest free sandbox user number on this platform: (platform user id, username)."""
    n = 1
    while f"sandbox-{n}" in taken:
        n += 1
    return f"sandbox-{n}", f"sandbox_{platform}_{n}"


def check(rules: PlatformRules, caption: str, media: list[dict], simulate_error: str | None) -> Outcome | None:
    """The failure a sandbox target meets before its (simulated) platform, or None: its
    simulated error, else its caption or media over the platform's `rules`. A preflight
    (fanout/preflight.py) answers the same."""
    if simulate_error:
        return Outcome(error_code=simulate_error, error_message=f"simulated {simulate_error} (sandbox simulate_error)")
    problem = rules.caption_problem(caption)
    if problem:
        return Outcome(error_code=CAPTION, error_message=problem)
    problem = rules.media_problem(media)
    if problem:
        return Outcome(error_code=MEDIA, error_message=problem)
    return None


def publish(step: Step, job: Job) -> Result:
    """One step; the same job always comes to the same outcome."""
    platform = job.platform
    latency = step.settings.sandbox_latency
    if "container" not in job.state:
        refusal = check(step.platform.rules, job.caption, list(job.media), job.simulate_error)
        if refusal is not None:
            return failed(refusal.error_code, refusal.error_message)
        # Saved before the (simulated) creating call, as a live adapter must; the container
        # id is derived, so a step interrupted here simply creates "it" again.
        container = f"sbx_{job.target_id}"
        step.save({"creating": container})
        if latency:
            step.sleep(latency)
        return Wait(until=step.now(), state={"container": container})
    step.save({**job.state, "publishing": True})
    if latency:
        step.sleep(latency)
    return published(f"{step.settings.base_url}/sandbox/{platform}/{job.target_id}")

