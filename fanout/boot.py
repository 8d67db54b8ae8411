"""`boot(settings)`: the runtime every process runs on (database, keyring, queue, limiter...).

Apart from the app factory so that commands which serve no HTTP (`fanout workspace ...`,
`fanout worker`) start without importing Connexion.
"""
from __future__ import annotations

import logging

from . import runtime as _runtime
from .http.throttle import Throttle
from .models import bind, open_database
from .ops import metrics_dir
from .ops.metrics import Metrics
from .outbound.client import Outbound
from .platforms.http import PlatformHttp
from .ratelimit import Limiter, open_store
from .security.crypto import load_keyring
from .settings import Settings
from .tasks import make_queue, register
from .tasks.webhooks import inline_lane

log = logging.getLogger("fanout.app")

# Seconds one media download may take, redirects included: a 1 GB video at ~4 MB/s.
MEDIA_DEADLINE = 300.0


def boot(settings: Settings, **overrides) -> _runtime.Runtime:
    """Bind the database and install the runtime; `overrides` replace clock, queue, resolver..."""
    if settings.insecure_urls:
        log.warning(
            "FANOUT_INSECURE_URLS is on: webhook and media URLs may use http and private or loopback "
            "addresses. Use it for local development and tests only."
        )
    bind(open_database(settings.database_url))
    if "keyring" not in overrides:
        overrides["keyring"] = load_keyring(settings)
    if "queue" not in overrides:
        overrides["queue"] = make_queue(settings)
    rt = _runtime.Runtime(settings=settings, **overrides)
    rt.tasks = register(rt.queue, rt)
    if rt.outbound is None:
        rt.outbound = Outbound(resolve=rt.resolve, insecure=settings.insecure_urls)
    if rt.media_outbound is None:
        rt.media_outbound = Outbound(resolve=rt.resolve, insecure=settings.insecure_urls, deadline=MEDIA_DEADLINE,
                                     user_agent="Fanout-Media/1")
    if rt.platform_http is None:
        rt.platform_http = PlatformHttp(settings.platform_hosts)
    if rt.lane is None:
        rt.lane = inline_lane(rt)
    if rt.throttle is None:
        rt.throttle = Throttle(Limiter(open_store(settings.limiter_url), clock=rt.clock), clock=rt.clock)
    if rt.metrics is None:
        rt.metrics = Metrics(folder=metrics_dir.current())
    return _runtime.install(rt)
