"""API keys: issued once, stored as lookup id + salted hash, revoked for good."""
from __future__ import annotations

import datetime as _dt
import os
import unicodedata

from ..security import apikeys
from ..problems import InvalidRequest, NotFound
from . import caps
from .db import Compiled, write_transaction
from .tables.api_key import ApiKey
from .tables.workspace import Workspace
from .workspace import lock_workspace


# How stale `last_used_at` may be: a request writes it at most once a minute per key.
LAST_USED_PRECISION = _dt.timedelta(minutes=1)
NAME_LENGTH = 100


def key_name(name: str | None) -> str | None:
    """A key's name as stored: trimmed, None when blank; InvalidRequest past NAME_LENGTH
    characters or with control characters."""
    name = (name or "").strip()
    if len(name) > NAME_LENGTH:
        raise InvalidRequest(f"a key's name is at most {NAME_LENGTH} characters")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        raise InvalidRequest("a key's name must not contain control characters")
    return name or None


def create_key(rt, workspace_id: str, mode: str, name: str | None = None) -> tuple[ApiKey, str]:
    """A new key and its string, which is never stored and so can be shown only now."""
    if mode not in apikeys.PREFIXES:
        raise InvalidRequest("mode is live or sandbox")
    name = key_name(name)
    key_string, parts = apikeys.generate(mode, rt.randbytes)
    salt = rt.randbytes(16).hex()
    with write_transaction():
        workspace = lock_workspace(workspace_id)
        caps.check_api_keys(workspace)
        key = ApiKey.create(
            id=rt.new_id("key"),
            workspace=workspace,
            mode=mode,
            name=name,
            lookup=parts.lookup,
            salt=salt,
            secret_hash=apikeys.hash_secret(bytes.fromhex(salt), parts.secret),
            created_at=rt.now(),
        )
    return key, key_string


# The workspace's plan comes as `workspace_plan`: every request needs it for the rate limit.
_BY_LOOKUP = Compiled(ApiKey, lambda lookup: (
    ApiKey.select(ApiKey, Workspace.plan.alias("workspace_plan")).join(Workspace)
    .where((ApiKey.lookup == lookup) & ApiKey.revoked_at.is_null()).limit(1)))


def find_key(key_string: str) -> ApiKey | None:
    """The active key this string names, or None (malformed, unknown, revoked, wrong secret).

    Its workspace's plan comes in the same query, as `workspace_plan`.
    """
    parts = apikeys.parse(key_string)
    if parts is None:
        return None
    key = _BY_LOOKUP.first(parts.lookup)
    if key is None or key.mode != parts.mode:
        # Still compare, so an unknown lookup id costs what a wrong secret costs.
        apikeys.secret_matches(os.urandom(16), parts.secret, "0" * 64)
        return None
    if not apikeys.secret_matches(bytes.fromhex(key.salt), parts.secret, key.secret_hash):
        return None
    return key


def mark_used(key: ApiKey, now: _dt.datetime) -> None:
    """Record that `key` authenticated a request now, unless it was recorded less than
    LAST_USED_PRECISION ago: one write a minute at most, however busy the key."""
    if key.last_used_at is not None and now - key.last_used_at < LAST_USED_PRECISION:
        return
    with write_transaction():
        ApiKey.update(last_used_at=now).where(
            (ApiKey.id == key.id) & (ApiKey.last_used_at.is_null() | (ApiKey.last_used_at <= now - LAST_USED_PRECISION))
        ).execute()


def revoke_key(rt, key_id: str, workspace_id: str | None = None) -> ApiKey:
    """Revoke the key (again is no error); with `workspace_id`, only a key of that workspace
    (the dashboard's sessions see theirs alone), NotFound otherwise."""
    with write_transaction():
        key = ApiKey.get_or_none(ApiKey.id == key_id)
        if key is None or (workspace_id is not None and key.workspace_id != workspace_id):
            raise NotFound(f"no API key {key_id}" if workspace_id is None else "no such API key in this workspace")
        if key.revoked_at is None:
            ApiKey.update(revoked_at=rt.now()).where((ApiKey.id == key_id) & ApiKey.revoked_at.is_null()).execute()
    return ApiKey.get_by_id(key_id)


def list_keys(workspace_id: str) -> list[ApiKey]:
    return list(ApiKey.select().where(ApiKey.workspace == workspace_id).order_by(ApiKey.created_at.desc(), ApiKey.id.desc()))
