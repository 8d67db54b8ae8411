"""What the running service talks to: settings, clock, randomness, resolver, keyring, queue,
where it records its metrics, and the shapes of the events it records.

The app factory and the `fanout` command build one `Runtime` and install it; handlers and
tasks read it with `current()`. Tests build theirs with a fixed clock, a fake resolver and
an in-memory queue, so nothing needs monkey-patching.
"""
from __future__ import annotations

import datetime as _dt
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Protocol, runtime_checkable

from huey import Huey

from . import ids, views
from .outbound.guard import Resolver, resolve_host
from .platforms import REGISTRY, Platform
from .security.crypto import Keyring
from .settings import Settings
from .times import utcnow

if TYPE_CHECKING:  # set by boot(); importing them here would import the runtime's users
    from .http.throttle import Throttle
    from .ops.metrics import Metrics
    from .outbound.client import Outbound
    from .platforms.http import PlatformHttp
    from .tasks import Tasks


@runtime_checkable
class DeliveryLane(Protocol):
    """Where webhook attempts run (fanout/tasks/lane.py: `Inline` or a worker's `Lane`)."""

    def submit(self, delivery_id: str) -> None: ...


class EventBodies(Protocol):
    """The body of each kind of event fanout/models records (fanout/views.py: the module is one)."""

    def target_event(self, event_id: str, kind: str, target, now: _dt.datetime) -> dict: ...

    def account_event(self, event_id: str, kind: str, account, now: _dt.datetime, reason: str | None = None) -> dict: ...

    def registration_event(self, event_id: str, kind: str, webhook, now: _dt.datetime) -> dict: ...


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
    # The platforms the connect flow serves: the registry, or in tests the registry and a
    # platform of their own (tests/test_credentials_connect.py).
    platforms: Mapping[str, Platform] = field(default_factory=lambda: REGISTRY)
    # What shapes the events' bodies: the models record events but import no view, so the
    # API's shapes stay in one module above them (tests/test_model_imports.py).
    event_bodies: EventBodies = field(default_factory=lambda: views)
    # Set by boot() (None until then, or given to it to replace the default): the
    # registered tasks of `queue`, the guarded outbound HTTP client (client-chosen URLs),
    # the platform API client, the requests-per-minute counter, where webhook attempts run
    # and what the process records for Prometheus.
    tasks: Tasks | None = None
    outbound: Outbound | None = None
    # The same guard with a deadline fit for media files (hundreds of MB for a video).
    media_outbound: Outbound | None = None
    platform_http: PlatformHttp | None = None
    throttle: Throttle | None = None
    lane: DeliveryLane | None = None
    metrics: Metrics | None = None

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
