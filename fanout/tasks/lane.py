"""The delivery lane: webhook attempts run on threads of their own, shared fairly.

A webhook endpoint may take the whole 10-second deadline to answer, so attempts never run
on the queue's worker threads: those publish, and a `deliver` task only hands its delivery
id to the lane and returns. The lane holds a fixed number of slots; one workspace may hold
at most `per_workspace` of them and one registration `per_registration`, and waiting
deliveries are taken round-robin by workspace. A workspace whose endpoints hang therefore
slows only its own deliveries (tests/test_tenant_isolation.py).

What waits in a lane is only a wake-up call: the database records every pending delivery,
and the sweeper hands due ones to the lane again, so a dropped id (a full backlog, a killed
worker) is delayed, never lost. A duplicate id is ignored while the first is waiting.
"""
from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass
from typing import Callable, Optional

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Owner:
    """Whose delivery it is: the slots a delivery takes are counted against both."""

    workspace_id: str
    webhook_id: str


class Inline:
    """Sends in the caller's thread, at once: for a queue that tests drive step by step."""

    def __init__(self, send: Callable[[str], None]):
        self.send = send

    def submit(self, delivery_id: str) -> None:
        self.send(delivery_id)


class Lane:
    """Delivery attempts on `slots` threads, at most a fair share of them per workspace."""

    def __init__(
        self,
        send: Callable[[str], None],
        owner_of: Callable[[str], Optional[Owner]],
        *,
        slots: int = 16,
        per_workspace: int | None = None,
        per_registration: int | None = None,
        backlog: int = 1000,
    ):
        self.send = send
        self.owner_of = owner_of
        self.slots = slots
        # A quarter of the slots for one workspace and half of that for one endpoint: four
        # workspaces with hanging endpoints still leave nothing free, but one cannot.
        self.per_workspace = per_workspace or max(1, slots // 4)
        self.per_registration = per_registration or max(1, self.per_workspace // 2)
        self.backlog = backlog
        self._cond = threading.Condition()
        self._waiting: OrderedDict[str, deque[tuple[str, Owner]]] = OrderedDict()
        self._queued: set[str] = set()
        self._busy_workspaces: Counter[str] = Counter()
        self._busy_webhooks: Counter[str] = Counter()
        self._running = 0
        self._stopping = False
        self._threads: list[threading.Thread] = []

    def start(self) -> "Lane":
        for n in range(self.slots):
            thread = threading.Thread(target=self._work, name=f"delivery-{n + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def submit(self, delivery_id: str) -> None:
        with self._cond:
            if self._stopping or delivery_id in self._queued:
                return  # the sweeper hands back ids already waiting: no query for those
        owner = self.owner_of(delivery_id)
        if owner is None:
            return  # already final, or its registration was deleted
        with self._cond:
            if self._stopping or delivery_id in self._queued:
                return
            waiting = self._waiting.setdefault(owner.workspace_id, deque())
            if len(waiting) >= self.backlog:
                # Stays pending in the database; the sweeper hands it over again.
                log.warning("delivery backlog of workspace %s is full; %s waits for the sweeper",
                            owner.workspace_id, delivery_id)
                return
            waiting.append((delivery_id, owner))
            self._queued.add(delivery_id)
            self._cond.notify()

    def _take(self) -> tuple[str, Owner] | None:
        """The next delivery whose workspace and registration have a slot to spare."""
        for workspace_id, waiting in self._waiting.items():
            if self._busy_workspaces[workspace_id] >= self.per_workspace:
                continue
            for index, (delivery_id, owner) in enumerate(waiting):
                if self._busy_webhooks[owner.webhook_id] < self.per_registration:
                    del waiting[index]
                    # Round-robin: this workspace goes to the back of the line.
                    self._waiting.move_to_end(workspace_id)
                    if not waiting:
                        del self._waiting[workspace_id]
                    return delivery_id, owner
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and (item := self._take()) is None:
                    self._cond.wait()
                if self._stopping:
                    return
                delivery_id, owner = item
                self._queued.discard(delivery_id)
                self._busy_workspaces[owner.workspace_id] += 1
                self._busy_webhooks[owner.webhook_id] += 1
                self._running += 1
            try:
                self.send(delivery_id)
            except Exception:
                log.exception("delivery %s attempt failed unexpectedly", delivery_id)
            finally:
                with self._cond:
                    self._release(owner)
                    self._running -= 1
                    # A freed slot may suit a delivery other threads skipped.
                    self._cond.notify_all()

    def _release(self, owner: Owner) -> None:
        for busy, key in ((self._busy_workspaces, owner.workspace_id), (self._busy_webhooks, owner.webhook_id)):
            busy[key] -= 1
            if not busy[key]:
                del busy[key]  # no entry kept for every workspace ever seen

    def stop(self, timeout: float = 15) -> bool:
        """Take nothing new and wait for running attempts; True if all finished in time.

        Waiting ids are dropped: they are pending in the database for the next worker.
        """
        with self._cond:
            self._stopping = True
            self._waiting.clear()
            self._queued.clear()
            self._cond.notify_all()
            finished = self._cond.wait_for(lambda: self._running == 0, timeout)
        return finished
