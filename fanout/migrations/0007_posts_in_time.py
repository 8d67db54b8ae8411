"""Posts in time: a post's scheduled time, and when each target may be claimed and was woken for."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        # When the post publishes; null: at once.
        migrator.add_column('post', 'scheduled_at', DateTimeField(null=True)),
        # When the target may be claimed (the post's scheduled time, or its creation), and
        # the due time a wake-up task was last enqueued for (null: none yet).
        migrator.add_column('target', 'due_at', DateTimeField(null=True)),
        migrator.add_column('target', 'wake_at', DateTimeField(null=True)),
        migrator.add_index('target', ('status', 'due_at'), False),
    )
    # The targets made before: due (and woken) when they were last changed.
    db.execute_sql('UPDATE target SET due_at = updated_at, wake_at = updated_at')


def down(migrator, db):
    migrator.migrate(
        migrator.drop_index('target', 'target_status_due_at'),
        migrator.drop_column('target', 'wake_at'),
        migrator.drop_column('target', 'due_at'),
        migrator.drop_column('post', 'scheduled_at'),
    )
