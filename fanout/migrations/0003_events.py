"""Events, deliveries and their attempts; target claim attempts and leases."""
from peewee import *

def up(migrator, db):
    class Post(Model):
        id = CharField(primary_key=True, max_length=40)
        class Meta:
            database = db
            table_name = 'post'

    class Target(Model):
        id = CharField(primary_key=True, max_length=40)
        class Meta:
            database = db
            table_name = 'target'

    class Webhook(Model):
        id = CharField(primary_key=True, max_length=40)
        class Meta:
            database = db
            table_name = 'webhook'

    class Workspace(Model):
        id = CharField(primary_key=True, max_length=40)
        class Meta:
            database = db
            table_name = 'workspace'

    class Event(Model):
        id = CharField(primary_key=True, max_length=40)
        workspace = ForeignKeyField(Workspace, on_delete='CASCADE')
        post = ForeignKeyField(Post, on_delete='CASCADE')
        target = ForeignKeyField(Target, unique=True, on_delete='CASCADE')
        type = CharField(max_length=30)
        body = TextField()
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'event'
    db.create_tables([Event])

    class Delivery(Model):
        id = CharField(primary_key=True, max_length=40)
        event = ForeignKeyField(Event, on_delete='CASCADE')
        webhook = ForeignKeyField(Webhook, on_delete='CASCADE')
        status = CharField(max_length=12, default='pending')
        attempts = IntegerField(default=0)
        next_attempt_at = DateTimeField(null=True)
        claimed_until = DateTimeField(null=True)
        created_at = DateTimeField()
        class Meta:
            database = db
            table_name = 'delivery'
            indexes = ((('event', 'webhook'), True), (('webhook', 'created_at', 'id'), False), (('status', 'next_attempt_at'), False))
    db.create_tables([Delivery])

    class DeliveryAttempt(Model):
        delivery = ForeignKeyField(Delivery, on_delete='CASCADE')
        number = IntegerField()
        attempted_at = DateTimeField()
        status_code = IntegerField(null=True)
        error = CharField(null=True, max_length=200)
        duration_ms = IntegerField()
        class Meta:
            database = db
            table_name = 'delivery_attempt'
            indexes = ((('delivery', 'number'), True),)
    db.create_tables([DeliveryAttempt])

    migrator.migrate(migrator.add_column('target', 'attempts', IntegerField(default=0)))
    migrator.migrate(migrator.add_column('target', 'lease_expires_at', DateTimeField(null=True)))
    migrator.migrate(migrator.add_index('target', ('status', 'updated_at')))


def down(migrator, db):
    migrator.migrate(migrator.drop_index('target', 'target_status_updated_at'))
    migrator.migrate(migrator.drop_column('target', 'lease_expires_at'))
    migrator.migrate(migrator.drop_column('target', 'attempts'))
    migrator.migrate(migrator.drop_table('delivery_attempt'))
    migrator.migrate(migrator.drop_table('delivery'))
    migrator.migrate(migrator.drop_table('event'))
