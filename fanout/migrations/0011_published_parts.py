"""The parts of a thread that are out, on its target (openapi.yaml `Target.published_parts`)."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        # JSON: the parts' permalinks in order (null for one out without a known permalink).
        migrator.add_column('target', 'published_parts', TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('target', 'published_parts'),
    )
