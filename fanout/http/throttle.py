"""The plan's requests per minute, applied to every authenticated request
(docs/decisions.md#requests-per-minute).

Two middlewares, because Connexion authenticates inside its exception handling:
- `RateLimitMiddleware` runs after security. It applies the count the key's lookup made
  (fanout/handlers/auth.py: one call does both), puts the RateLimit
  headers in the request's slot, and raises 429 when the window is full.
- `RateLimitHeaders` gives each request an empty slot and writes the slot's headers on
  whatever response goes out, the errors rendered by the exception handlers (400, 404,
  the 429 itself) included. Requests refused with 401 never
  reach the counter, so their slot stays empty: they count for nobody and carry nothing.

When the store is unreachable the API fails open: it keeps serving without limiting, logs
the fault, and omits `RateLimit` (it cannot know what remains) while still sending
`RateLimit-Policy`. The limit guards fairness and capacity; it is not what keeps data
safe. Keys, the monthly post cap and the account and key caps are enforced in the database
and stay exact, so refusing everything with 503 would turn a fault in an auxiliary store
into an outage of an API whose database is fine. After a failure the store is left alone
for `cooldown` seconds: a store that hangs does not add its timeout to every request, and
the log gets one line per cooldown instead of one per request.
"""
from __future__ import annotations

import datetime as _dt
import logging
import threading
from dataclasses import dataclass, field
from typing import Callable


from .. import runtime
from ..plans import get_plan
from ..problems import RateLimited
from ..ratelimit import Decision, Limiter, LimiterUnavailable, headers, policy

log = logging.getLogger("fanout.throttle")

SLOT_KEY = "fanout.ratelimit"


@dataclass
class Slot:
    """What the counter decided for one request: the headers its response carries."""

    headers: dict[str, str] = field(default_factory=dict)


class Throttle:
    """A `Limiter` that fails open: `check` answers None while the store is unreachable."""

    def __init__(self, limiter: Limiter, clock: Callable[[], _dt.datetime], cooldown: float = 5.0) -> None:
        self.limiter = limiter
        self.clock = clock
        self.cooldown = _dt.timedelta(seconds=cooldown)
        self._lock = threading.Lock()
        self._retry_at: _dt.datetime | None = None

    def check(self, workspace_id: str, limit: int) -> Decision | None:
        with self._lock:
            if self._retry_at is not None and self.clock() < self._retry_at:
                return None
        try:
            decision = self.limiter.hit(workspace_id, limit)
        except LimiterUnavailable as e:
            with self._lock:
                self._retry_at = self.clock() + self.cooldown
            log.error("rate limiting is off for %ss (requests are served unlimited): %s",
                      self.cooldown.total_seconds(), e)
            return None
        with self._lock:
            if self._retry_at is not None:
                self._retry_at = None
                log.warning("rate limit store reachable again; limiting resumed")
        return decision

    def count(self, workspace_id: str) -> int | None:
        """The workspace's requests in the last minute, counting none; None while the store is down."""
        try:
            return self.limiter.count(workspace_id)
        except LimiterUnavailable:
            return None

    def would_admit(self, key: str, limit: int) -> bool:
        """Whether `check` would admit one more hit now, counting nothing (a preflight's
        look at a platform's window); True while the store cannot answer, as `check` fails open."""
        try:
            return self.limiter.would_admit(key, limit)
        except LimiterUnavailable:
            return True

    def problem(self) -> str | None:
        """Why the store cannot count requests now, or None; asks the store (for /readyz)."""
        try:
            self.limiter.store.ping()
        except LimiterUnavailable as e:
            return str(e)
        return None


def _token_info(scope) -> dict | None:
    context = scope.get("extensions", {}).get("connexion_context", {})
    return context.get("token_info")


class RateLimitMiddleware:
    """Counts the authenticated request; 429 `rate_limited` when its workspace is over."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        token_info = _token_info(scope) if scope["type"] == "http" else None
        if not token_info or "workspace_id" not in token_info:
            # No API key: the monitoring operations (openapi.yaml, tag `monitoring`).
            await self.app(scope, receive, send)
            return
        rt = runtime.current()
        plan = get_plan(token_info["plan"])
        limit = plan.requests_per_minute
        decision = token_info["rate"]  # counted when the key was looked up (handlers/auth.py)
        slot = scope.get(SLOT_KEY)
        if slot is not None:
            slot.headers = headers(decision) if decision is not None else {"RateLimit-Policy": policy(limit)}
        if decision is not None and not decision.allowed:
            rt.metrics.rate_limited(plan.name)
            raise RateLimited(
                f"the {plan.name} plan allows {limit} requests per minute and this workspace used them; "
                f"retry after {decision.retry_after} s"
            )
        await self.app(scope, receive, send)


class RateLimitHeaders:
    """Sends the slot's headers on the response, unless it already carries them.

    Installed outside the exception handlers, where it makes the slot and reaches the error
    responses they render; and, when responses are validated (fanout/app.py), innermost
    too, so the headers are on a handler's response before Connexion's response validation
    checks its documented headers.
    """

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        slot = scope.setdefault(SLOT_KEY, Slot())

        async def send_with_headers(message):
            if message["type"] == "http.response.start" and slot.headers:
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name.lower().encode(), value.encode()) for name, value in slot.headers.items()]
                if extra[0][0] not in present:
                    message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)
