"""What a platform said of an account that the service's rules read without asking it (a
Pinterest account's boards): fanout/platforms/base.py `Grant.details`, as JSON."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        migrator.add_column('account', 'details', TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('account', 'details'),
    )
