"""`fanout serve` and its queue worker: the worker is restarted while serve runs, and
never outlives it; nor do the server processes of `fanout api --processes N`.

Serve side: `WorkerProcess` restarts a worker that died, waiting longer each time while it
keeps dying soon after starting (`Backoff`), and starts none once stopping has begun.

Worker side: `stop_with_parent` watches for serve to vanish (a SIGKILL, a crash) and then
stops the worker as a service manager's SIGTERM would. It polls `os.getppid()` rather
than using Linux's PR_SET_PDEATHSIG because the death signal follows the *thread* that
started the child, not the process (serve restarts its worker from a watcher thread, so
that thread ending would stop a healthy worker), it is Linux-only, and a worker started
just as serve died would need the polling check anyway. Two looks a second cost nothing.

Server process side: uvicorn starts the processes of `--processes N` with multiprocessing
and never tells them when it is gone (each holds both ends of its health pipe, so no EOF
comes), so `stop_with_spawning_parent` watches the same way.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

# Workers stop gracefully on SIGTERM: running tasks get up to 30 s (README "Running it").
WORKER_GRACE = 30.0


@dataclass
class Backoff:
    """Seconds to wait before restarting a process that died: `first`, doubling up to
    `longest` while it keeps dying within `healthy` seconds of starting."""

    first: float = 1.0
    longest: float = 60.0
    healthy: float = 30.0
    _current: float = field(default=0.0, init=False)

    def after(self, lived: float) -> float:
        """The delay before the next start, given how long the last run lasted."""
        if lived >= self.healthy or not self._current:
            self._current = self.first
        else:
            self._current = min(self._current * 2, self.longest)
        return self._current


class WorkerProcess:
    """The queue worker `fanout serve` runs beside the API, restarted if it dies."""

    def __init__(self, argv: list[str], backoff: Backoff | None = None):
        self.argv = argv
        self.backoff = backoff or Backoff()
        self.proc: subprocess.Popen | None = None
        self._started_at = 0.0
        self._stopping = threading.Event()
        # Held while starting a process and while stop() begins, so no start slips past it.
        self._lock = threading.Lock()
        self._watcher: threading.Thread | None = None

    def start(self) -> None:
        self._spawn()
        self._watcher = threading.Thread(target=self._watch, daemon=True, name="worker-watch")
        self._watcher.start()

    def _spawn(self) -> bool:
        with self._lock:
            if self._stopping.is_set():
                return False
            self.proc = subprocess.Popen(self.argv)
            self._started_at = time.monotonic()
        log.info("started the queue worker (pid %d)", self.proc.pid)
        return True

    def _watch(self) -> None:
        while True:
            code = self.proc.wait()
            if self._stopping.is_set():
                return
            delay = self.backoff.after(time.monotonic() - self._started_at)
            log.error("queue worker exited with %s; restarting it in %g s", code, delay)
            if self._stopping.wait(delay) or not self._spawn():
                return

    def stop(self, timeout: float = WORKER_GRACE + 1) -> None:
        """Stop the worker as a service manager would, killing it if it outlasts its grace."""
        with self._lock:
            self._stopping.set()
            proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                log.error("queue worker still running %g s after SIGTERM; killing it", timeout)
                proc.kill()
                proc.wait()
        if self._watcher is not None:
            self._watcher.join()

    def kill(self) -> None:
        """Stop the worker now, running tasks and all (their leases bring them back).

        Runs from a signal handler, maybe while stop() holds the lock, so it takes none.
        """
        self._stopping.set()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            log.warning("stopping the queue worker (pid %d) now, running tasks and all", proc.pid)
            proc.kill()


# An orphaned worker's running tasks get this long before it exits anyway, so that it is
# gone within 10 s of serve (README "Running it"); what it leaves, the sweeper takes back.
ORPHAN_GRACE = 8.0
POLL = 0.5


def stop_with_parent(parent_pid: int | None, *, poll: float = POLL, grace: float = ORPHAN_GRACE) -> None:
    """Once `parent_pid` is no longer this process's parent, SIGTERM this process, and
    exit after `grace` seconds if that has not ended it. None: nothing to watch."""
    if parent_pid is None:
        return
    threading.Thread(target=_watch_parent, args=(parent_pid, poll, grace), daemon=True, name="parent-watch").start()


def stop_with_spawning_parent(*, poll: float = POLL, grace: float = ORPHAN_GRACE) -> None:
    """`stop_with_parent` for a process that multiprocessing started (its parent is known
    to it); nothing for any other, which may be meant to outlive whoever started it."""
    parent = multiprocessing.parent_process()
    stop_with_parent(parent.pid if parent is not None else None, poll=poll, grace=grace)


def _watch_parent(parent_pid: int, poll: float, grace: float) -> None:
    # The parent's pid is compared, not 1: a service manager or container init may be a
    # subreaper and adopt orphans itself.
    while os.getppid() == parent_pid:
        time.sleep(poll)
    log.warning("the process that started this one (pid %d) is gone; stopping", parent_pid)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(grace)
    log.error("still running %g s after stopping without a parent; exiting now", grace)
    os._exit(1)
