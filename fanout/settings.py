"""Settings from the environment, validated once at start."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import SplitResult, urlsplit

from .platforms import REGISTRY, Platform
from .platforms.base import App
from .platforms.http import parse_hosts


class SettingsError(ValueError):
    """A setting has a value the service cannot run with."""


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    queue_url: str
    base_url: str
    connect_url: str
    # Where requests per minute are counted: shared by every API process (see _limiter_url).
    limiter_url: str
    secret_key: str | None = None
    insecure_urls: bool = False
    # Seconds after the previous attempt: 1 min, 5 min, 30 min, 2 h, 6 h
    # (docs/decisions.md#deliveries-and-retries).
    webhook_retry_schedule: tuple[int, ...] = (60, 300, 1800, 7200, 21600)
    # How long a worker may hold a target in `processing` before the sweeper takes it back.
    publish_lease: int = 300
    # Seconds sandbox publishing takes, so clients can watch a target in `processing`.
    sandbox_latency: float = 0.0
    # Threads a worker process sends webhook attempts on (fanout/tasks/lane.py).
    delivery_slots: int = 16
    # Days the events log keeps an event (and its deliveries) before housekeeping prunes it.
    event_retention_days: int = 30
    # Response validation costs time on every request; tests and CI turn it on.
    validate_responses: bool = False
    # Larger request bodies are refused with 413 before they are read (README, Settings).
    max_body_bytes: int = 1024 * 1024
    # `text` (one line a record) or `json` (one JSON object a line) for every log record.
    log_format: str = "text"
    # Seconds between a worker's heartbeats, and the age past which /readyz calls the
    # newest one stale (README "Health and metrics").
    heartbeat_interval: int = 10
    heartbeat_stale: int = 30
    # Bearer token GET /metrics requires; None leaves it open.
    metrics_token: str | None = None
    # The apps registered with each platform (FANOUT_<P>_CLIENT_ID and _SECRET); a platform
    # missing here answers platform_not_configured (README "Live platforms").
    platform_apps: Mapping[str, App] = field(default_factory=dict)
    # FANOUT_PLATFORM_HOSTS: real platform host -> base URL calls to it go to (emulators).
    platform_hosts: Mapping[str, str] = field(default_factory=dict)
    # Each platform's own settings object (its package's settings.py), by name: what
    # `of` answers.
    platform_settings: Mapping[str, Any] = field(default_factory=lambda: _platform_settings({}, REGISTRY))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None,
                 platforms: Mapping[str, Platform] = REGISTRY) -> "Settings":
        env = os.environ if environ is None else environ
        data_dir = Path(env.get("FANOUT_DATA_DIR") or "./var").expanduser().resolve()
        base_url = _http_url("FANOUT_BASE_URL", env.get("FANOUT_BASE_URL") or "http://127.0.0.1:8000")
        connect_url = _http_url("FANOUT_CONNECT_URL", env.get("FANOUT_CONNECT_URL") or base_url)
        queue_url = _queue_url(env.get("FANOUT_QUEUE_URL") or f"sqlite:///{data_dir / 'queue.db'}")
        return cls(
            data_dir=data_dir,
            database_url=_database_url(env.get("FANOUT_DATABASE_URL") or f"sqlite:///{data_dir / 'fanout.db'}"),
            queue_url=queue_url,
            base_url=base_url,
            connect_url=connect_url,
            secret_key=env.get("FANOUT_SECRET_KEY") or None,
            insecure_urls=_flag("FANOUT_INSECURE_URLS", env.get("FANOUT_INSECURE_URLS", "")),
            webhook_retry_schedule=_schedule(env.get("FANOUT_WEBHOOK_RETRY_SCHEDULE", "")),
            publish_lease=_whole_number("FANOUT_PUBLISH_LEASE", env.get("FANOUT_PUBLISH_LEASE", ""), 300, "seconds"),
            sandbox_latency=_latency(env.get("FANOUT_SANDBOX_LATENCY", "")),
            delivery_slots=_whole_number("FANOUT_DELIVERY_SLOTS", env.get("FANOUT_DELIVERY_SLOTS", ""), 16, "threads", 256),
            event_retention_days=_whole_number(
                "FANOUT_EVENT_RETENTION_DAYS", env.get("FANOUT_EVENT_RETENTION_DAYS", ""), 30, "days", 3650),
            limiter_url=_limiter_url(env.get("FANOUT_LIMITER_URL", ""), queue_url, data_dir),
            max_body_bytes=_whole_number("FANOUT_MAX_BODY_BYTES", env.get("FANOUT_MAX_BODY_BYTES", ""), 1024 * 1024, "bytes"),
            log_format=_log_format(env.get("FANOUT_LOG_FORMAT", "")),
            **_heartbeat(env.get("FANOUT_HEARTBEAT_INTERVAL", ""), env.get("FANOUT_HEARTBEAT_STALE", "")),
            metrics_token=_metrics_token(env.get("FANOUT_METRICS_TOKEN", "")),
            platform_apps=_platform_apps(env, platforms),
            platform_hosts=_platform_hosts(env.get("FANOUT_PLATFORM_HOSTS", "")),
            platform_settings=_platform_settings(env, platforms),
        )

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


def _flag(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("", "0", "false", "no", "off"):
        return False
    if lowered in ("1", "true", "yes", "on"):
        return True
    raise SettingsError(f"{name} must be 1/true/yes/on or 0/false/no/off, not {value!r}")


def _schedule(value: str) -> tuple[int, ...]:
    if not value.strip():
        return Settings.webhook_retry_schedule
    try:
        delays = tuple(int(part) for part in value.split(","))
    except ValueError:
        delays = ()
    if not delays or any(d < 0 for d in delays):
        raise SettingsError(
            f"FANOUT_WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds such as 60,300,1800,7200,21600, not {value!r}"
        )
    return delays


def _whole_number(name: str, value: str, default: int, what: str, most: int = 10**12) -> int:
    """A whole number from 1 to `most` in ASCII digits, or `default` when unset."""
    text = value.strip()
    if not text:
        return default
    # Length first: int() of thousands of digits raises, and no setting needs 13 of them.
    if not (text.isascii() and text.isdigit()) or len(text) > 13 or not 1 <= int(text) <= most:
        bound = f"from 1 to {most}" if most < 10**12 else "at least 1"
        raise SettingsError(f"{name} must be a whole number of {what}, {bound}, not {value!r}")
    return int(text)


def _heartbeat(interval_value: str, stale_value: str) -> dict:
    """The heartbeat interval and staleness; stale defaults to three intervals and must exceed one."""
    interval = _whole_number("FANOUT_HEARTBEAT_INTERVAL", interval_value, 10, "seconds", 3600)
    stale = _whole_number("FANOUT_HEARTBEAT_STALE", stale_value, 3 * interval, "seconds", 86400)
    if stale <= interval:
        raise SettingsError(
            f"FANOUT_HEARTBEAT_STALE ({stale} s) must be longer than FANOUT_HEARTBEAT_INTERVAL ({interval} s), "
            "or every worker would look stale between two heartbeats"
        )
    return {"heartbeat_interval": interval, "heartbeat_stale": stale}


METRICS_TOKEN_MIN = 16


def _metrics_token(value: str) -> str | None:
    """A token fit for a header (printable ASCII, no spaces), long enough not to be guessed."""
    if not value:
        return None
    if not (value.isascii() and value.isprintable()) or " " in value or len(value) < METRICS_TOKEN_MIN:
        # The value itself is never quoted: it is a secret.
        raise SettingsError(
            f"FANOUT_METRICS_TOKEN must be at least {METRICS_TOKEN_MIN} printable ASCII characters without spaces "
            "(e.g. the output of `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    return value


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


def _platform_hosts(value: str) -> dict[str, str]:
    try:
        return parse_hosts(value)
    except ValueError as e:
        raise SettingsError(f"FANOUT_PLATFORM_HOSTS: {e}") from None


def _log_format(value: str) -> str:
    lowered = value.strip().lower()
    if lowered in ("", "text"):
        return "text"
    if lowered == "json":
        return "json"
    raise SettingsError(f"FANOUT_LOG_FORMAT must be text or json, not {value!r}")


def _latency(value: str) -> float:
    if not value.strip():
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 60:
        raise SettingsError(f"FANOUT_SANDBOX_LATENCY must be seconds from 0 to 60, not {value!r}")
    return seconds


def _split(value: str) -> SplitResult | None:
    """The parts of a URL, or None when urlsplit or its port cannot make sense of it."""
    try:
        parts = urlsplit(value)
        parts.port  # raises ValueError for a port that is not a number in 0..65535
    except ValueError:
        return None
    return parts


def _http_url(name: str, value: str) -> str:
    parts = _split(value)
    if (
        parts is None or parts.scheme not in ("http", "https") or not parts.hostname
        or parts.query or parts.fragment
    ):
        raise SettingsError(f"{name} must be an absolute http(s) URL such as https://fanout.example.com, not {value!r}")
    return value.rstrip("/")


def _database_url(value: str) -> str:
    parts = _split(value)
    scheme = parts.scheme if parts else None
    if scheme == "sqlite":
        if not value.startswith("sqlite:///") or value == "sqlite:///" or ":memory:" in value:
            raise SettingsError(f"FANOUT_DATABASE_URL must name a SQLite file (sqlite:///path/to/fanout.db), not {value!r}")
        return value
    if scheme in ("postgres", "postgresql"):
        if not parts.path.strip("/"):
            raise SettingsError(f"FANOUT_DATABASE_URL must name a database (postgresql://user@host:5432/name), not {value!r}")
        return value
    raise SettingsError(f"FANOUT_DATABASE_URL must start with sqlite:/// or postgresql://, not {value!r}")


def _shared_store_url(name: str, value: str, example_file: str) -> str:
    """A SQLite file or a Redis URL: a store every process reaches, never one in memory."""
    parts = _split(value)
    scheme = parts.scheme if parts else None
    if scheme == "sqlite" and value.startswith("sqlite:///") and value != "sqlite:///" and ":memory:" not in value:
        return value
    if scheme in ("redis", "rediss"):
        return value
    raise SettingsError(f"{name} must be sqlite:///path/to/{example_file} or redis://host:6379/0, not {value!r}")


def _queue_url(value: str) -> str:
    # Shared between the API and the worker.
    return _shared_store_url("FANOUT_QUEUE_URL", value, "queue.db")


def _limiter_url(value: str, queue_url: str, data_dir: Path) -> str:
    """FANOUT_LIMITER_URL, else the queue's Redis, else a SQLite file in the data folder.

    Every API process must count in the same place, so the default follows the queue: on
    Redis when the queue is (several machines), in the data folder otherwise (one machine).
    """
    if value.strip():
        return _shared_store_url("FANOUT_LIMITER_URL", value, "limiter.db")
    if queue_url.startswith(("redis://", "rediss://")):
        return queue_url
    return f"sqlite:///{data_dir / 'limiter.db'}"


def sqlite_path(url: str) -> Path:
    """The file behind a sqlite:/// URL."""
    return Path(url[len("sqlite:///"):])
