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
from .base import Job, Result, Step, Wait, failed, published


def sandbox_identity(taken: set[str], platform: str) -> tuple[str, str]:
    """The lowest free sandbox user number on this platform: (platform user id, username)."""
    n = 1
    while f"sandbox-{n}" in taken:
        n += 1
    return f"sandbox-{n}", f"sandbox_{platform}_{n}"


def publish(step: Step, job: Job) -> Result:
    """One step; the same job always comes to the same outcome."""
    platform = job.platform
    latency = step.settings.sandbox_latency
    if "container" not in job.state:
        if job.simulate_error:
            return failed(job.simulate_error, f"simulated {job.simulate_error} (sandbox simulate_error)")
        problem = step.platform.rules.caption_problem(job.caption)
        if problem:
            return failed(CAPTION, problem)
        problem = step.platform.rules.media_problem(list(job.media))
        if problem:
            return failed(MEDIA, problem)
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

