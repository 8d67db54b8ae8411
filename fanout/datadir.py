"""The data folder is private: folders Fanout creates are 0700 and its files 0600.

Every store that keeps a file (the SQLite database, the SQLite queue, the rate limit
counts, the generated key) gets its path from `private_file`, which creates the file
before SQLite opens it: SQLite gives a database's -wal, -shm and -journal files the
database file's mode, so they are private too, whatever the process umask.

A folder that already exists keeps its mode, since an operator may have chosen it for a
reason; if others can enter it, a warning says so once. One that others can write to is
refused (`UnsafeDataFolder`): whoever can write there can replace the key or a database
(README "Security notes"). `secret.key` is made private at start like the database files.
"""
from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from .problems import UnsafeDataFolder

log = logging.getLogger(__name__)

FOLDER_MODE = 0o700
FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")

_warned: set[Path] = set()


def private_folder(path: Path) -> Path:
    """`path` as a folder, created 0700 (with any missing parents) if it does not exist.

    Raises UnsafeDataFolder if it exists and users other than its owner may write to it.
    """
    path = Path(path)
    try:
        path.mkdir(mode=FOLDER_MODE, parents=True)
    except FileExistsError:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o022:
            # Refused rather than changed: the operator made it so, and must judge what
            # may already have been put there.
            raise UnsafeDataFolder(
                f"the data folder {path} has mode {mode:04o}: users other than its owner can write to it, "
                f"so they could replace the encryption key or a database; `chmod go-w {path}` "
                f"(or `chmod 700 {path}`) and check what it holds before starting again"
            )
        if mode & 0o077 and path not in _warned:
            _warned.add(path)
            log.warning(
                "the data folder %s has mode %04o, so other users can see which files it holds "
                "(the files themselves are private); `chmod 700 %s` if that is not intended", path, mode, path,
            )
    else:
        # mkdir's mode is cut by the umask; the folder must be 0700 whatever that is.
        os.chmod(path, FOLDER_MODE)
    return path


def private_file(path: Path) -> Path:
    """`path` as an existing file (empty if new) that only this user can read or write.

    Files an older version left readable by others (and their SQLite side files) are made
    private, with a warning.
    """
    path = Path(path)
    private_folder(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        for existing in [path, *(path.with_name(path.name + side) for side in SQLITE_SIDE_FILES)]:
            make_private(existing)
    return path


def make_private(path: Path) -> None:
    """Make `path`, if it exists, readable and writable by this user only, with a warning."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return
    if mode & 0o077:
        try:
            os.chmod(path, FILE_MODE)
        except OSError as e:
            log.warning("%s is readable by others (mode %04o) and could not be made private: %s", path, mode, e)
        else:
            log.warning("%s was readable by others (mode %04o); it is now %04o", path, mode, FILE_MODE)
