"""Opaque, prefixed, time-sortable ids (fanout/ids.py)."""
from __future__ import annotations

import datetime as dt
import random
import re

import pytest

from fanout.ids import CROCKFORD, PREFIXES, new_id

T0 = dt.datetime(2026, 11, 22, 10, 4, 5, 123000)
EPOCH = dt.datetime(1970, 1, 1)
ID_PATTERN = re.compile(r"^(?P<prefix>[a-z]+)_(?P<body>[0-9A-HJKMNP-TV-Z]{26})$")


def zeros(n: int) -> bytes:
    return bytes(n)


def ones(n: int) -> bytes:
    return b"\xff" * n


def decode(body: str) -> int:
    """Crockford base32, written independently of fanout.ids."""
    value = 0
    for char in body:
        value = value * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".index(char)
    return value


def epoch_ms(value: dt.datetime) -> int:
    return (value - EPOCH) // dt.timedelta(milliseconds=1)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_id_is_the_prefix_an_underscore_and_26_crockford_characters(prefix):
    match = ID_PATTERN.match(new_id(prefix, T0))
    assert match is not None
    assert match["prefix"] == prefix


def test_decisions_md_prefixes_are_all_known():
    assert {"ws", "key", "acc", "post", "tgt", "wh", "evt", "dlv"} <= set(PREFIXES)


def test_crockford_alphabet_leaves_out_i_l_o_u_and_is_in_ascii_order():
    assert len(CROCKFORD) == 32
    assert not set("ILOU") & set(CROCKFORD)
    assert list(CROCKFORD) == sorted(CROCKFORD)


@pytest.mark.parametrize("prefix", ["", "user", "ACC", "acc_", "Acc", "post ", "x"])
def test_unknown_prefix_raises_value_error(prefix):
    with pytest.raises(ValueError, match="unknown id prefix"):
        new_id(prefix, T0)


def test_id_is_deterministic_with_a_fixed_randbytes():
    assert new_id("acc", T0, zeros) == new_id("acc", T0, zeros)


def test_id_is_the_milliseconds_then_the_random_bytes():
    randbytes = random.Random(42).randbytes
    expected_random = int.from_bytes(random.Random(42).randbytes(10), "big")
    body = new_id("post", T0, randbytes)[len("post_"):]
    assert decode(body) == (epoch_ms(T0) << 80) | expected_random


def test_first_ten_characters_encode_the_time_and_the_last_sixteen_the_randomness():
    low, high = new_id("evt", T0, zeros), new_id("evt", T0, ones)
    assert low[4:14] == high[4:14]
    assert low[14:] == "0" * 16
    assert high[14:] == "Z" * 16


def test_id_at_the_unix_epoch_has_an_all_zero_time_part():
    assert new_id("ws", EPOCH, zeros) == "ws_" + "0" * 26


def test_naive_and_aware_utc_times_give_the_same_id():
    aware = T0.replace(tzinfo=dt.timezone.utc)
    assert new_id("acc", aware, zeros) == new_id("acc", T0, zeros)


def test_aware_time_in_another_zone_is_read_as_the_same_instant():
    paris = T0.replace(tzinfo=dt.timezone.utc).astimezone(dt.timezone(dt.timedelta(hours=1)))
    assert new_id("acc", paris, zeros) == new_id("acc", T0, zeros)


def test_id_made_one_millisecond_later_sorts_after_even_with_smaller_randomness():
    earlier = new_id("post", T0, ones)
    later = new_id("post", T0 + dt.timedelta(milliseconds=1), zeros)
    assert earlier < later


def test_ids_made_at_later_milliseconds_sort_after_earlier_ones():
    rng = random.Random(7)
    times = [T0 + dt.timedelta(milliseconds=ms) for ms in range(0, 5000, 3)]
    times += [T0 + dt.timedelta(days=d) for d in range(1, 400, 37)]
    ids = [new_id("tgt", t, rng.randbytes) for t in times]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_ids_within_one_millisecond_differ_by_their_randomness():
    ids = {new_id("dlv", T0) for _ in range(1000)}
    assert len(ids) == 1000


def test_sub_millisecond_part_of_the_time_is_ignored():
    assert new_id("acc", T0.replace(microsecond=123999), zeros) == new_id("acc", T0, zeros)
