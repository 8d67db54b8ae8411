"""The emulators' own time: every time rule of an emulator (token ages, container
processing, expiry, 24 h quotas) reads this clock, never the machine's."""
from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Callable

UTC = dt.timezone.utc


def as_utc(instant: dt.datetime | str) -> dt.datetime:
    """An aware UTC datetime from a datetime (naive ones are taken as UTC) or ISO 8601 text."""
    if isinstance(instant, str):
        instant = dt.datetime.fromisoformat(instant.replace("Z", "+00:00"))
    return instant.replace(tzinfo=UTC) if instant.tzinfo is None else instant.astimezone(UTC)


class EmulatorClock:
    """Starts at `start` (default: the real time, to the second) and moves only when told.

    With `follow_real_time=True` it also moves with the machine's monotonic clock, which is
    what a server run by hand needs (a video must finish processing by itself); `advance`
    and `set` still work on top of it. Thread-safe.
    """

    def __init__(self, start: dt.datetime | str | None = None, *, follow_real_time: bool = False,
                 monotonic: Callable[[], float] = time.monotonic):
        if start is None:
            start = dt.datetime.now(UTC).replace(microsecond=0)
        self._lock = threading.Lock()
        self._base = as_utc(start)
        self._follow = follow_real_time
        self._monotonic = monotonic
        self._mark = monotonic()

    def now(self) -> dt.datetime:
        with self._lock:
            return self._now()

    def _now(self) -> dt.datetime:
        if not self._follow:
            return self._base
        return self._base + dt.timedelta(seconds=self._monotonic() - self._mark)

    def advance(self, seconds: float) -> dt.datetime:
        """Move forward by `seconds` (not backward: time rules assume it never goes back)."""
        if seconds < 0:
            raise ValueError("the emulator clock does not go back; use set()")
        with self._lock:
            self._base += dt.timedelta(seconds=seconds)
            return self._now()

    def set(self, instant: dt.datetime | str) -> dt.datetime:
        """Jump to `instant` (either way)."""
        with self._lock:
            self._base = as_utc(instant)
            self._mark = self._monotonic()
            return self._base

    def __call__(self) -> dt.datetime:
        return self.now()
