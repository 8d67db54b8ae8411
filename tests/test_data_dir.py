"""The data folder and every file in it are private to the user running Fanout."""
import logging
import stat
import time

import pytest
from cryptography.fernet import Fernet

from fanout.app import boot
from fanout.datadir import private_file
from fanout.models import db
from fanout.models.schema import migrate
from fanout.ratelimit import open_store
from fanout.settings import Settings

from .conftest import EXTERNAL_DATABASE_URL, EXTERNAL_QUEUE_URL, free_port


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_is_0700_and_every_file_in_it_0600(tmp_path):
    data = tmp_path / "data"
    env = {"FANOUT_DATA_DIR": str(data)}
    if EXTERNAL_DATABASE_URL:
        env.update(FANOUT_DATABASE_URL=EXTERNAL_DATABASE_URL, FANOUT_QUEUE_URL=EXTERNAL_QUEUE_URL)
    settings = Settings.from_env(env)
    rt = boot(settings)  # opens the database and the queue, generates secret.key
    try:
        migrate()
        with db.connection_context():
            db.execute_sql("SELECT 1")  # the database's -wal and -shm exist while it is open
            rt.throttle.limiter.store.hit("ws", time.time(), 60, 10)
            files = {p.name: mode(p) for p in data.iterdir()}
    finally:
        db.close_all()
    expected = {"secret.key"} if EXTERNAL_DATABASE_URL else {
        "secret.key", "fanout.db", "fanout.db-wal", "fanout.db-shm", "queue.db", "limiter.db"}
    assert expected <= set(files)
    assert mode(data) == 0o700
    assert files == dict.fromkeys(files, 0o600)


def test_a_folder_that_already_exists_keeps_its_mode_with_a_warning(tmp_path, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    with caplog.at_level(logging.WARNING, "fanout.datadir"):
        store = open_store(f"sqlite:///{shared / 'limiter.db'}")
        store.hit("ws", time.time(), 60, 10)
        store.close()
    assert mode(shared) == 0o755
    assert mode(shared / "limiter.db") == 0o600
    assert f"chmod 700 {shared}" in caplog.text


def test_files_an_older_version_left_readable_are_made_private(tmp_path):
    old = tmp_path / "fanout.db"
    for path in (old, tmp_path / "fanout.db-wal"):
        path.touch()
        path.chmod(0o644)
    private_file(old)
    assert mode(old) == mode(tmp_path / "fanout.db-wal") == 0o600


def own_data_folder(cli, path):
    """`cli` with its data folder at `path` and the key kept there, not in FANOUT_SECRET_KEY."""
    cli.env["FANOUT_DATA_DIR"] = str(path)
    del cli.env["FANOUT_SECRET_KEY"]
    return path


def test_a_key_file_left_readable_by_others_is_made_private_at_start(cli, tmp_path):
    data = own_data_folder(cli, tmp_path / "data")
    data.mkdir(mode=0o700)
    key = data / "secret.key"
    key.write_bytes(Fernet.generate_key())
    key.chmod(0o644)
    cli("migrate")
    assert mode(key) == 0o600


@pytest.mark.parametrize("command, folder_mode", [
    ("migrate", 0o777), ("migrate", 0o770), ("migrate", 0o1777), ("serve", 0o757), ("worker", 0o707)],
    ids=lambda value: f"{value:04o}" if isinstance(value, int) else value)
def test_a_data_folder_others_can_write_to_is_refused_saying_how_to_fix_it(cli, tmp_path, command, folder_mode):
    data = own_data_folder(cli, tmp_path / "data")
    data.mkdir()
    data.chmod(folder_mode)
    args = ["--port", str(free_port())] if command == "serve" else []
    refused = cli(command, *args, check=False)
    assert refused.returncode == 1
    assert refused.stderr.splitlines()[-1].startswith(f"fanout: the data folder {data} has mode {folder_mode:04o}: ")
    assert f"`chmod go-w {data}`" in refused.stderr
    assert list(data.iterdir()) == []
