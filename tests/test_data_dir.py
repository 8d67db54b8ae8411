"""The data folder and every file in it are private to the user running Fanout."""
import logging
import stat
import time

from fanout.app import boot
from fanout.datadir import private_file
from fanout.models import db
from fanout.models.schema import migrate
from fanout.ratelimit import open_store
from fanout.settings import Settings

from .conftest import EXTERNAL_DATABASE_URL, EXTERNAL_QUEUE_URL


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
