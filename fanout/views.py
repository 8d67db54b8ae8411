"""The JSON shapes of the API's resources, as openapi.yaml's schemas name them.

Handlers shape the resources they answer with here, from the rows the models return; the
post is also what an idempotent upload stores for its replays. Plain functions of rows: no
query, no rule.
"""
from __future__ import annotations

import datetime as _dt
import json

from .content import parse_overrides
from .times import isoformat


def account_view(account) -> dict:
    """`Account`."""
    return {
        "id": account.id,
        "platform": account.platform,
        "username": account.username,
        "status": account.status,
        "connected_at": isoformat(account.connected_at),
        "sandbox": account.sandbox,
    }


def boards_view(boards: list[dict], read_at) -> dict:
    """`BoardList`: a Pinterest account's boards as kept on it."""
    return {"data": [{"id": b["id"], "name": b["name"], "privacy": b["privacy"]} for b in boards],
            "read_at": isoformat(read_at)}


def target_view(target, post) -> dict:
    """`Target`, with the caption and media it publishes where they are not its post's."""
    content = post.content_for(target.platform) if post.overrides else None
    return {
        "id": target.id,
        "account_id": target.account_id,
        "platform": target.platform,
        "status": target.status,
        "external_url": target.external_url,
        "published_at": isoformat(target.published_at),
        "error_code": target.error_code,
        "error_message": target.error_message,
        "caption": content.caption if content and content.own_caption else None,
        "media": [dict(m) for m in content.media] if content and content.own_media else None,
        "first_comment_error": target.first_comment_error,
        "published_parts": published_parts(target, content),
        "warnings": target.warning_list,
    }


def published_parts(target, content) -> list[dict] | None:
    """`Target.published_parts`: a thread's parts that are out, by index (0 the first post,
    n its `thread[n-1]`); null for a target without a thread."""
    if content is None or not content.thread:
        return None
    return [{"index": index, "external_url": url} for index, url in enumerate(target.parts_out)]


def post_view(post, targets: list) -> dict:
    """`Post`: GET /v1/posts/{id}, POST /v1/upload and PATCH /v1/posts/{id}."""
    return {
        "id": post.id,
        "status": post.status,
        "sandbox": post.sandbox,
        "caption": post.caption,
        "media": post.media_list,
        # As stored (fanout/content.py `normalised`); {} when there are none.
        "overrides": parse_overrides(post.overrides),
        "targets": [target_view(t, post) for t in targets],
        "created_at": isoformat(post.created_at),
        "scheduled_at": isoformat(post.scheduled_at),
    }


def post_summary(post, targets: list) -> dict:
    """`PostSummary`, a list entry: id, status, caption, created_at, scheduled_at and
    targets (docs/decisions.md#posts-and-targets)."""
    return {
        "id": post.id,
        "status": post.status,
        "caption": post.caption,
        "created_at": isoformat(post.created_at),
        "scheduled_at": isoformat(post.scheduled_at),
        "targets": [target_view(t, post) for t in targets],
    }


def preflight_view(foreseen: list) -> dict:
    """`Preflight`: each destination's foreseen failures (fanout/preflight.py), in order."""
    targets = [{
        "platform": item.account.platform,
        "account_id": item.account.id,
        "ok": not item.problems,
        "problems": [{"code": p.error_code, "message": p.error_message} for p in item.problems],
    } for item in foreseen]
    return {"ok": all(t["ok"] for t in targets), "targets": targets}


def webhook_view(webhook) -> dict:
    """`Webhook`: never its secrets."""
    return {
        "id": webhook.id,
        "url": webhook.url,
        "events": webhook.event_list,
        "enabled": webhook.enabled,
        "disabled_reason": webhook.disabled_reason,
        "previous_secret_expires_at": isoformat(webhook.previous_secret_expires_at),
        "created_at": isoformat(webhook.created_at),
    }


def new_webhook_view(webhook, secret: str) -> dict:
    """`WebhookWithSecret`: the answers that show a secret, POST /v1/webhooks and rotate-secret."""
    return {**webhook_view(webhook), "secret": secret}


