"""The sandbox platform: an adapter on the same seam as the live ones that never calls a
network and gives deterministic results (docs/decisions.md#posts-and-targets).

Before its first step a sandbox target meets `check` (simulate_error, then every check of
its content as a live target meets it: the caps of its caption, thread parts and first
comment, its options, its media rules: fanout/content.py), made by the engine and a
preflight alike (fanout/before_platform.py). It publishes in two steps, as container
platforms do, so sandbox posts run through the engine's machinery (saved state, parking,
reconciling after a lost worker):
1. "create a container", whose id is derived from the target id;
2. "publish" it, each thread part after the first as a reply, then the first comment,
   each saved before its (simulated) call: the external URL is the target's page on this
   server, which shows the thread and the comment.
`FANOUT_SANDBOX_LATENCY` is how long each simulated call is in flight.
"""
from __future__ import annotations

from ..content import media_problem, target_problems
from ..target_errors import MEDIA
from .base import Done, Job, Outcome, Result, Step, Wait, published
from .rules import PlatformRules


def sandbox_identity(taken: set[str], platform: str) -> tuple[str, str]:
    """The lowest free sandbox user number on this platform: (platform user id, username)."""
    n = 1
    while f"sandbox-{n}" in taken:
        n += 1
    return f"sandbox-{n}", f"sandbox_{platform}_{n}"


def check(rules: PlatformRules, content, simulate_error: str | None) -> Outcome | None:
    """The failure a sandbox target meets before its (simulated) platform, or None: its
    simulated error, else the first problem of its content (a Content of fanout/content.py,
    or a Job, which carries the same fields) by the platform's `rules`: the caps of its
    caption, thread parts and first comment, its options, its media."""
    if simulate_error:
        return Outcome(error_code=simulate_error, error_message=f"simulated {simulate_error} (sandbox simulate_error)")
    problems = target_problems(rules, content)
    if problems:
        return Outcome(error_code=problems[0].code, error_message=problems[0].message)
    problem = media_problem(rules, content)
    if problem:
        return Outcome(error_code=MEDIA, error_message=problem)
    return None


def publish(step: Step, job: Job) -> Result:
    """One step; the same job always comes to the same outcome."""
    platform = job.platform
    latency = step.settings.sandbox_latency
    if "container" not in job.state:
        # Saved before the (simulated) creating call, as a live adapter must; the container
        # id is derived, so a step interrupted here simply creates "it" again.
        container = f"sbx_{job.target_id}"
        step.save({"creating": container})
        if latency:
            step.sleep(latency)
        return Wait(until=step.now(), state={"container": container})
    state = {**job.state, "publishing": True}
    # The parts in order, then the comment: each saved before its call, none made twice.
    for part in range(state.get("parts", 0), len(job.parts)):
        step.save({**state, "part": part})
        if latency:
            step.sleep(latency)
        state["parts"] = part + 1
    if job.first_comment is not None and not state.get("comment"):
        step.save({**state, "commenting": True})
        if latency:
            step.sleep(latency)
        state["comment"] = True
    step.save(state)
    url = f"{step.settings.base_url}/sandbox/{platform}/{job.target_id}"
    if not job.thread:
        return published(url)
    # Each further part has its anchor on the target's page (part-2 is thread[0]).
    parts = (url, *(f"{url}#part-{n}" for n in range(2, len(job.parts) + 1)))
    return Done(Outcome(external_url=url, published_parts=parts))

