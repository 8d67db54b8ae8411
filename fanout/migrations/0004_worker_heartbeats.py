"""Worker heartbeats: one row per running queue worker process, for /readyz and metrics."""
from peewee import *

def up(migrator, db):
    class WorkerHeartbeat(Model):
        id = CharField(primary_key=True, max_length=40)
        host = CharField(max_length=255)
        pid = IntegerField()
        started_at = DateTimeField()
        last_seen_at = DateTimeField(index=True)
        class Meta:
            database = db
            table_name = 'worker_heartbeat'
    db.create_tables([WorkerHeartbeat])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('worker_heartbeat'))
