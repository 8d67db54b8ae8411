"""Encryption at rest for platform tokens and webhook secrets."""
from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from ..datadir import make_private, private_folder
from ..settings import Settings, SettingsError

log = logging.getLogger(__name__)
KEY_FILE = "secret.key"


class Keyring:
    """Encrypts with the first key, decrypts with any (so keys can be rotated)."""

    def __init__(self, keys: list[bytes]):
        if not keys:
            raise SettingsError("at least one encryption key is needed")
        self._fernet = MultiFernet([Fernet(key) for key in keys])

    def encrypt(self, text: str) -> str:
        return self._fernet.encrypt(text.encode()).decode()

    def decrypt(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except InvalidToken:
            raise ValueError("cannot decrypt: encrypted with a key that is not in FANOUT_SECRET_KEY") from None


# A Fernet key is 32 bytes in url-safe base64: 43 characters and one "=". Checked by shape,
# because base64.urlsafe_b64decode skips characters outside the alphabet and stops at the
# first "=", so "new;old", "key=junk" or "!key" would otherwise pass as one valid key.
_FERNET_KEY = re.compile(r"[A-Za-z0-9_-]{43}=")


def parse_keys(value: str) -> list[bytes]:
    keys = []
    for part in (p.strip() for p in value.split(",")):
        if not _FERNET_KEY.fullmatch(part):
            raise SettingsError(
                "FANOUT_SECRET_KEY must be one or more comma-separated Fernet keys (32 url-safe base64 bytes; "
                "make one with `python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`)"
            )
        keys.append(part.encode())
    return keys


def load_keyring(settings: Settings) -> Keyring:
    """FANOUT_SECRET_KEY, or a key kept in the data folder (made with mode 600 on first run).

    A key file left readable by others is made 600 again, even beside FANOUT_SECRET_KEY:
    it may still decrypt what it encrypted before the key moved.
    """
    path = Path(settings.data_dir) / KEY_FILE
    if path.exists():
        private_folder(path.parent)  # refused if others could have replaced the key
        make_private(path)
    if settings.secret_key:
        return Keyring(parse_keys(settings.secret_key))
    if not path.exists():
        _create_key_file(path)
    return Keyring(parse_keys(path.read_text().strip()))


def _create_key_file(path: Path) -> None:
    # Written aside and linked into place, so a process starting at the same moment
    # sees either no file or a whole key, never half of one.
    private_folder(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(Fernet.generate_key())
    try:
        os.link(tmp, path)
        log.info("generated an encryption key in %s; back it up with the database", path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
