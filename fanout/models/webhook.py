"""Webhook registrations: where events go, the secret(s) that sign them, and whether they
are enabled (docs/decisions.md#webhook-registrations).

Every operation on a registration is here, callable without HTTP: the API's handlers and
the dashboard use the same functions.
"""
from __future__ import annotations

import base64
import datetime as _dt

from ..outbound.guard import UnsafeURL, check_url
from ..problems import InvalidRequest, NotFound
from ..times import isoformat
from . import caps
from .db import locked, write_transaction
from .deliveries import fail_pending
from .event import lock_log, record_event, send_after_commit
from .tables.webhook import EVENTS, Webhook
from .workspace import lock_workspace

# A registration whose every attempt has failed for this long is disabled (docs/decisions.md#automatic-disabling).
FAILING_LIMIT = _dt.timedelta(days=5)
# How long the previous secret still signs after a rotation, by default and at most.
DEFAULT_OVERLAP = 86400
MAX_OVERLAP = 604800
DISABLED_BY_REQUEST = "disabled by request"


def new_secret(randbytes) -> str:
    """`whsec_` + base64 of 32 random bytes (the Standard Webhooks form)."""
    return "whsec_" + base64.b64encode(randbytes(32)).decode()


def guard_url(rt, url: str) -> str:
    """`url`, if the service may deliver to it (it resolves the host); 400 saying why not."""
    try:
        check_url(url, rt.resolve, insecure=rt.settings.insecure_urls)
    except UnsafeURL as e:
        raise InvalidRequest(f"url: {e}") from None
    return url


def _ordered(events) -> str:
    return ",".join(e for e in EVENTS if e in events)


def create_webhook(rt, workspace_id: str, *, url: str, events: list[str]) -> tuple[Webhook, str]:
    """The registration and its secret in clear, which only this call ever returns. `url`
    has passed `guard_url`.

    The cap is counted under the workspace's row lock, so concurrent registrations cannot
    pass it together.
    """
    secret = new_secret(rt.randbytes)
    with write_transaction():
        caps.check_webhooks(lock_workspace(workspace_id))
        webhook = Webhook.create(
            id=rt.new_id("wh"),
            workspace=workspace_id,
            url=url,
            events=_ordered(events),
            secret=rt.keyring.encrypt(secret),
            created_at=rt.now(),
        )
    return webhook, secret


def list_webhooks(workspace_id: str) -> list[Webhook]:
    return list(
        Webhook.select().where(Webhook.workspace == workspace_id).order_by(Webhook.created_at.desc(), Webhook.id.desc())
    )


def get_webhook(workspace_id: str, webhook_id: str) -> Webhook:
    webhook = Webhook.get_or_none((Webhook.id == webhook_id) & (Webhook.workspace == workspace_id))
    if webhook is None:
        raise NotFound("no such webhook in this workspace")
    return webhook


def _locked(workspace_id: str, webhook_id: str) -> Webhook:
    """The registration's row, locked for the transaction; NotFound if it is not the workspace's."""
    webhook = locked(Webhook.select().where((Webhook.id == webhook_id) & (Webhook.workspace == workspace_id))).first()
    if webhook is None:
        raise NotFound("no such webhook in this workspace")
    return webhook


def delete_webhook(workspace_id: str, webhook_id: str) -> None:
    with write_transaction():
        deleted = Webhook.delete().where((Webhook.id == webhook_id) & (Webhook.workspace == workspace_id)).execute()
    if not deleted:
        raise NotFound("no such webhook in this workspace")


def update_webhook(rt, workspace_id: str, webhook_id: str, *, url: str | None = None, events: list[str] | None = None,
                   enabled: bool | None = None, reason: str = DISABLED_BY_REQUEST) -> Webhook:
    """Change what is given (PATCH /v1/webhooks/{id}); `url` has passed `guard_url`.

    Disabling stops the registration's pending deliveries (they end `failed`) and records
    `reason`; enabling clears it and the record of failing attempts. Neither records an
    event: `webhook.disabled` is the service's own disabling (`disable_if_failing`)."""
    with write_transaction():
        webhook = _locked(workspace_id, webhook_id)
        changes: dict = {}
        if url is not None:
            changes["url"] = url
        if events is not None:
            changes["events"] = _ordered(events)
        if enabled is True and not webhook.enabled:
            changes.update(enabled=True, disabled_reason=None, failing_since=None)
        elif enabled is False and webhook.enabled:
            changes.update(enabled=False, disabled_reason=reason)
            fail_pending(webhook.id)
        if changes:
            Webhook.update(**changes).where(Webhook.id == webhook.id).execute()
    return Webhook.get_by_id(webhook_id)


