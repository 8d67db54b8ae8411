"""UTC time as the service stores and shows it."""
from __future__ import annotations

import datetime as _dt
import re

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


# RFC 3339 `date-time` (section 5.6): `T` and `Z` in either case, seconds required, a
# fraction optional, and an offset required.
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?")


def parse_timestamp(value: str) -> _dt.datetime:
    """An RFC 3339 date-time with its offset, as an aware datetime; ValueError saying what
    to send instead. The one rule for every date-time a client sends: the schemas' `format:
    date-time` (fanout/http/messages.py) and `scheduled_at` (fanout/models/upload.py)."""
    shown = repr(value[:40])
    found = _RFC3339.fullmatch(value)
    if found is None:
        raise ValueError(f"{shown} is not an RFC 3339 date-time; send one such as '2026-11-22T10:04:05Z' "
                         f"or '2026-11-22T11:04:05+01:00'")
    if found.group(8) is None:
        raise ValueError(f"{shown} has no offset; add Z for UTC or an offset such as +01:00 (e.g. {value[:40] + 'Z'!r})")
    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    fraction = found.group(7) or ""
    zone = found.group(8).upper()
    if zone != "Z" and (int(zone[1:3]) > 23 or int(zone[4:6]) > 59):
        raise ValueError(f"{shown} has an offset that does not exist ({zone}); offsets run from -23:59 to +23:59")
    offset = _dt.timedelta(0) if zone == "Z" else int(zone[0] + "1") * _dt.timedelta(
        hours=int(zone[1:3]), minutes=int(zone[4:6]))
    try:
        return _dt.datetime(year, month, day, hour, minute, second, int((fraction[1:] + "000000")[:6]),
                            tzinfo=_dt.timezone(offset))
    except ValueError as e:
        raise ValueError(f"{shown} is not a date-time that exists ({e})") from None
