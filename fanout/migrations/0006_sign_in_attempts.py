"""Credentials connect flows: the sign-ins tried through a connect session's form."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        migrator.add_column('connect_session', 'sign_in_attempts', IntegerField(default=0)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('connect_session', 'sign_in_attempts'),
    )
