"""The heartbeat of a queue worker process: a thread that keeps the process's row fresh.

Per process, not a queue task: a periodic task would run on whichever worker dequeued it,
and keep running while this process's consumer is wedged. The thread beats at once, then
every `FANOUT_HEARTBEAT_INTERVAL` seconds with the runtime's clock; a beat that fails (the
database is down) is logged and the next one tries again. Each beat also prunes heartbeats
of workers long gone. A clean stop deletes the row, so /readyz stops counting the worker
at once rather than when its heartbeat goes stale.
"""
from __future__ import annotations

import datetime as _dt
import logging
import os
import socket
import threading

from ..models import db
from ..models import heartbeat as rows

log = logging.getLogger(__name__)

# Rows not refreshed for this long (and at least ten staleness periods) are deleted.
PRUNE_AFTER = _dt.timedelta(hours=1)


class Heartbeat:
    def __init__(self, rt, interval: float | None = None):
        self.rt = rt
        self.interval = interval if interval is not None else rt.settings.heartbeat_interval
        self.worker_id = rt.new_id("wkr")
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.started_at = rt.now()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        now = self.rt.now()
        keep = max(PRUNE_AFTER, _dt.timedelta(seconds=10 * self.rt.settings.heartbeat_stale))
        with db.connection_context():
            rows.beat(self.worker_id, self.host, self.pid, self.started_at, now)
            rows.prune(now - keep)

    def start(self) -> "Heartbeat":
        self._thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            try:
                self.beat()
            except Exception as e:  # the database may be down for a while: keep trying
                log.error("worker heartbeat failed (next try in %g s): %s", self.interval, e)
            if self._stop.wait(self.interval):
                return

    def stop(self) -> None:
        """Stop beating and delete this worker's row."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            with db.connection_context():
                rows.forget(self.worker_id)
        except Exception as e:
            log.warning("could not delete this worker's heartbeat (it goes stale by itself): %s", e)