def delivery_view(delivery, attempts: list) -> dict:
    """`Delivery`, with its event's subject and every attempt so far."""
    event = delivery.event
    due = [t for t in (delivery.next_attempt_at, delivery.redeliver_at) if t is not None]
    return {
        "id": delivery.id,
        "event_id": event.id,
        "event": event.type,
        "post_id": event.post_id,
        "target_id": event.target_id,
        # A post event's account is its target's (`target.account_id`); the field names an
        # account event's subject only.
        "account_id": event.account_id if event.type.startswith("account.") else None,
        "status": delivery.status,
        "attempts": [attempt_view(a) for a in attempts],
        "next_attempt_at": isoformat(min(due)) if due else None,
        "created_at": isoformat(delivery.created_at),
    }


def attempt_view(attempt) -> dict:
    """`DeliveryAttempt`."""
    return {"number": attempt.number, "attempted_at": isoformat(attempt.attempted_at), "status_code": attempt.status_code,
            "error": attempt.error, "error_message": attempt.error_message, "duration_ms": attempt.duration_ms,
            "redelivery": attempt.redelivery}


def event_view(event) -> dict:
    """`Event`: exactly the JSON delivered for it, from the bytes stored."""
    return json.loads(event.body)


def ping_view(ping) -> dict:
    """`WebhookTestResult`: what the endpoint did with a test ping."""
    return {"event_id": ping.event_id, "succeeded": ping.succeeded, "status_code": ping.status_code,
            "error": ping.error, "error_message": ping.error_message, "duration_ms": ping.duration_ms,
            "attempted_at": isoformat(ping.attempted_at)}


def cap_view(limit: int, used: int | None, resets_at: _dt.datetime | None = None) -> dict:
    """`Cap`."""
    return {"limit": limit, "used": used, "resets_at": isoformat(resets_at)}


def usage_view(plan, held: dict, rate, now: _dt.datetime) -> dict:
    """`Usage`: the caps the database holds (fanout/models/caps.py `usage`), then requests
    per minute as the limiter counted them (`rate`, None while its store is down)."""
    requests = cap_view(plan.requests_per_minute, None)
    if rate is not None:
        requests = cap_view(rate.limit, rate.limit - rate.remaining, now + _dt.timedelta(seconds=rate.reset))
    return {
        "plan": plan.name,
        **{name: cap_view(use.limit, use.used, use.resets_at) for name, use in held.items()},
        "requests": requests,
    }


def list_view(items: list[dict]) -> dict:
    """A list answered whole: `{"data": [...]}`."""
    return {"data": items}


def page_view(items: list[dict], next_cursor: str | None, has_more: bool) -> dict:
    """One page of a keyset-paged list (docs/decisions.md#lists)."""
    return {"data": items, "next_cursor": next_cursor, "has_more": has_more}


def target_event(event_id: str, kind: str, target, now: _dt.datetime) -> dict:
    """The body of a `post.*` event (docs/decisions.md#events; contracts/events/post_event.schema.json)."""
    detail = {"id": target.id, "account_id": target.account_id, "platform": target.platform, "status": target.status}
    if target.status == "published":
        detail["external_url"] = target.external_url
        if target.first_comment_error is not None:
            detail["first_comment_error"] = target.first_comment_error
        if target.warning_list:
            detail["warnings"] = target.warning_list
    else:
        detail.update(error_code=target.error_code, error_message=target.error_message)
    parts = published_parts(target, target.post.content_for(target.platform))
    if parts is not None:
        detail["published_parts"] = parts
    return {"id": event_id, "event": kind, "post_id": target.post_id, "target": detail, "timestamp": isoformat(now)}


def account_event(event_id: str, kind: str, account, now: _dt.datetime, reason: str | None = None) -> dict:
    """The body of an `account.*` event, the account object as it is now; `reason` for
    `account.expired` (contracts/events/account_event.schema.json)."""
    body = {"id": event_id, "event": kind, "account": account_view(account)}
    if reason is not None:
        body["reason"] = reason
    return {**body, "timestamp": isoformat(now)}


def registration_event(event_id: str, kind: str, webhook, now: _dt.datetime) -> dict:
    """The body of a `webhook.*` event: the registration, never its secrets
    (contracts/events/webhook_event.schema.json)."""
    return {"id": event_id, "event": kind, "webhook": webhook_view(webhook), "timestamp": isoformat(now)}
