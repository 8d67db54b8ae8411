"""Token storage over an account's life (fanout/models/tokens.py): refresh scheduling, one
refresher at a time, grants stored as they arrive, and expiry with its account.expired event.
The refresh calls themselves are exercised against the Threads emulator
(tests/platforms/threads/test_live.py)."""
import datetime as dt
import json
import logging
from pathlib import Path

from jsonschema import Draft202012Validator

from fanout.models import Account, Delivery, Event, Webhook, db
from fanout.models.account import connect_account
from fanout.models.tokens import (
    claim_refresh, due_refreshes, expire_account, refresh_time, release_refresh, store_grant,
)
from fanout.platforms.base import Grant

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "contracts/events/account_event.schema.json").read_text())


def live_account(rt, workspace, **tokens):
    with db.connection_context():
        return connect_account(rt, workspace.id, platform="threads", sandbox=False, platform_user_id="17841",
                               username="ada", access_token="old-access", refresh_token=tokens.get("refresh"))


def row(account_id):
    with db.connection_context():
        return Account.get_by_id(account_id)


def test_refresh_time_is_moved_earlier_by_at_most_a_tenth_of_the_time_left(clock):
    due = clock.now + dt.timedelta(days=10)
    earliest = refresh_time(due, clock.now, lambda n: b"\xff" * n)
    latest = refresh_time(due, clock.now, lambda n: b"\x00" * n)
    assert latest == due
    assert earliest == due - dt.timedelta(days=1)


def test_only_one_worker_holds_an_accounts_refresh_until_it_is_released(rt, workspace, clock):
    account = live_account(rt, workspace)
    with db.connection_context():
        assert claim_refresh(account.id, clock.now)
        assert not claim_refresh(account.id, clock.now)
        release_refresh(account.id, clock.now + dt.timedelta(minutes=15))
        assert claim_refresh(account.id, clock.now)


def test_a_held_refresh_is_free_again_once_its_hold_passes(rt, workspace, clock):
    account = live_account(rt, workspace)
    with db.connection_context():
        assert claim_refresh(account.id, clock.now)
        assert claim_refresh(account.id, clock.now + dt.timedelta(minutes=2))


def test_a_grant_is_stored_encrypted_and_replaces_a_rotated_refresh_token(rt, workspace, clock):
    account = live_account(rt, workspace, refresh="refresh-1")
    expires = clock.now + dt.timedelta(days=60)
    with db.connection_context():
        store_grant(rt, account.id, Grant("new-access", "refresh-2", expires), clock.now + dt.timedelta(days=30))
    stored = row(account.id)
    assert "new-access" not in stored.access_token and "refresh-2" not in stored.refresh_token
    assert rt.keyring.decrypt(stored.access_token) == "new-access"
    assert rt.keyring.decrypt(stored.refresh_token) == "refresh-2"
    assert stored.token_expires_at == expires and stored.refresh_claimed_until is None


def test_a_grant_without_a_refresh_token_keeps_the_stored_one(rt, workspace, clock):
    account = live_account(rt, workspace, refresh="refresh-1")
    with db.connection_context():
        store_grant(rt, account.id, Grant("new-access", None, clock.now + dt.timedelta(days=60)), None)
    assert rt.keyring.decrypt(row(account.id).refresh_token) == "refresh-1"


def test_due_refreshes_lists_active_live_accounts_whose_time_came(rt, workspace, clock):
    account = live_account(rt, workspace)
    with db.connection_context():
        store_grant(rt, account.id, Grant("a", None, clock.now + dt.timedelta(days=60)), clock.now + dt.timedelta(days=1))
        assert due_refreshes(clock.now) == []
        assert due_refreshes(clock.now + dt.timedelta(days=1)) == [account.id]
        claim_refresh(account.id, clock.now + dt.timedelta(days=1))
        assert due_refreshes(clock.now + dt.timedelta(days=1)) == []


def test_expiring_an_account_sends_account_expired_to_subscribed_registrations_only(rt, workspace, clock):
    account = live_account(rt, workspace)
    with db.connection_context():
        subscribed = Webhook.create(id="wh_a", workspace=workspace, url="https://a.example/h", secret="s",
                                    events="account.expired", created_at=clock.now)
        Webhook.create(id="wh_b", workspace=workspace, url="https://b.example/h", secret="s",
                       events="post.completed,post.failed", created_at=clock.now)
        deliveries = expire_account(rt, account.id, "Threads refused to refresh the token")
        assert [Delivery.get_by_id(d).webhook_id for d in deliveries] == [subscribed.id]
        [event] = Event.select().where(Event.type == "account.expired")
    assert row(account.id).status == "expired"
    body = json.loads(event.body)
    Draft202012Validator(SCHEMA).validate(body)
    assert (event.account_id, event.post_id, event.target_id) == (account.id, None, None)
    assert body["account"] == {"id": account.id, "platform": "threads", "username": "ada", "status": "expired",
                               "connected_at": "2026-11-22T10:00:00.000Z", "sandbox": False}
    assert body["reason"] == "Threads refused to refresh the token"


def test_an_account_expires_once_however_many_workers_see_the_refusal(rt, workspace, clock):
    account = live_account(rt, workspace)
    with db.connection_context():
        expire_account(rt, account.id, "refused")
        assert expire_account(rt, account.id, "refused") == []
        assert Event.select().where(Event.type == "account.expired").count() == 1


def test_an_account_turning_expired_is_logged_once_at_warning_with_the_reason(rt, workspace, clock, caplog):
    account = live_account(rt, workspace)
    with caplog.at_level(logging.INFO, logger="fanout"), db.connection_context():
        expire_account(rt, account.id, "Threads refused to refresh the token: invalid_grant")
        expire_account(rt, account.id, "Threads refused to refresh the token: invalid_grant")  # a second worker
    [record] = [r for r in caplog.records if account.id in r.getMessage()]
    assert record.levelno == logging.WARNING and "expired" in record.getMessage()
    assert "invalid_grant" in record.getMessage() and "old-access" not in caplog.text


def test_reconnecting_an_expired_account_makes_it_active_again(rt, workspace, clock):
    account = live_account(rt, workspace)
    with db.connection_context():
        expire_account(rt, account.id, "refused")
    again = live_account(rt, workspace)
    assert again.id == account.id and row(account.id).status == "active"
