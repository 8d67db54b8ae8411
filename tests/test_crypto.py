"""Encryption at rest (fanout/crypto.py): Keyring, key parsing and the key file."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from fanout.crypto import KEY_FILE, Keyring, load_keyring, parse_keys
from fanout.settings import Settings, SettingsError

OLD_KEY = b"hTMUhjRO0RYW8h_LA-g_S9tTbcf3G_9pGxvX0fl-plA="
NEW_KEY = b"q9bZ2V3l0b1n3V5mI1m8Yb2Pj4ZxG7d8sE5wT0kL9aE="
OTHER_KEY = b"Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE="
PLAINTEXT = "EAAG-platform-access-token-1234567890"


def make_settings(data_dir: Path, secret_key: str | None = None) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=f"sqlite:///{data_dir / 'fanout.db'}",
        queue_url=f"sqlite:///{data_dir / 'queue.db'}",
        limiter_url=f"sqlite:///{data_dir / 'limiter.db'}",
        base_url="http://127.0.0.1:8000",
        connect_url="http://127.0.0.1:8000",
        secret_key=secret_key,
    )


# --- Keyring ----------------------------------------------------------------------------


def test_keyring_decrypts_what_it_encrypted():
    keyring = Keyring([OLD_KEY])
    assert keyring.decrypt(keyring.encrypt(PLAINTEXT)) == PLAINTEXT


@pytest.mark.parametrize("text", ["", "x", "émoji 🎉 and ünïcode", "a" * 10_000])
def test_keyring_round_trips_any_text(text):
    keyring = Keyring([OLD_KEY])
    assert keyring.decrypt(keyring.encrypt(text)) == text


def test_ciphertext_does_not_contain_the_plaintext():
    token = Keyring([OLD_KEY]).encrypt(PLAINTEXT)
    assert PLAINTEXT not in token
    assert "platform-access-token" not in token


def test_encrypting_the_same_text_twice_gives_different_ciphertexts():
    keyring = Keyring([OLD_KEY])
    assert keyring.encrypt(PLAINTEXT) != keyring.encrypt(PLAINTEXT)


def test_ciphertext_is_a_printable_string():
    token = Keyring([OLD_KEY]).encrypt(PLAINTEXT)
    assert isinstance(token, str)
    assert token.isascii() and token.isprintable()


def test_rotated_keyring_decrypts_what_the_old_key_encrypted():
    token = Keyring([OLD_KEY]).encrypt(PLAINTEXT)
    assert Keyring([NEW_KEY, OLD_KEY]).decrypt(token) == PLAINTEXT


def test_rotated_keyring_encrypts_with_the_new_key():
    token = Keyring([NEW_KEY, OLD_KEY]).encrypt(PLAINTEXT)
    assert Keyring([NEW_KEY]).decrypt(token) == PLAINTEXT
    with pytest.raises(ValueError):
        Keyring([OLD_KEY]).decrypt(token)


def test_decrypt_with_an_unknown_key_raises_a_clear_value_error():
    token = Keyring([OLD_KEY]).encrypt(PLAINTEXT)
    with pytest.raises(ValueError, match="cannot decrypt: encrypted with a key that is not in FANOUT_SECRET_KEY"):
        Keyring([OTHER_KEY]).decrypt(token)


@pytest.mark.parametrize("token", ["", "not a token", "gAAAAA", "é"])
def test_decrypt_of_garbage_raises_value_error(token):
    with pytest.raises(ValueError, match="cannot decrypt"):
        Keyring([OLD_KEY]).decrypt(token)


def test_decrypt_of_a_tampered_token_raises_value_error():
    token = Keyring([OLD_KEY]).encrypt(PLAINTEXT)
    tampered = token[:20] + ("A" if token[20] != "A" else "B") + token[21:]
    with pytest.raises(ValueError, match="cannot decrypt"):
        Keyring([OLD_KEY]).decrypt(tampered)


def test_keyring_without_keys_is_a_settings_error():
    with pytest.raises(SettingsError):
        Keyring([])


# --- parse_keys -------------------------------------------------------------------------


def test_parse_keys_reads_one_key():
    assert parse_keys(OLD_KEY.decode()) == [OLD_KEY]


def test_parse_keys_reads_comma_separated_keys_in_order_and_strips_spaces():
    assert parse_keys(f" {NEW_KEY.decode()} , {OLD_KEY.decode()} ") == [NEW_KEY, OLD_KEY]


def test_parse_keys_accepts_a_freshly_generated_fernet_key():
    key = Fernet.generate_key()
    assert parse_keys(key.decode()) == [key]


@pytest.mark.parametrize(
    "value",
    [
        "",
        "hunter2",
        "not a key at all",
        "a" * 44,
        OLD_KEY.decode()[:-4],
        OLD_KEY.decode() + "AAAA",
        f"{OLD_KEY.decode()},",
        f"{OLD_KEY.decode()},garbage",
        f"{OLD_KEY.decode()};{NEW_KEY.decode()}",
    ],
)
def test_parse_keys_rejects_garbage_naming_the_setting(value):
    with pytest.raises(SettingsError, match="FANOUT_SECRET_KEY"):
        parse_keys(value)


def test_parse_keys_error_does_not_echo_the_value():
    # The value may be a real key with a typo; it must not end up in logs.
    with pytest.raises(SettingsError) as info:
        parse_keys(OLD_KEY.decode()[:-4])
    assert OLD_KEY.decode()[:-4] not in str(info.value)


# --- load_keyring -----------------------------------------------------------------------


def test_load_keyring_without_a_secret_key_creates_a_key_file_in_the_data_dir(tmp_path):
    load_keyring(make_settings(tmp_path))
    key_file = tmp_path / KEY_FILE
    assert key_file == tmp_path / "secret.key"
    assert parse_keys(key_file.read_text().strip())


def test_generated_key_file_is_readable_by_the_owner_only(tmp_path):
    load_keyring(make_settings(tmp_path))
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600


def test_generated_key_file_leaves_no_temporary_file_behind(tmp_path):
    load_keyring(make_settings(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE]


def test_load_keyring_creates_a_missing_data_dir(tmp_path):
    data_dir = tmp_path / "nested" / "var"
    load_keyring(make_settings(data_dir))
    assert (data_dir / KEY_FILE).is_file()


def test_load_keyring_reuses_the_key_file_on_the_next_call(tmp_path):
    settings = make_settings(tmp_path)
    first = load_keyring(settings)
    key_before = (tmp_path / KEY_FILE).read_bytes()
    second = load_keyring(settings)
    assert (tmp_path / KEY_FILE).read_bytes() == key_before
    assert second.decrypt(first.encrypt(PLAINTEXT)) == PLAINTEXT


def test_load_keyring_uses_an_existing_key_file(tmp_path):
    (tmp_path / KEY_FILE).write_bytes(OLD_KEY + b"\n")
    keyring = load_keyring(make_settings(tmp_path))
    assert Keyring([OLD_KEY]).decrypt(keyring.encrypt(PLAINTEXT)) == PLAINTEXT


def test_load_keyring_with_a_corrupt_key_file_is_a_settings_error(tmp_path):
    (tmp_path / KEY_FILE).write_text("garbage\n")
    with pytest.raises(SettingsError, match="FANOUT_SECRET_KEY"):
        load_keyring(make_settings(tmp_path))


def test_load_keyring_with_a_secret_key_uses_it(tmp_path):
    keyring = load_keyring(make_settings(tmp_path, secret_key=OLD_KEY.decode()))
    assert Keyring([OLD_KEY]).decrypt(keyring.encrypt(PLAINTEXT)) == PLAINTEXT


def test_load_keyring_with_a_secret_key_writes_no_file(tmp_path):
    load_keyring(make_settings(tmp_path, secret_key=OLD_KEY.decode()))
    assert list(tmp_path.iterdir()) == []


def test_load_keyring_with_a_secret_key_ignores_an_existing_key_file(tmp_path):
    (tmp_path / KEY_FILE).write_bytes(OTHER_KEY)
    keyring = load_keyring(make_settings(tmp_path, secret_key=OLD_KEY.decode()))
    with pytest.raises(ValueError):
        Keyring([OTHER_KEY]).decrypt(keyring.encrypt(PLAINTEXT))


def test_load_keyring_with_rotated_secret_keys_decrypts_old_and_encrypts_new(tmp_path):
    old_token = Keyring([OLD_KEY]).encrypt(PLAINTEXT)
    keyring = load_keyring(make_settings(tmp_path, secret_key=f"{NEW_KEY.decode()},{OLD_KEY.decode()}"))
    assert keyring.decrypt(old_token) == PLAINTEXT
    assert Keyring([NEW_KEY]).decrypt(keyring.encrypt(PLAINTEXT)) == PLAINTEXT


def test_load_keyring_with_a_bad_secret_key_is_a_settings_error(tmp_path):
    with pytest.raises(SettingsError, match="FANOUT_SECRET_KEY"):
        load_keyring(make_settings(tmp_path, secret_key="not-a-key"))
    assert not (tmp_path / KEY_FILE).exists()


def test_key_file_made_by_another_process_first_is_kept(tmp_path, monkeypatch):
    # Two processes starting at once: the one that links second keeps the first one's key.
    settings = make_settings(tmp_path)
    real_link = os.link

    def link_after_a_rival(src, dst):
        Path(dst).write_bytes(OLD_KEY)
        return real_link(src, dst)

    monkeypatch.setattr(os, "link", link_after_a_rival)
    keyring = load_keyring(settings)
    assert (tmp_path / KEY_FILE).read_bytes() == OLD_KEY
    assert Keyring([OLD_KEY]).decrypt(keyring.encrypt(PLAINTEXT)) == PLAINTEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE]


@pytest.mark.parametrize(
    "value",
    [
        f"!{OLD_KEY.decode()}",
        OLD_KEY.decode().replace("h", "h!", 1),
        OLD_KEY.decode().replace("_", "/"),
        OLD_KEY.decode().rstrip("="),
        f"{OLD_KEY.decode()}=",
    ],
)
def test_parse_keys_rejects_a_key_with_stray_or_missing_characters(value):
    # The lenient base64 decoder would skip these characters and find a 32-byte key anyway.
    with pytest.raises(SettingsError, match="FANOUT_SECRET_KEY"):
        parse_keys(value)


def test_parse_keys_accepts_every_generated_fernet_key():
    keys = [Fernet.generate_key() for _ in range(200)]
    assert parse_keys(",".join(k.decode() for k in keys)) == keys
