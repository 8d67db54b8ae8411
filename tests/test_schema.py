"""Schema creation and upgrades (`fanout migrate`)."""
import pytest
from playhouse.schema_diff import diff_models

from fanout.models import MODELS, db
from fanout.models.db import is_sqlite
from fanout.models.schema import migrate, pending


def test_migrations_build_exactly_the_schema_the_models_describe(rt):
    with db.connection_context():
        drift = diff_models(db.obj, MODELS)
    assert not drift, f"models and migrations disagree: {drift}"


def test_migrate_twice_applies_nothing_the_second_time(rt):
    assert migrate() == []
    assert pending() == []


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(rt):
    if not is_sqlite():
        pytest.skip("WAL mode and busy_timeout are SQLite pragmas; PostgreSQL has neither")
    with db.connection_context():
        assert db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute_sql("PRAGMA busy_timeout").fetchone()[0] >= 5000
        assert db.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
