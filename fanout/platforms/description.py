"""What the rest of the service knows of a platform: one `Platform` per package
(docs/adding-a-platform.md), listed by the registry in fanout/platforms/__init__.py.

openapi.yaml's platform enums, the event schemas, the settings, the connect pages and the
rules are held to the registry by contracts/test_platform_registry.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from .mapping import Rule
from .rules import PlatformRules


@dataclass(frozen=True)
class Setting:
    """One FANOUT_<P>_ environment variable of a platform, beyond its app's id and secret."""

    name: str
    default: str  # as an operator would write it; "" for unset
    meaning: str


@dataclass(frozen=True)
class Platform:
    name: str  # the id the API uses
    title: str  # the name people know
    rules: PlatformRules  # caption counting and caps, media rules
    # The seam of fanout/platforms/base.py; None: no live publishing yet, the connect flow
    # answers `platform_not_configured` and only sandbox accounts exist for it.
    adapter: ModuleType | None = None
    settings: tuple[Setting, ...] = ()
    hosts: tuple[str, ...] = ()  # the real hosts it calls, which FANOUT_PLATFORM_HOSTS may redirect
    errors: tuple[Rule, ...] = ()  # its error envelopes -> target error codes (fanout/platforms/mapping.py)

    @property
    def env_prefix(self) -> str:
        """FANOUT_<P>_: where this platform's app credentials are read from."""
        return f"FANOUT_{self.name.upper()}_"

    @property
    def setting_names(self) -> tuple[str, ...]:
        """Every FANOUT_<P>_ variable the service reads for this platform."""
        app = (self.env_prefix + "CLIENT_ID", self.env_prefix + "CLIENT_SECRET")
        return app + tuple(s.name for s in self.settings)
