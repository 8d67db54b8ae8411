"""Live publishing: resumable targets, token refresh, OAuth state, events about accounts."""
from peewee import *


def up(migrator, db):
    migrator.migrate(
        # The platform state a publish saved (JSON) and when its next step is due.
        migrator.add_column('target', 'state', TextField(null=True)),
        migrator.add_column('target', 'next_check_at', DateTimeField(null=True)),
        migrator.add_index('target', ('status', 'next_check_at'), False),
        # When the periodic task refreshes the account's token, and who is refreshing it now.
        migrator.add_column('account', 'refresh_at', DateTimeField(null=True)),
        migrator.add_column('account', 'refresh_claimed_until', DateTimeField(null=True)),
        migrator.add_index('account', ('status', 'refresh_at'), False),
        # A live connect flow: the hash of the OAuth `state` sent to the platform, and the
        # (encrypted) PKCE verifier the callback needs.
        migrator.add_column('connect_session', 'oauth_state_hash', CharField(max_length=64, null=True)),
        migrator.add_column('connect_session', 'oauth_verifier', TextField(null=True)),
        migrator.add_index('connect_session', ('oauth_state_hash',), True),
        # Events about an account (account.expired) have no post or target.
        migrator.drop_not_null('event', 'post_id'),
        migrator.drop_not_null('event', 'target_id'),
        migrator.add_column('event', 'account_id', CharField(max_length=40, null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column('event', 'account_id'),
        migrator.drop_index('connect_session', 'connect_session_oauth_state_hash'),
        migrator.drop_column('connect_session', 'oauth_verifier'),
        migrator.drop_column('connect_session', 'oauth_state_hash'),
        migrator.drop_index('account', 'account_status_refresh_at'),
        migrator.drop_column('account', 'refresh_claimed_until'),
        migrator.drop_column('account', 'refresh_at'),
        migrator.drop_index('target', 'target_status_next_check_at'),
        migrator.drop_column('target', 'next_check_at'),
        migrator.drop_column('target', 'state'),
    )
