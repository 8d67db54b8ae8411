"""What the running service talks to: settings, clock, randomness, resolver, keyring, queue,
and where it records its metrics.

The app factory and the `fanout` command build one `Runtime` and install it; handlers and
tasks read it with `current()`. Tests build theirs with a fixed clock, a fake resolver and
an in-memory queue, so nothing needs monkey-patching.
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from huey import Huey

from . import ids
from .outbound.guard import Resolver, resolve_host
from .security.crypto import Keyring
from .settings import Settings
from .times import utcnow


@dataclass
class Runtime:
    settings: Settings
    keyring: Keyring
    queue: Huey
    clock: Callable[[], _dt.datetime] = utcnow
    randbytes: Callable[[int], bytes] = field(default=os.urandom)
    resolve: Resolver = resolve_host
    # How a simulated call spends its time in flight (FANOUT_SANDBOX_LATENCY).
    sleep: Callable[[float], None] = time.sleep
    # Set by boot(): the registered tasks of `queue`, the guarded outbound HTTP client
    # (client-chosen URLs), the platform API client (fanout.platforms.http.PlatformHttp),
    # the requests-per-minute counter (a fanout.http.throttle.Throttle), where webhook
    # attempts run (fanout.tasks.lane: inline, or a worker process's threaded lane) and
    # what the process records for Prometheus (a fanout.ops.metrics.Metrics).
    tasks: Any = None
    outbound: Any = None
    # The same guard with a deadline fit for media files (hundreds of MB for a video).
    media_outbound: Any = None
    platform_http: Any = None
    throttle: Any = None
    lane: Any = None
    metrics: Any = None

    def now(self) -> _dt.datetime:
        return self.clock()

    def new_id(self, prefix: str) -> str:
        return ids.new_id(prefix, self.clock(), self.randbytes)


_current: Runtime | None = None


def install(runtime: Runtime) -> Runtime:
    global _current
    _current = runtime
    return runtime


def current() -> Runtime:
    if _current is None:
        raise RuntimeError("no runtime installed: build the app with create_app() or run the fanout command")
    return _current
