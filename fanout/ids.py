"""Opaque, prefixed, time-sortable ids: `acc_` + a 26-character ULID."""
from __future__ import annotations

import datetime as _dt
import os
from typing import Callable

from .times import to_epoch_ms

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
PREFIXES = ("ws", "key", "acc", "post", "tgt", "wh", "evt", "dlv", "cs", "req", "wkr", "app")


def new_id(prefix: str, now: _dt.datetime, randbytes: Callable[[int], bytes] = os.urandom) -> str:
    """48 bits of milliseconds then 80 random bits, so ids sort by creation time."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown id prefix {prefix!r}")
    value = (to_epoch_ms(now) << 80) | int.from_bytes(randbytes(10), "big")
    chars = []
    for _ in range(26):
        chars.append(CROCKFORD[value & 31])
        value >>= 5
    return f"{prefix}_{''.join(reversed(chars))}"


def is_id(value: str, prefix: str) -> bool:
    """Whether `value` has the shape of a `prefix` id; a value that does not names nothing."""
    body = value.removeprefix(f"{prefix}_")
    return len(body) == 26 and body != value and all(c in CROCKFORD for c in body)
