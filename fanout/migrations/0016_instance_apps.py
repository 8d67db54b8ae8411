"""Servers users choose (a Mastodon instance): the app registered on each, once, its secret
encrypted; and the server a connect session's user named."""
from peewee import *


def up(migrator, db):
    class InstanceApp(Model):
        id = CharField(primary_key=True, max_length=40)
        platform = CharField(max_length=20)
        server = CharField(max_length=253)
        client_id = TextField()
        client_secret = TextField()
        created_at = DateTimeField()

        class Meta:
            database = db
            table_name = 'instance_app'
            indexes = ((('platform', 'server'), True),)
    db.create_tables([InstanceApp])
    migrator.migrate(
        migrator.add_column('connect_session', 'server', CharField(max_length=253, null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('connect_session', 'server'),
        migrator.drop_table('instance_app'),
    )
