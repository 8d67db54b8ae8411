"""Initial schema: workspaces, API keys, accounts, connect sessions, webhooks."""
from peewee import *

def up(migrator, db):
    class Workspace(Model):
        id = CharField(primary_key=True, max_length=40)
        name = CharField(max_length=200)
        plan = CharField(max_length=20, default='FREE')
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'workspace'
    db.create_tables([Workspace])

    class Account(Model):
        id = CharField(primary_key=True, max_length=40)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        platform = CharField(max_length=20)
        sandbox = BooleanField()
        username = CharField(max_length=200)
        platform_user_id = CharField(max_length=200)
        status = CharField(max_length=20, default='active')
        access_token = TextField(null=True)
        refresh_token = TextField(null=True)
        token_expires_at = DateTimeField(null=True)
        connected_at = DateTimeField()
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'account'
            indexes = ((('workspace', 'platform', 'sandbox', 'platform_user_id'), True), (('workspace', 'created_at'), False))
    db.create_tables([Account])

    class ApiKey(Model):
        id = CharField(primary_key=True, max_length=40)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        mode = CharField(max_length=10)
        lookup = CharField(unique=True, max_length=20)
        salt = CharField(max_length=64)
        secret_hash = CharField(max_length=64)
        created_at = DateTimeField()
        revoked_at = DateTimeField(null=True)
        class Meta:
            database = db
            table_name = 'api_key'
            indexes = ((('workspace', 'revoked_at'), False),)
    db.create_tables([ApiKey])

    class ConnectSession(Model):
        id = CharField(primary_key=True, max_length=40)
        token_hash = CharField(unique=True, max_length=64)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        platform = CharField(max_length=20)
        sandbox = BooleanField()
        redirect_url = CharField(null=True, max_length=2048)
        created_at = DateTimeField()
        expires_at = DateTimeField(index=True)
        used_at = DateTimeField(null=True)
        class Meta:
            database = db
            table_name = 'connect_session'
    db.create_tables([ConnectSession])

    class Webhook(Model):
        id = CharField(primary_key=True, max_length=40)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        url = CharField(max_length=2048)
        events = CharField(max_length=200)
        secret = TextField()
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'webhook'
            indexes = ((('workspace', 'created_at'), False),)
    db.create_tables([Webhook])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('webhook'))
    migrator.migrate(migrator.drop_table('connect_session'))
    migrator.migrate(migrator.drop_table('api_key'))
    migrator.migrate(migrator.drop_table('account'))
    migrator.migrate(migrator.drop_table('workspace'))
