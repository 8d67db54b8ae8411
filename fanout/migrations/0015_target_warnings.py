"""What a platform did differently from what was asked, on a published target (a YouTube
upload locked to private): openapi.yaml `Target.warnings`."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        migrator.add_column('target', 'warnings', TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('target', 'warnings'),
    )
