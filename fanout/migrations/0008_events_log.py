"""The events log and editable registrations: event indexes for pages, filters and pruning;
registrations that can be disabled and rotate their secret; redelivery of a delivery."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        # GET /v1/events: newest first (or oldest first after an event), by type, by account;
        # housekeeping prunes by age across workspaces.
        migrator.add_index('event', ('workspace_id', 'created_at', 'id'), False),
        migrator.add_index('event', ('workspace_id', 'type', 'created_at', 'id'), False),
        migrator.add_index('event', ('workspace_id', 'account_id', 'created_at', 'id'), False),
        migrator.add_index('event', ('post_id', 'created_at', 'id'), False),
        migrator.add_index('event', ('created_at',), False),
        # A registration may be disabled (by PATCH, or after 5 days of failing deliveries).
        migrator.add_column('webhook', 'enabled', BooleanField(default=True)),
        migrator.add_column('webhook', 'disabled_reason', TextField(null=True)),
        # The first failed attempt since the last successful one: none while deliveries succeed.
        migrator.add_column('webhook', 'failing_since', DateTimeField(null=True)),
        # The secret before the last rotation (a Fernet token) and until when it still signs.
        migrator.add_column('webhook', 'previous_secret', TextField(null=True)),
        migrator.add_column('webhook', 'previous_secret_expires_at', DateTimeField(null=True)),
        # A redelivery asked for and not sent yet; how many attempts were redeliveries.
        migrator.add_column('delivery', 'redeliver_at', DateTimeField(null=True)),
        migrator.add_column('delivery', 'redeliveries', IntegerField(default=0)),
        migrator.add_index('delivery', ('redeliver_at',), False),
        migrator.add_column('delivery_attempt', 'redelivery', BooleanField(default=False)),
    )
    # The account of a post event is its target's: `account_id` filters both kinds alike.
    db.execute_sql(
        'UPDATE event SET account_id = (SELECT target.account_id FROM target WHERE target.id = event.target_id) '
        'WHERE target_id IS NOT NULL AND account_id IS NULL'
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('delivery_attempt', 'redelivery'),
        migrator.drop_index('delivery', 'delivery_redeliver_at'),
        migrator.drop_column('delivery', 'redeliveries'),
        migrator.drop_column('delivery', 'redeliver_at'),
        migrator.drop_column('webhook', 'previous_secret_expires_at'),
        migrator.drop_column('webhook', 'previous_secret'),
        migrator.drop_column('webhook', 'failing_since'),
        migrator.drop_column('webhook', 'disabled_reason'),
        migrator.drop_column('webhook', 'enabled'),
        migrator.drop_index('event', 'event_created_at'),
        migrator.drop_index('event', 'event_post_id_created_at_id'),
        migrator.drop_index('event', 'event_workspace_id_account_id_created_at_id'),
        migrator.drop_index('event', 'event_workspace_id_type_created_at_id'),
        migrator.drop_index('event', 'event_workspace_id_created_at_id'),
    )
