"""Encryption at rest (fanout/security/crypto.py): Keyring, key parsing and the key file."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from fanout.security.crypto import KEY_FILE, Keyring, load_keyring, parse_keys
from fanout.settings import Settings, SettingsError

OLD_KEY = b"hTMUhjRO0RYW8h_LA-g_S9tTbcf3G_9pGxvX0fl-plA="
NEW_KEY = b"q9bZ2V3l0b1n3V5mI1m8Yb2Pj4ZxG7d8sE5wT0kL9aE="
OTHER_KEY = b"Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE="
PLAINTEXT = "EAAG-platform-access-token-1234567890"


def make_settings(data_dir: Path, secret_key: str | None = None) -> Settings:
    """The settings a server with this data folder (and FANOUT_SECRET_KEY) reads."""
    env = {"FANOUT_DATA_DIR": str(data_dir)}
    if secret_key is not None:
        env["FANOUT_SECRET_KEY"] = secret_key
    return Settings.from_env(env)


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
