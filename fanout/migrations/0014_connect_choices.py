"""A connect session whose consent granted several accounts (a Facebook user's Pages) keeps
them, encrypted, until the person picks one on the connect page by its pick token's hash."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        migrator.add_column('connect_session', 'pick_hash', CharField(max_length=64, null=True, unique=True)),
        migrator.add_column('connect_session', 'choices', TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_index('connect_session', 'connect_session_pick_hash'),
        migrator.drop_column('connect_session', 'choices'),
        migrator.drop_column('connect_session', 'pick_hash'),
    )
