"""Who a Bluesky account is and its session (the AT Protocol; docs/platforms.md#bluesky).

A handle is resolved to its DID by `com.atproto.identity.resolveHandle` on the entryway
(bsky.social), the DID to its document on plc.directory, and the document names the
account's PDS; every later call goes to that PDS (`createSession`, `refreshSession`, blobs,
records), which passes sign-ins on to the entryway for the accounts Bluesky hosts.
FANOUT_PLATFORM_HOSTS rewrites the PDS's host like any other. Only `did:plc` accounts are
taken (a `did:web` document lives on a host the account chooses). An app password goes no
further than `createSession`.
"""
from __future__ import annotations

import base64
import datetime as _dt
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..base import AccountNotEligible, AuthFailed, Grant, SignInRefused, bearer
from ..contract import UnusableAnswer, document, identifier
from ..http import PlatformResponse, PlatformUnreachable
from ..mapping import number
from .errors import ENVELOPE
from .text import HANDLE

TITLE = "Bluesky"
ENTRYWAY, PLC = "bsky.social", "plc.directory"
# An access JWT lives 2 hours; its refresh JWT 90 days and is rotated by every refresh.
REFRESH_BEFORE = _dt.timedelta(minutes=15)
ACCESS_LIFETIME = _dt.timedelta(hours=2)  # when a JWT does not say
DID_PLC = re.compile(r"did:plc:[a-z2-7]{24}")
DID = re.compile(r"did:[a-z]+:[A-Za-z0-9._:%-]{1,2048}")


def jwt_claims(token: str) -> dict:
    """A JWT's payload as the server wrote it (read, not verified: it is our own token)."""
    try:
        body = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (IndexError, ValueError):
        return {}
    return claims if isinstance(claims, dict) else {}


def resolve_handle(http, handle: str) -> str | None:
    """The DID of a handle (None: no account has it), asked of the entryway."""
    response = http.get(f"https://{ENTRYWAY}/xrpc/com.atproto.identity.resolveHandle", params={"handle": handle})
    if response.status == 200:
        return identifier(document(response, "a handle's resolution"), "did", "a handle's resolution", DID)
    if response.status == 400:
        return None
    raise PlatformUnreachable(f"{TITLE} could not resolve a handle (HTTP {response.status})", sent=True)


def pds_of(http, did: str) -> str:
    """The PDS (`https://host`) the DID's document names. AccountNotEligible for a DID this
    adapter cannot use; AuthFailed when the directory does not know it; UnusableAnswer when
    its answer is not the JSON document it promises."""
    if not DID_PLC.fullmatch(did):
        raise AccountNotEligible(f"{did} is not a did:plc; other DID methods are not supported")
    response = http.get(f"https://{PLC}/{did}")
    if response.status == 404:
        raise AuthFailed(f"plc.directory does not know {did}")
    if response.status != 200:
        raise PlatformUnreachable(f"plc.directory answered HTTP {response.status}", sent=True)
    document_ = document(response, "the DID document")  # not JSON: the directory's break, not the account's
    services = document_.get("service")
    for service in services if isinstance(services, list) else []:
        if isinstance(service, dict) and str(service.get("id", "")).endswith("#atproto_pds") \
                and service.get("type") == "AtprotoPersonalDataServer":
            return _pds_url(service.get("serviceEndpoint"))
    raise AccountNotEligible(f"the DID document of {did} names no PDS")


def _pds_url(endpoint: Any) -> str:
    """The PDS's base URL, if it is one Fanout will call: https on a DNS name (never an
    address: the document is the account's to write)."""
    parts = urlsplit(endpoint) if isinstance(endpoint, str) else None
    host = (parts.hostname or "") if parts else ""
    if parts is None or parts.scheme != "https" or parts.path not in ("", "/") or parts.query or parts.username \
            or not HANDLE.fullmatch(host) or host == "localhost" or host.endswith(".localhost"):
        raise AccountNotEligible("the account's DID document names a PDS that is not an https host name")
    port = f":{parts.port}" if parts.port else ""
    return f"https://{host}{port}"