def rotate_secret(rt, workspace_id: str, webhook_id: str, expire_after_seconds: int = DEFAULT_OVERLAP
                  ) -> tuple[Webhook, str]:
    """A new secret, in clear (only this call returns it). The one it replaces signs too
    for `expire_after_seconds` (0: not at all); the one before that, if it still did, is
    gone (docs/decisions.md#secret-rotation)."""
    if not 0 <= expire_after_seconds <= MAX_OVERLAP:
        raise InvalidRequest(f"expire_after_seconds must be from 0 to {MAX_OVERLAP}")
    secret = new_secret(rt.randbytes)
    now = rt.now()
    with write_transaction():
        webhook = _locked(workspace_id, webhook_id)
        overlap = dict(previous_secret=None, previous_secret_expires_at=None)
        if expire_after_seconds:
            overlap = dict(previous_secret=webhook.secret,
                           previous_secret_expires_at=now + _dt.timedelta(seconds=expire_after_seconds))
        Webhook.update(secret=rt.keyring.encrypt(secret), **overlap).where(Webhook.id == webhook.id).execute()
    return Webhook.get_by_id(webhook_id), secret


def signing_secrets(rt, webhook: Webhook, at: _dt.datetime) -> list[str]:
    """The secrets an attempt at `at` signs with, in clear: the current one, then the
    previous one while its overlap lasts."""
    secrets = [rt.keyring.decrypt(webhook.secret)]
    if webhook.previous_secret and webhook.previous_secret_expires_at and webhook.previous_secret_expires_at > at:
        secrets.append(rt.keyring.decrypt(webhook.previous_secret))
    return secrets


def forget_expired_secrets(now: _dt.datetime) -> int:
    """Drop the previous secrets whose overlap is over: they are gone at rest too."""
    with write_transaction():
        return Webhook.update(previous_secret=None, previous_secret_expires_at=None).where(
            Webhook.previous_secret_expires_at.is_null(False) & (Webhook.previous_secret_expires_at <= now)).execute()


def disable_if_failing(rt, webhook_id: str, now: _dt.datetime) -> bool:
    """Disable the registration if every attempt has failed since FAILING_LIMIT ago or
    longer, recording `webhook.disabled` (delivered to the workspace's other registrations
    subscribed to it). True if this call disabled it."""
    found = Webhook.select(Webhook.workspace, Webhook.enabled, Webhook.failing_since).where(Webhook.id == webhook_id).first()
    if found is None or not found.enabled or found.failing_since is None or now - found.failing_since < FAILING_LIMIT:
        return False  # the usual case, answered without a lock
    with write_transaction():
        lock_log(found.workspace_id)
        webhook = locked(Webhook.select().where(Webhook.id == webhook_id)).first()
        if (webhook is None or not webhook.enabled or webhook.failing_since is None
                or now - webhook.failing_since < FAILING_LIMIT):
            return False  # a success came in meanwhile, or another worker disabled it
        reason = (f"every delivery attempt failed from {isoformat(webhook.failing_since)} to {isoformat(now)} "
                  f"({FAILING_LIMIT.days} days or more); fix the endpoint, then enable it again")
        Webhook.update(enabled=False, disabled_reason=reason).where(Webhook.id == webhook.id).execute()
        fail_pending(webhook.id)
        disabled = Webhook.get_by_id(webhook.id)
        deliveries = record_event(rt, disabled.workspace_id, "webhook.disabled",
                                  lambda event_id, at: rt.event_bodies.registration_event(
                                      event_id, "webhook.disabled", disabled, at),
                                  now)
        send_after_commit(rt, deliveries)
    return True
