"""API key strings (fanout/security/apikeys.py): format, entropy, checksum, hashing.

Pins docs/decisions.md#api-keys and docs/reliability.md#api-keys.
"""
from __future__ import annotations

import itertools
import math
import random
import re

import pytest

from fanout.security import apikeys
from fanout.security.apikeys import BASE62, ParsedKey

KEY_PATTERN = re.compile(r"^svc_(live|sandbox)_[0-9A-Za-z]{50}$")
MODES = ("live", "sandbox")


def seeded_randbytes(seed: int):
    """A reproducible stand-in for os.urandom."""
    return random.Random(seed).randbytes


def bytes_from(values):
    """A randbytes that hands out `values` in order (then zeros), whatever size is asked for."""
    stream = itertools.chain(values, itertools.repeat(0))

    def randbytes(n: int) -> bytes:
        return bytes(next(stream) for _ in range(n))

    return randbytes


def random_keys(count: int, seed: int = 1234) -> list[str]:
    randbytes = seeded_randbytes(seed)
    return [apikeys.generate(MODES[i % 2], randbytes)[0] for i in range(count)]


# --- format ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_generated_key_matches_the_documented_format(mode):
    key, _ = apikeys.generate(mode)
    assert KEY_PATTERN.match(key)
    assert key.startswith(f"svc_{mode}_")


def test_generated_key_parts_are_lookup_secret_and_checksum_in_that_order():
    key, parts = apikeys.generate("live")
    body = key[len("svc_live_"):]
    assert body[:12] == parts.lookup
    assert body[12:44] == parts.secret
    assert len(body[44:]) == 6


def test_secret_part_carries_at_least_128_bits():
    _, parts = apikeys.generate("live")
    assert len(parts.secret) >= 32
    assert len(parts.secret) * math.log2(62) >= 128


def test_generated_keys_use_the_default_randomness_and_differ():
    keys = {apikeys.generate("live")[0] for _ in range(50)}
    assert len(keys) == 50


def test_generate_with_the_same_randbytes_gives_the_same_key():
    assert apikeys.generate("live", seeded_randbytes(7)) == apikeys.generate("live", seeded_randbytes(7))


# --- parse -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_parse_round_trips_generate(mode):
    key, parts = apikeys.generate(mode)
    assert apikeys.parse(key) == parts
    assert parts == ParsedKey(mode, parts.lookup, parts.secret)


def test_parse_round_trips_many_generated_keys():
    randbytes = seeded_randbytes(99)
    for i in range(200):
        key, parts = apikeys.generate(MODES[i % 2], randbytes)
        assert apikeys.parse(key) == parts


@pytest.mark.parametrize(
    "prefix",
    ["svc_test_", "sk_live_", "svc_LIVE_", "svc-live-", "svc_livex_", "svc_", "", "svc_sandbox", "Svc_live_"],
)
def test_key_with_a_wrong_prefix_is_refused(prefix):
    key, _ = apikeys.generate("live")
    assert apikeys.parse(prefix + key[len("svc_live_"):]) is None


def test_live_body_under_the_sandbox_prefix_is_refused():
    # The checksum covers the prefix, so a key cannot be switched between modes.
    key, _ = apikeys.generate("live")
    assert apikeys.parse("svc_sandbox_" + key[len("svc_live_"):]) is None


@pytest.mark.parametrize("change", ["drop_last", "drop_first_of_body", "append_char", "append_newline", "double"])
def test_key_with_the_wrong_length_is_refused(change):
    key, _ = apikeys.generate("sandbox")
    changed = {
        "drop_last": key[:-1],
        "drop_first_of_body": "svc_sandbox_" + key[len("svc_sandbox_") + 1:],
        "append_char": key + "a",
        "append_newline": key + "\n",
        "double": key + key[len("svc_sandbox_"):],
    }[change]
    assert apikeys.parse(changed) is None


@pytest.mark.parametrize("bad", ["-", "_", " ", "+", "/", "=", "é", "\x00", "０"])
def test_key_with_a_character_outside_base62_is_refused(bad):
    key, _ = apikeys.generate("live")
    position = len("svc_live_") + 20
    assert apikeys.parse(key[:position] + bad + key[position + 1:]) is None


@pytest.mark.parametrize("value", ["", "svc_live_", "svc_sandbox_", "Bearer svc_live_x", "x" * 60])
def test_obviously_malformed_strings_are_refused(value):
    assert apikeys.parse(value) is None


def test_key_with_one_character_changed_is_refused():
    key, _ = apikeys.generate("live", seeded_randbytes(3))
    position = len(key) - 10
    replacement = "a" if key[position] != "a" else "b"
    assert apikeys.parse(key[:position] + replacement + key[position + 1:]) is None


