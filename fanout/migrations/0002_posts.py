"""Posts, targets, the per-platform index, monthly usage and idempotency records."""
from peewee import *

def up(migrator, db):
    class Workspace(Model):
        id = CharField(primary_key=True, max_length=40)
        class Meta:
            database = db
            table_name = 'workspace'

    class IdempotencyRecord(Model):
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        key = CharField()
        fingerprint = CharField(max_length=64)
        state = CharField(max_length=10)
        claim_token = CharField(max_length=32)
        response_status = IntegerField(null=True)
        response_body = TextField(null=True)
        created_at = DateTimeField(index=True)
        claimed_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'idempotency_record'
            indexes = ((('workspace', 'key'), True),)
    db.create_tables([IdempotencyRecord])

    class MonthlyUsage(Model):
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        month = CharField(max_length=7)
        posts = IntegerField(default=0)
        class Meta:
            database = db
            table_name = 'monthly_usage'
            primary_key = False
            indexes = ((('workspace', 'month'), True),)
    db.create_tables([MonthlyUsage])

    class Post(Model):
        id = CharField(primary_key=True, max_length=40)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        sandbox = BooleanField()
        caption = TextField()
        media = TextField()
        simulate_error = CharField(null=True, max_length=40)
        status = CharField(max_length=20)
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'post'
            indexes = ((('workspace', 'created_at', 'id'), False), (('workspace', 'status', 'created_at', 'id'), False))
    db.create_tables([Post])

    class PostPlatform(Model):
        post = ForeignKeyField(Post, on_delete='CASCADE')
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        platform = CharField(max_length=20)
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'post_platform'
            primary_key = False
            indexes = ((('post', 'platform'), True), (('workspace', 'platform', 'created_at', 'post'), False))
    db.create_tables([PostPlatform])

    class Target(Model):
        id = CharField(primary_key=True, max_length=40)
        post = ForeignKeyField(Post, on_delete='CASCADE')
        account_id = CharField(index=True, max_length=40)
        platform = CharField(max_length=20)
        position = IntegerField()
        status = CharField(max_length=20, default='pending')
        external_url = TextField(null=True)
        published_at = DateTimeField(null=True)
        error_code = CharField(null=True, max_length=40)
        error_message = TextField(null=True)
        updated_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'target'
            indexes = ((('post', 'position'), True),)
    db.create_tables([Target])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('target'))
    migrator.migrate(migrator.drop_table('post_platform'))
    migrator.migrate(migrator.drop_table('post'))
    migrator.migrate(migrator.drop_table('monthly_usage'))
    migrator.migrate(migrator.drop_table('idempotency_record'))
