"""The service's own settings, declared once: for each FANOUT_ variable that is not a
platform's (those are in fanout/platforms/<p>/settings.py), its name, default, range and
meaning, and how its text is read. fanout/settings.py `Settings` takes its defaults and its
reading from `CORE`; tests/test_settings_table.py holds the README's settings table to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import SplitResult, urlsplit

from .platforms.http import parse_hosts
from .setting_parsers import Number, WholeNumber

# The values of the settings read before one, by `Settings` field: what a default that
# follows them (`CoreSetting.follows`) or a rule between them (`check`) reads.
Earlier = Callable[[str], Any]


class SettingsError(ValueError):
    """A setting has a value the service cannot run with."""


@dataclass(frozen=True)
class CoreSetting:
    """One environment variable of the service: it fills `field` of `Settings` with
    `parse` of its text, or of `default` when unset (or of what `follows` makes of the
    settings read before it). `parse` raises ValueError saying what the text should be."""

    name: str
    field: str
    meaning: str
    parse: Callable[[str], Any]
    default: str = ""  # as an operator would write it; "" when it follows others or is none
    follows: Callable[[Earlier], str] | None = None
    # The README's words for the default, where it is not text an operator would write.
    unset: str = ""
    # Whether text of only spaces is unset. Where it is not, spaces are a value like any
    # other: a URL or a token of spaces is refused (quoted back), not taken for the default.
    spaces_unset: bool = True
    # A rule between this setting and those read before it: the message when it is broken.
    check: Callable[[Any, Earlier], str | None] | None = None

    @property
    def shown_default(self) -> str:
        """How the README's settings table gives the default (the start of its cell)."""
        return self.unset or f"`{self.default}`"

    def read(self, env: Mapping[str, str], earlier: Earlier) -> Any:
        """This setting's value from the environment; SettingsError names the variable."""
        text = env.get(self.name, "")
        if not (text.strip() if self.spaces_unset else text):
            text = self.follows(earlier) if self.follows else self.default
        try:
            value = self.parse(text)
        except ValueError as e:
            said = str(e)
            raise SettingsError(f"{self.name} {said}" if said.startswith("must ") else f"{self.name}: {said}") from None
        if self.check and (problem := self.check(value, earlier)):
            raise SettingsError(problem)
        return value


def _flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("", "0", "false", "no", "off"):
        return False
    if lowered in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"must be 1/true/yes/on or 0/false/no/off, not {text!r}")


def _schedule(text: str) -> tuple[int, ...]:
    try:
        delays = tuple(int(part) for part in text.split(","))
    except ValueError:
        delays = ()
    if not delays or any(d < 0 for d in delays):
        raise ValueError(f"must be comma-separated whole seconds such as 60,300,1800,7200,21600, not {text!r}")
    return delays


def _log_format(text: str) -> str:
    lowered = text.strip().lower()
    if lowered in ("", "text"):
        return "text"
    if lowered == "json":
        return "json"
    raise ValueError(f"must be text or json, not {text!r}")


METRICS_TOKEN_MIN = 16


