"""UTC time as the service stores and shows it (fanout/times.py)."""
from __future__ import annotations

import datetime as dt
import re

import pytest

from fanout.times import UTC, isoformat, to_epoch_ms, utcnow

SHAPE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def test_isoformat_gives_rfc3339_utc_with_milliseconds_and_z():
    assert isoformat(dt.datetime(2026, 11, 22, 10, 4, 5, 123000)) == "2026-11-22T10:04:05.123Z"


def test_isoformat_always_shows_three_millisecond_digits():
    assert isoformat(dt.datetime(2026, 1, 2, 3, 4, 5)) == "2026-01-02T03:04:05.000Z"
    assert isoformat(dt.datetime(2026, 1, 2, 3, 4, 5, 7000)) == "2026-01-02T03:04:05.007Z"


def test_isoformat_truncates_microseconds_rather_than_rounding():
    assert isoformat(dt.datetime(2026, 11, 22, 23, 59, 59, 999999)) == "2026-11-22T23:59:59.999Z"


def test_isoformat_of_an_aware_datetime_is_converted_to_utc():
    tokyo = dt.datetime(2026, 11, 22, 19, 4, 5, 123000, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    assert isoformat(tokyo) == "2026-11-22T10:04:05.123Z"


def test_isoformat_of_an_aware_datetime_can_move_the_date():
    new_york = dt.datetime(2026, 12, 31, 22, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert isoformat(new_york) == "2027-01-01T03:30:00.000Z"


def test_isoformat_of_an_aware_utc_datetime_matches_the_naive_one():
    naive = dt.datetime(2026, 11, 22, 10, 4, 5, 123000)
    assert isoformat(naive.replace(tzinfo=UTC)) == isoformat(naive)


def test_isoformat_of_none_is_none():
    assert isoformat(None) is None


def test_isoformat_of_utcnow_has_the_documented_shape():
    assert SHAPE.match(isoformat(utcnow()))


def test_utcnow_is_naive():
    assert utcnow().tzinfo is None


def test_utcnow_has_millisecond_precision():
    assert utcnow().microsecond % 1000 == 0


def test_utcnow_is_utc_not_local_time():
    before = dt.datetime.now(UTC).replace(tzinfo=None) - dt.timedelta(milliseconds=1)
    now = utcnow()
    after = dt.datetime.now(UTC).replace(tzinfo=None)
    assert before <= now <= after


@pytest.mark.parametrize(
    "value, expected",
    [
        (dt.datetime(1970, 1, 1), 0),
        (dt.datetime(1970, 1, 1, 0, 0, 1), 1000),
        (dt.datetime(1970, 1, 1, 0, 0, 0, 1999), 1),
        (dt.datetime(2026, 11, 22, 10, 4, 5, 123000), 1795341845123),
        (dt.datetime(2026, 11, 22, 19, 4, 5, 123000, tzinfo=dt.timezone(dt.timedelta(hours=9))), 1795341845123),
    ],
)
def test_to_epoch_ms_reads_naive_times_as_utc(value, expected):
    assert to_epoch_ms(value) == expected
