"""The platforms Fanout publishes to: one registry from which the platform list, the
settings (FANOUT_<P>_CLIENT_ID/SECRET), the connect pages and the publisher are derived.

Each entry names its adapter module (the seam of fanout/platforms/base.py); a platform
whose adapter is None has no live publishing yet: its connect flow answers
`platform_not_configured` and only sandbox accounts exist for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from . import instagram, threads, tiktok, x
from .rules import RULES, PlatformRules


@dataclass(frozen=True)
class Platform:
    name: str  # the id the API uses
    title: str  # the name people know
    adapter: ModuleType | None = None

    @property
    def rules(self) -> PlatformRules:
        return RULES[self.name]

    @property
    def env_prefix(self) -> str:
        """FANOUT_<P>_: where this platform's app credentials are read from."""
        return f"FANOUT_{self.name.upper()}_"


REGISTRY: dict[str, Platform] = {
    p.name: p
    for p in (
        Platform("instagram", "Instagram", adapter=instagram),
        Platform("threads", "Threads", adapter=threads),
        Platform("tiktok", "TikTok", adapter=tiktok),
        Platform("x", "X", adapter=x),
    )
}
NAMES = {name: p.title for name, p in REGISTRY.items()}
PLATFORMS = tuple(REGISTRY)