def _metrics_token(text: str) -> str | None:
    """A token fit for a header (printable ASCII, no spaces), long enough not to be guessed."""
    if not text:
        return None
    if not (text.isascii() and text.isprintable()) or " " in text or len(text) < METRICS_TOKEN_MIN:
        # The value itself is never quoted: it is a secret.
        raise ValueError(
            f"must be at least {METRICS_TOKEN_MIN} printable ASCII characters without spaces "
            "(e.g. the output of `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    return text


def _split(text: str) -> SplitResult | None:
    """The parts of a URL, or None when urlsplit or its port cannot make sense of it."""
    try:
        parts = urlsplit(text)
        parts.port  # raises ValueError for a port that is not a number in 0..65535
    except ValueError:
        return None
    return parts


def _http_url(text: str) -> str:
    parts = _split(text)
    if (
        parts is None or parts.scheme not in ("http", "https") or not parts.hostname
        or parts.query or parts.fragment
    ):
        raise ValueError(f"must be an absolute http(s) URL such as https://fanout.example.com, not {text!r}")
    return text.rstrip("/")


def _database_url(text: str) -> str:
    parts = _split(text)
    scheme = parts.scheme if parts else None
    if scheme == "sqlite":
        if not text.startswith("sqlite:///") or text == "sqlite:///" or ":memory:" in text:
            raise ValueError(f"must name a SQLite file (sqlite:///path/to/fanout.db), not {text!r}")
        return text
    if scheme in ("postgres", "postgresql"):
        if not parts.path.strip("/"):
            raise ValueError(f"must name a database (postgresql://user@host:5432/name), not {text!r}")
        return text
    raise ValueError(f"must start with sqlite:/// or postgresql://, not {text!r}")


def _shared_store_url(example_file: str) -> Callable[[str], str]:
    """A SQLite file or a Redis URL: a store every process reaches, never one in memory."""

    def parse(text: str) -> str:
        parts = _split(text)
        scheme = parts.scheme if parts else None
        if scheme == "sqlite" and text.startswith("sqlite:///") and text != "sqlite:///" and ":memory:" not in text:
            return text
        if scheme in ("redis", "rediss"):
            return text
        raise ValueError(f"must be sqlite:///path/to/{example_file} or redis://host:6379/0, not {text!r}")

    return parse


def _in_data_dir(name: str) -> Callable[[Earlier], str]:
    return lambda earlier: f"sqlite:///{earlier('data_dir') / name}"


def _limiter_default(earlier: Earlier) -> str:
    # Every API process must count in the same place, so the default follows the queue: on
    # Redis when the queue is (several machines), in the data folder otherwise (one machine).
    queue_url = earlier("queue_url")
    return queue_url if queue_url.startswith(("redis://", "rediss://")) else _in_data_dir("limiter.db")(earlier)


def _longer_than_a_heartbeat(stale: int, earlier: Earlier) -> str | None:
    interval = earlier("heartbeat_interval")
    if stale > interval:
        return None
    return (f"FANOUT_HEARTBEAT_STALE ({stale} s) must be longer than FANOUT_HEARTBEAT_INTERVAL ({interval} s), "
            "or every worker would look stale between two heartbeats")


# In the order they are read: a default that follows other settings comes after them, and
# of two bad values the first here is the one named.
CORE: tuple[CoreSetting, ...] = (
    CoreSetting("FANOUT_DATA_DIR", "data_dir", "the folder of the SQLite files, the generated key and the metrics",
                lambda text: Path(text).expanduser().resolve(), default="./var", spaces_unset=False),
    CoreSetting("FANOUT_BASE_URL", "base_url", "the API's public address, in the links it hands out",
                _http_url, default="http://127.0.0.1:8000", spaces_unset=False,
                # `serve` and `api` without it set it to where they listen (fanout/cli.py).
                unset="`http://HOST:PORT` of `serve`/`api`; `http://127.0.0.1:8000` elsewhere"),
    CoreSetting("FANOUT_CONNECT_URL", "connect_url", "the connect pages' public address",
                _http_url, follows=lambda earlier: earlier("base_url"), unset="the base URL", spaces_unset=False),
    CoreSetting("FANOUT_QUEUE_URL", "queue_url", "the Huey task queue: a SQLite file or Redis",
                _shared_store_url("queue.db"), follows=_in_data_dir("queue.db"),
                unset="`sqlite:///$FANOUT_DATA_DIR/queue.db`", spaces_unset=False),
    CoreSetting("FANOUT_DATABASE_URL", "database_url", "the database: a SQLite file or PostgreSQL",
                _database_url, follows=_in_data_dir("fanout.db"),
                unset="`sqlite:///$FANOUT_DATA_DIR/fanout.db`", spaces_unset=False),
    CoreSetting("FANOUT_SECRET_KEY", "secret_key", "the Fernet keys that encrypt secrets at rest (fanout/security/crypto.py)",
                lambda text: text or None, unset="generated", spaces_unset=False),
    CoreSetting("FANOUT_INSECURE_URLS", "insecure_urls", "allow http and private addresses, for development only",
                _flag, unset="off"),
    CoreSetting("FANOUT_WEBHOOK_RETRY_SCHEDULE", "webhook_retry_schedule",
                "seconds between webhook attempts (docs/decisions.md#deliveries-and-retries)",
                _schedule, default="60,300,1800,7200,21600"),
    CoreSetting("FANOUT_PUBLISH_LEASE", "publish_lease", "seconds a worker may hold a target in one publishing step",
                WholeNumber("seconds"), default="300"),
    CoreSetting("FANOUT_SANDBOX_LATENCY", "sandbox_latency", "seconds each simulated platform call of the sandbox takes",
                Number("seconds", 0, 60), default="0"),
    CoreSetting("FANOUT_DELIVERY_SLOTS", "delivery_slots", "threads a worker process sends webhook attempts on",
                WholeNumber("threads", 256), default="16"),
    CoreSetting("FANOUT_EVENT_RETENTION_DAYS", "event_retention_days", "days the events log keeps an event",
                WholeNumber("days", 3650), default="30"),
    CoreSetting("FANOUT_LIMITER_URL", "limiter_url", "where requests per minute are counted, shared by every API process",
                _shared_store_url("limiter.db"), follows=_limiter_default,
                unset="the queue's Redis, else `sqlite:///$FANOUT_DATA_DIR/limiter.db`"),
    CoreSetting("FANOUT_MAX_BODY_BYTES", "max_body_bytes", "the largest request body, refused with 413 past it",
                WholeNumber("bytes"), default=str(1024 * 1024)),
    CoreSetting("FANOUT_LOG_FORMAT", "log_format", "text or json, for every log record", _log_format, default="text"),
    CoreSetting("FANOUT_HEARTBEAT_INTERVAL", "heartbeat_interval", "seconds between a worker's heartbeats",
                WholeNumber("seconds", 3600), default="10"),
    CoreSetting("FANOUT_HEARTBEAT_STALE", "heartbeat_stale", "seconds after which /readyz calls the newest heartbeat stale",
                WholeNumber("seconds", 86400), follows=lambda earlier: str(3 * earlier("heartbeat_interval")),
                unset="3 × the interval", check=_longer_than_a_heartbeat),
    CoreSetting("FANOUT_METRICS_TOKEN", "metrics_token", "the bearer token GET /metrics requires",
                _metrics_token, unset="unset: open", spaces_unset=False),
    CoreSetting("FANOUT_PLATFORM_HOSTS", "platform_hosts", "host=base_url pairs that redirect platform calls (emulators)",
                parse_hosts, unset="unset"),
)
NAMED = {setting.name: setting for setting in CORE}
FILLING = {setting.field: setting for setting in CORE}


def unset(field: str) -> Any:
    """The value of the setting filling `field` when no variable is set: `Settings`' defaults."""
    return FILLING[field].read({}, unset)