def test_every_single_character_substitution_is_refused_over_200_keys():
    # CRC32 catches every error burst of 32 bits or fewer, so 100 % of single-character
    # substitutions must be refused (docs/reliability.md#api-keys), in the prefix, body and checksum.
    accepted = []
    for key in random_keys(200):
        for position, original in enumerate(key):
            for replacement in BASE62 + "_":
                if replacement == original:
                    continue
                changed = key[:position] + replacement + key[position + 1:]
                if apikeys.parse(changed) is not None:
                    accepted.append(changed)
    assert accepted == []


def test_swapping_two_adjacent_different_characters_is_refused():
    refused = 0
    for key in random_keys(50, seed=5):
        start = key.index("_", 4) + 1
        for i in range(start, len(key) - 1):
            if key[i] == key[i + 1]:
                continue
            swapped = key[:i] + key[i + 1] + key[i] + key[i + 2:]
            assert apikeys.parse(swapped) is None
            refused += 1
    assert refused > 1000


# --- hashing -------------------------------------------------------------------------------


def test_hash_secret_is_salted():
    _, parts = apikeys.generate("live")
    assert apikeys.hash_secret(b"salt-one-16bytes", parts.secret) != apikeys.hash_secret(b"salt-two-16bytes", parts.secret)


def test_hash_secret_is_stable_for_one_salt_and_secret():
    assert apikeys.hash_secret(b"s" * 16, "secret") == apikeys.hash_secret(b"s" * 16, "secret")


def test_hash_secret_is_64_hex_characters_without_the_secret():
    _, parts = apikeys.generate("live")
    digest = apikeys.hash_secret(b"\x01" * 16, parts.secret)
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert parts.secret not in digest


def test_secret_matches_the_hash_stored_for_it():
    salt = b"\x02" * 16
    stored = apikeys.hash_secret(salt, "the-secret")
    assert apikeys.secret_matches(salt, "the-secret", stored)


def test_secret_with_one_character_changed_does_not_match():
    salt = b"\x02" * 16
    stored = apikeys.hash_secret(salt, "the-secret")
    assert not apikeys.secret_matches(salt, "the-secreT", stored)


def test_right_secret_with_another_salt_does_not_match():
    stored = apikeys.hash_secret(b"\x02" * 16, "the-secret")
    assert not apikeys.secret_matches(b"\x03" * 16, "the-secret", stored)


def test_secret_matches_compares_against_the_stored_hash_not_a_fresh_one():
    salt = b"\x04" * 16
    assert not apikeys.secret_matches(salt, "the-secret", "0" * 64)


# --- random_base62 ----------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 12, 32, 500])
def test_random_base62_gives_the_requested_length_of_base62(length):
    value = apikeys.random_base62(length)
    assert len(value) == length
    assert set(value) <= set(BASE62)


def test_random_base62_is_deterministic_with_a_fixed_randbytes():
    assert apikeys.random_base62(40, seeded_randbytes(11)) == apikeys.random_base62(40, seeded_randbytes(11))


def test_random_base62_maps_bytes_to_the_alphabet_modulo_62():
    randbytes = bytes_from([0, 61, 62, 123, 124, 247, 9, 10])
    assert apikeys.random_base62(8, randbytes) == "0z0z0z9A"


def test_random_base62_skips_bytes_that_would_bias_the_alphabet():
    # 248..255 would make the first eight characters more likely; they are dropped.
    randbytes = bytes_from([248, 255, 1, 250, 2, 3] + [0] * 100)
    assert apikeys.random_base62(3, randbytes) == "123"


def test_random_base62_asks_for_more_bytes_when_too_many_were_skipped():
    randbytes = bytes_from([255, 255, 255, 255] + [5] * 100)
    assert apikeys.random_base62(2, randbytes) == "55"


def test_random_base62_uses_every_character_of_the_alphabet():
    assert set(apikeys.random_base62(5000, seeded_randbytes(1))) == set(BASE62)


# --- display_prefix ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_display_prefix_is_the_mode_prefix_and_lookup_id(mode):
    key, parts = apikeys.generate(mode)
    assert apikeys.display_prefix(mode, parts.lookup) == f"svc_{mode}_{parts.lookup}"
    assert key.startswith(apikeys.display_prefix(mode, parts.lookup))


@pytest.mark.parametrize("seed", range(20))
def test_display_prefix_never_contains_the_secret(seed):
    key, parts = apikeys.generate(MODES[seed % 2], seeded_randbytes(seed))
    shown = apikeys.display_prefix(parts.mode, parts.lookup)
    assert parts.secret not in shown
    assert parts.secret[:8] not in shown
    assert key not in shown
