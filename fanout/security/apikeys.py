"""API key strings: format, checksum and hashing (docs/reliability.md#api-keys).

A key is `svc_live_` or `svc_sandbox_` followed by 50 base62 characters: a 12-character
lookup id (stored in clear, indexed), a 32-character secret (~190 bits; only a salted hash
is stored) and a 6-character CRC32 checksum, so typos and look-alikes are refused before
any database query.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import string
import zlib
from dataclasses import dataclass
from typing import Callable

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
PREFIXES = {"live": "svc_live_", "sandbox": "svc_sandbox_"}
LOOKUP_LEN, SECRET_LEN, CHECK_LEN = 12, 32, 6


@dataclass(frozen=True)
class ParsedKey:
    mode: str
    lookup: str
    secret: str


def random_base62(length: int, randbytes: Callable[[int], bytes] = os.urandom) -> str:
    out: list[str] = []
    while len(out) < length:
        # 248 = 4 * 62: rejecting higher bytes keeps every character equally likely.
        out.extend(BASE62[b % 62] for b in randbytes(length * 2) if b < 248)
    return "".join(out[:length])


def _checksum(text: str) -> str:
    value = zlib.crc32(text.encode())
    chars = []
    for _ in range(CHECK_LEN):
        value, digit = divmod(value, 62)
        chars.append(BASE62[digit])
    return "".join(reversed(chars))


def generate(mode: str, randbytes: Callable[[int], bytes] = os.urandom) -> tuple[str, ParsedKey]:
    """A new key string and its parts."""
    prefix = PREFIXES[mode]
    lookup = random_base62(LOOKUP_LEN, randbytes)
    secret = random_base62(SECRET_LEN, randbytes)
    body = lookup + secret
    return prefix + body + _checksum(prefix + body), ParsedKey(mode, lookup, secret)


def parse(key: str) -> ParsedKey | None:
    """The parts of a well-formed key, or None (wrong prefix, length, alphabet or checksum)."""
    for mode, prefix in PREFIXES.items():
        if key.startswith(prefix):
            break
    else:
        return None
    rest = key[len(prefix):]
    if len(rest) != LOOKUP_LEN + SECRET_LEN + CHECK_LEN or any(c not in BASE62 for c in rest):
        return None
    body, check = rest[:-CHECK_LEN], rest[-CHECK_LEN:]
    if not hmac.compare_digest(_checksum(prefix + body), check):
        return None
    return ParsedKey(mode, body[:LOOKUP_LEN], body[LOOKUP_LEN:])


def hash_secret(salt: bytes, secret: str) -> str:
    # The secret has ~190 random bits, so one keyed hash is enough; a slow KDF would only
    # add latency to every request (docs/reliability.md#api-keys).
    return hmac.new(salt, secret.encode(), hashlib.sha256).hexdigest()


def secret_matches(salt: bytes, secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(salt, secret), stored_hash)


def display_prefix(mode: str, lookup: str) -> str:
    """What lists and logs may show of a key: never the secret."""
    return f"{PREFIXES[mode]}{lookup}"
