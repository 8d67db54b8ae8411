"""Why a webhook attempt got no answer, in words (`could not connect to HOST: ...`), beside its class."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        migrator.add_column('delivery_attempt', 'error_message', TextField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('delivery_attempt', 'error_message'),
    )