def _grant(body: Mapping[str, Any], now: _dt.datetime) -> Grant:
    """The tokens of a createSession or refreshSession answer; the access JWT's own
    lifetime (`exp` - `iat`) counted on the engine's clock."""
    access, refresh = body.get("accessJwt"), body.get("refreshJwt")
    if not isinstance(access, str) or not isinstance(refresh, str) or not isinstance(body.get("did"), str):
        raise AuthFailed(f"{TITLE} answered a session without its tokens")
    claims = jwt_claims(access)
    issued, ends = number(claims.get("iat")), number(claims.get("exp"))
    lifetime = ends - issued if issued is not None and ends is not None else 0
    expires = now + (_dt.timedelta(seconds=lifetime) if lifetime > 0 else ACCESS_LIFETIME)
    return Grant(access_token=access, refresh_token=refresh, expires_at=expires, user_id=body["did"],
                 username=str(body.get("handle") or body["did"]))


def _session_refused(response: PlatformResponse, what: str, *secrets_: str | None) -> Exception:
    answer = ENVELOPE.read(response, *secrets_)
    if response.status >= 500:
        return PlatformUnreachable(f"{TITLE} failed {what} (HTTP {response.status})", sent=True)
    if response.status == 429:
        return PlatformUnreachable(f"{TITLE} limits {what}: {answer.message or answer.raw}", sent=True)
    return AuthFailed(f"{TITLE} refused {what}: {answer.error or answer.raw}"
                      f"{': ' + answer.message if answer.message else ''}")


def sign_in(http, identifier: str, password: str, *, now: _dt.datetime, settings=None) -> Grant:
    """Handle (or DID) -> DID -> PDS -> `createSession` there with the app password.

    SignInRefused for an unknown handle or a wrong password (the form is shown again),
    AccountNotEligible for an account Fanout cannot post for, PlatformUnreachable when
    Bluesky cannot be asked."""
    wanted = identifier.strip().removeprefix("@").lower()
    if wanted.startswith("did:"):
        did = wanted
    elif HANDLE.fullmatch(wanted):
        try:
            did = resolve_handle(http, wanted)
        except UnusableAnswer as e:
            raise AuthFailed(f"{TITLE} answered {e.what}") from None
        if did is None:
            raise SignInRefused(f"no {TITLE} account has the handle {wanted}")
    else:
        raise SignInRefused(f"{identifier!r} is not a Bluesky handle")
    try:
        pds = pds_of(http, did)
    except UnusableAnswer as e:
        raise AuthFailed(f"{TITLE} answered {e.what}") from None
    response = http.post(f"{pds}/xrpc/com.atproto.server.createSession",
                         json_body={"identifier": did, "password": password})
    body = response.json()
    if response.status != 200 or not isinstance(body, dict):
        refusal = _session_refused(response, "the sign-in", password)
        if isinstance(refusal, AuthFailed) and response.status in (400, 401):
            answer = ENVELOPE.read(response, password)
            if answer.error == "AccountTakedown":
                raise AccountNotEligible(f"{TITLE} has taken this account down")
            raise SignInRefused(refusal.reason)
        raise refusal
    if body.get("did") != did:
        raise AuthFailed(f"{TITLE} signed in {body.get('did')}, not {did}")
    if body.get("active") is False or body.get("status"):
        raise AccountNotEligible(f"the {TITLE} account is {body.get('status') or 'not active'}")
    return _grant(body, now)


def refresh(http, app, access_token: str, refresh_token: str | None = None, *, now: _dt.datetime) -> Grant:
    """A new pair from `refreshSession` at the account's PDS (the refresh JWT names the
    account; the old one stops working once used). AuthFailed when the PDS refuses it
    (expired, revoked with the app password): the account must sign in again."""
    did = jwt_claims(refresh_token or "").get("sub")
    if not refresh_token or not isinstance(did, str):
        raise AuthFailed(f"{TITLE} session has no refresh token: sign in again")
    pds = pds_of(http, did)
    response = http.post(f"{pds}/xrpc/com.atproto.server.refreshSession", headers=bearer(refresh_token))
    body = response.json()
    if response.status != 200 or not isinstance(body, dict):
        raise _session_refused(response, "the session refresh", refresh_token, access_token)
    return _grant(body, now)


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE
