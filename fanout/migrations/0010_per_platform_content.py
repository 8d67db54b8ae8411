"""Per-platform content: a post's overrides, and why a target's first comment failed."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        # By platform (JSON): caption, media, options, thread, first_comment.
        migrator.add_column('post', 'overrides', TextField(null=True)),
        migrator.add_column('target', 'first_comment_error', TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('target', 'first_comment_error'),
        migrator.drop_column('post', 'overrides'),
    )
