"""Settings from the environment, validated once at start: the service's own, declared in
fanout/core_settings.py `CORE`, and each platform's, declared in its package
(fanout/platforms/<p>/settings.py)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from .core_settings import CORE, SettingsError, unset
from .platforms import REGISTRY, Platform
from .platforms.base import App

__all__ = ["Settings", "SettingsError", "sqlite_path"]


@dataclass(frozen=True)
class Settings:
    # What each field means, its variable and its default: fanout/core_settings.py.
    data_dir: Path
    database_url: str
    queue_url: str
    base_url: str
    connect_url: str
    limiter_url: str
    secret_key: str | None = unset("secret_key")
    insecure_urls: bool = unset("insecure_urls")
    webhook_retry_schedule: tuple[int, ...] = unset("webhook_retry_schedule")
    publish_lease: int = unset("publish_lease")
    sandbox_latency: float = unset("sandbox_latency")
    delivery_slots: int = unset("delivery_slots")
    event_retention_days: int = unset("event_retention_days")
    # Response validation costs time on every request; tests and CI turn it on. No variable
    # sets it.
    validate_responses: bool = False
    max_body_bytes: int = unset("max_body_bytes")
    log_format: str = unset("log_format")
    heartbeat_interval: int = unset("heartbeat_interval")
    heartbeat_stale: int = unset("heartbeat_stale")
    metrics_token: str | None = unset("metrics_token")
    # The apps registered with each platform (FANOUT_<P>_CLIENT_ID and _SECRET); a platform
    # missing here answers platform_not_configured (README "Live platforms").
    platform_apps: Mapping[str, App] = field(default_factory=dict)
    # FANOUT_PLATFORM_HOSTS: real platform host -> base URL calls to it go to (emulators).
    platform_hosts: Mapping[str, str] = field(default_factory=lambda: unset("platform_hosts"))
    # Each platform's own settings object (its package's settings.py), by name: what
    # `of` answers.
    platform_settings: Mapping[str, Any] = field(default_factory=lambda: _platform_settings({}, REGISTRY))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None,
                 platforms: Mapping[str, Platform] = REGISTRY) -> "Settings":
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for setting in CORE:  # in order: a default may follow the settings read before it
            values[setting.field] = setting.read(env, values.__getitem__)
        return cls(**values, platform_apps=_platform_apps(env, platforms),
                   platform_settings=_platform_settings(env, platforms))

    @property
    def local_stores(self) -> bool:
        """The database, the queue and the rate-limit store are files on this machine (the
        embedded default): a statement costs microseconds, with no network round trip."""
        return all(url.startswith("sqlite") for url in (self.database_url, self.queue_url, self.limiter_url))

    def of(self, platform: str) -> Any:
        """`platform`'s own settings (fanout/platforms/<name>/settings.py)."""
        return self.platform_settings[platform]

    def with_platform(self, platform: str, **changes) -> "Settings":
        """These settings with some of `platform`'s own changed."""
        changed = replace(self.of(platform), **changes)
        return replace(self, platform_settings={**self.platform_settings, platform: changed})

    def with_base_url(self, base_url: str, connect_url: str | None = None) -> "Settings":
        return replace(self, base_url=base_url.rstrip("/"), connect_url=(connect_url or base_url).rstrip("/"))


def _platform_apps(env: Mapping[str, str], platforms: Mapping[str, Platform]) -> dict[str, App]:
    """Each platform's app, when both its client id and secret are set; one alone is an error.
    A platform that connects without an app (the credentials style) reads none."""
    apps = {}
    for name, platform in platforms.items():
        if not platform.uses_app:
            continue
        id_name, secret_name = platform.env_prefix + "CLIENT_ID", platform.env_prefix + "CLIENT_SECRET"
        client_id, secret = env.get(id_name, "").strip(), env.get(secret_name, "").strip()
        if bool(client_id) != bool(secret):
            missing = secret_name if client_id else id_name
            raise SettingsError(f"{missing} must be set too: {platform.title} needs both the app's client id and secret")
        if client_id:
            apps[name] = App(client_id, secret)
    return apps


def _platform_settings(env: Mapping[str, str], platforms: Mapping[str, Platform]) -> dict[str, Any]:
    """Each platform's own settings, read as its package says (Platform.read_settings)."""
    try:
        return {name: platform.read_settings(env) for name, platform in platforms.items()}
    except ValueError as e:
        raise SettingsError(str(e)) from None


def sqlite_path(url: str) -> Path:
    """The file behind a sqlite:/// URL."""
    return Path(url[len("sqlite:///"):])
