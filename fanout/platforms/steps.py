"""The scaffolding of an adapter's publish step (docs/architecture.md#platforms).

`Steps` is one step of publishing a job over the state the last step saved: a working
copy of it (`state`), handed back as JSON (`snapshot`), stored before a call that creates
something (`saved`), and the answer to a transient failure (`retry`). An adapter
subclasses it with its sequence in `next`; a `Stop` raised anywhere in the step ends it
with its result (fanout/platforms/base.py).
"""
from __future__ import annotations

import datetime as _dt
import json
from typing import Any

from .base import Job, Result, Retry, Step, Stop

# A transient failure is tried again after this (the engine stretches it and bounds retries).
RETRY_AFTER = _dt.timedelta(seconds=30)


class Steps:
    """One step of publishing `job`; subclasses write `next`, the sequence."""

    def __init__(self, step: Step, job: Job):
        self.step, self.job = step, job
        self.state: dict[str, Any] = json.loads(json.dumps(dict(job.state)))
        self.now = step.now()

    def run(self) -> Result:
        try:
            return self.next()
        except Stop as stop:
            return stop.result

    def next(self) -> Result:
        raise NotImplementedError

    def saved(self) -> None:
        self.step.save(self.snapshot())

    def snapshot(self) -> dict:
        """A copy of the state as the engine stores it (JSON)."""
        return json.loads(json.dumps(self.state))

    def retry(self, reason: str) -> Result:
        """A transient failure: the step again later, from the state as it stands."""
        return Retry(after=self.now + RETRY_AFTER, state=self.snapshot(), reason=reason)
