"""UTC time as the service stores and shows it."""
from __future__ import annotations

import datetime as _dt

UTC = _dt.timezone.utc
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)


def utcnow() -> _dt.datetime:
    """Naive UTC now, truncated to milliseconds (what the API can show)."""
    now = _dt.datetime.now(UTC).replace(tzinfo=None)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def isoformat(value: _dt.datetime | None) -> str | None:
    """RFC 3339 UTC with milliseconds and `Z`, e.g. 2026-11-22T10:04:05.123Z."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def to_epoch_ms(value: _dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    # Integer arithmetic: float seconds * 1000 can land a millisecond short.
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def parse_isoformat(value: str | None) -> _dt.datetime | None:
    """What `isoformat` wrote, back as a naive UTC datetime."""
    if value is None:
        return None
    return _dt.datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC).replace(tzinfo=None)
