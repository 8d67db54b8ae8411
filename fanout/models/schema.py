"""Schema creation and upgrades: numbered files in fanout/migrations, applied in order."""
from __future__ import annotations

from pathlib import Path

from playhouse.migrations import Runner

from .db import db

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def runner() -> Runner:
    return Runner(db.obj, directory=str(MIGRATIONS))


def migrate() -> list[str]:
    """Apply pending migrations; returns their names."""
    with db.connection_context():
        return runner().up()


def pending() -> list[str]:
    with db.connection_context():
        return [m.name for m in runner().status() if not m.applied]
