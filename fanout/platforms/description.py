"""What the rest of the service knows of a platform: one `Platform` per package
(docs/adding-a-platform.md), listed by the registry in fanout/platforms/__init__.py.

openapi.yaml's platform enums, the event schemas, the settings, the connect pages and the
rules are held to the registry by contracts/test_platform_registry.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Mapping

from .base import OAUTH, connect_style
from .mapping import Rule
from .rules import PlatformRules


@dataclass(frozen=True)
class Setting:
    """One environment variable of a platform, beyond its app's id and secret: it fills
    `field` of the package's settings object with `parse` of its text (of `default`
    when unset). `parse` raises ValueError saying what the text should be (the shared
    parsers: fanout/setting_parsers.py)."""

    name: str
    default: str  # as an operator would write it; "" for unset
    meaning: str
    field: str
    parse: Callable[[str], Any] = str


@dataclass(frozen=True)
class NoSettings:
    """The settings object of a platform that has none beyond its app."""


@dataclass(frozen=True)
class Platform:
    name: str  # the id the API uses
    title: str  # the name people know
    rules: PlatformRules  # caption counting and caps, media rules
    # The seam of fanout/platforms/base.py; None: no live publishing yet, the connect flow
    # answers `platform_not_configured` and only sandbox accounts exist for it.
    adapter: ModuleType | None = None
    settings: tuple[Setting, ...] = ()
    # The package's settings object (a frozen dataclass), whose fields `settings` fill:
    # what its adapter reads as `step.settings.of(name)` (fanout/settings.py).
    config: type = NoSettings
    hosts: tuple[str, ...] = ()  # the real hosts it calls, which FANOUT_PLATFORM_HOSTS may redirect
    errors: tuple[Rule, ...] = ()  # its error envelopes -> target error codes (fanout/platforms/mapping.py)
    # `(options, details, account_id)`: why this platform's content cannot go to that account
    # as far as the account's stored details show (Grant.details; None when it has none), a
    # 400 at upload, on an edit and in a preflight (fanout/models/upload.py); or None.
    account_problem: Callable[[Mapping[str, Any], Mapping[str, Any] | None, str], str | None] | None = None
    # `(user_id, now)`: the details a sandbox account of this platform is given at its connect.
    sandbox_details: Callable[[str, Any], Mapping[str, Any]] | None = None

    @property
    def env_prefix(self) -> str:
        """FANOUT_<P>_: where this platform's app credentials are read from."""
        return f"FANOUT_{self.name.upper()}_"

    def read_settings(self, env: Mapping[str, str]) -> Any:
        """This platform's settings object from the environment; ValueError names the
        variable that has a value the platform cannot run with."""
        values = {}
        for s in self.settings:
            text = env.get(s.name, "").strip() or s.default
            try:
                values[s.field] = s.parse(text)
            except ValueError as e:
                raise ValueError(f"{s.name} {e}") from None
        return self.config(**values)

    @property
    def uses_app(self) -> bool:
        """Whether the platform connects through an app registered with it (the OAuth
        redirect, FANOUT_<P>_CLIENT_ID and _SECRET); a credentials platform has none."""
        return connect_style(self.adapter) == OAUTH

    @property
    def setting_names(self) -> tuple[str, ...]:
        """Every FANOUT_<P>_ variable the service reads for this platform."""
        app = (self.env_prefix + "CLIENT_ID", self.env_prefix + "CLIENT_SECRET") if self.uses_app else ()
        return app + tuple(s.name for s in self.settings)
