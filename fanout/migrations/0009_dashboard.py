"""The workspace dashboard: single-use sign-in links, server-side sessions, and what its key
list shows (a key's name and when it was last used)."""
from peewee import *


def up(migrator, db):
    class Workspace(Model):
        id = CharField(primary_key=True, max_length=40)

        class Meta:
            database = db
            table_name = 'workspace'

    class DashboardLink(Model):
        token_hash = CharField(primary_key=True, max_length=64)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        created_at = DateTimeField()
        expires_at = DateTimeField(index=True)
        used_at = DateTimeField(null=True)

        class Meta:
            database = db
            table_name = 'dashboard_link'

    class DashboardSession(Model):
        token_hash = CharField(primary_key=True, max_length=64)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        created_at = DateTimeField()
        expires_at = DateTimeField(index=True)

        class Meta:
            database = db
            table_name = 'dashboard_session'

    db.create_tables([DashboardLink, DashboardSession])
    migrator.migrate(
        migrator.add_column('api_key', 'name', CharField(max_length=100, null=True)),
        migrator.add_column('api_key', 'last_used_at', DateTimeField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('api_key', 'last_used_at'),
        migrator.drop_column('api_key', 'name'),
    )
    db.execute_sql('DROP TABLE IF EXISTS dashboard_session')
    db.execute_sql('DROP TABLE IF EXISTS dashboard_link')
