"""The engine's own count on a target, beside its adapter's state (fanout/tasks/publishing.py):
the transient failures in a row and the type of the last unexpected error."""
import json

from peewee import *

# What a state saved before this migration held of the engine's, under these keys.
RETRIES, CRASH = '_retries', '_crash'


def up(migrator, db):
    migrator.migrate(
        migrator.add_column('target', 'retries', IntegerField(default=0)),
        migrator.add_column('target', 'crash_kind', TextField(null=True)),
    )

    class Target(Model):
        id = CharField(primary_key=True, max_length=40)
        state = TextField(null=True)
        retries = IntegerField(default=0)
        crash_kind = TextField(null=True)
        class Meta:
            database = db
            table_name = 'target'

    # The states that carry the keys move them to the columns, so an adapter never reads
    # them. LIKE finds the candidates (its `_` matches any character); the JSON decides.
    found = Target.select(Target.id, Target.state).where(
        Target.state.contains(f'"{RETRIES}"') | Target.state.contains(f'"{CRASH}"'))
    for target in list(found):
        state = json.loads(target.state)
        if not isinstance(state, dict) or not (RETRIES in state or CRASH in state):
            continue
        retries, crash_kind = int(state.pop(RETRIES, 0)), state.pop(CRASH, None)
        Target.update(state=json.dumps(state), retries=retries, crash_kind=crash_kind).where(
            Target.id == target.id).execute()


def down(migrator, db):
    # The counts are dropped, not put back in the states: an older engine starts them again
    # from zero, at most MAX_RETRIES more retries for a target retrying now.
    migrator.migrate(
        migrator.drop_column('target', 'crash_kind'),
        migrator.drop_column('target', 'retries'),
    )
