"""The connect flow behind the connect pages (docs/decisions.md#connect-flow).

A sandbox session connects an account at once. A live session of a configured platform
(an adapter in the registry and an app in FANOUT_<P>_CLIENT_ID/SECRET) sends the browser
to the platform's authorize URL with an OAuth `state`; the platform sends it back to
`{connect_url}/connect/{platform}/callback`, where the code becomes tokens and an account.

The `state` is 256 random bits, stored only as a hash on the session, bound to that
session and forgotten when the callback claims it, so it works once and for 30 minutes at
most. It is not also bound to the browser by a cookie: the account always lands in the
session's workspace whichever browser finishes the flow, and consent may legitimately
finish in another browser than the one that started it (a phone handing over from the
platform's app).
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from .apikeys import random_base62
from .models import db
from .models.account import connect_account
from .models.connect_session import SessionUnusable, begin_oauth, claim_oauth_state, consume_session
from .models.sandbox_account import connect_sandbox_account
from .models.tokens import refresh_at
from .platforms import REGISTRY
from .platforms.base import AccountNotEligible, AuthFailed
from .platforms.http import PlatformUnreachable
from .problems import PlanLimitExceeded

log = logging.getLogger(__name__)

STATE_LENGTH = 43  # ~256 bits of base62


@dataclass(frozen=True)
class Redirect:
    url: str
    params: Mapping[str, str] = field(default_factory=dict)  # added to the URL's query


@dataclass(frozen=True)
class Refused:
    """Show a page here instead of redirecting: the link or the callback cannot be used.

    `reason`: unknown, expired or used (the connect link); bad_state or late_state (the
    callback's `state`)."""

    reason: str


def redirect_uri(settings, platform: str) -> str:
    """The redirect URI to register with the platform (README "Live platforms")."""
    return f"{settings.connect_url}/connect/{platform}/callback"


def live_setup(settings, platform: str):
    """(adapter, app) when the server can run this platform's OAuth flow, else None."""
    adapter, app = REGISTRY[platform].adapter, settings.platform_apps.get(platform)
    return (adapter, app) if adapter is not None and app is not None else None


def open_link(rt, token: str, platform: str) -> Redirect | Refused:
    """`GET /connect/{platform}?session=`: use the session once, and start its flow."""
    with db.connection_context():
        try:
            session = consume_session(rt, token, platform)
        except SessionUnusable as e:
            return Refused(e.reason)
        back = session.redirect_url or f"{rt.settings.connect_url}/connect/done"
        if session.sandbox:
            try:
                account = connect_sandbox_account(rt, session)
            except PlanLimitExceeded:
                return Redirect(back, {"platform": platform, "error": "plan_limit_exceeded"})
            return Redirect(back, {"platform": platform, "account_id": account.id, "status": "connected"})
        setup = live_setup(rt.settings, platform)
        if setup is None:
            return Redirect(back, {"platform": platform, "error": "platform_not_configured"})
        adapter, app = setup
        state = random_base62(STATE_LENGTH, rt.randbytes)
        authorization = adapter.authorize(app, redirect_uri(rt.settings, platform), state, randbytes=rt.randbytes)
        verifier = rt.keyring.encrypt(authorization.verifier) if authorization.verifier else None
        begin_oauth(session, state, verifier)
    # Through the host map, so that a browser is sent to the emulator when one stands in.
    return Redirect(rt.platform_http.url(authorization.url))


def finish(rt, platform: str, query: Mapping[str, str]) -> Redirect | Refused:
    """`GET /connect/{platform}/callback?code=&state=` (or `error=`): the platform's answer."""
    state = query.get("state", "")
    if not state or len(state) > 200:
        return Refused("bad_state")
    with db.connection_context():
        try:
            session = claim_oauth_state(rt, state, platform)
        except SessionUnusable as e:
            return Refused("late_state" if e.reason == "expired" else "bad_state")
    back = session.redirect_url or f"{rt.settings.connect_url}/connect/done"

    def fail(code: str) -> Redirect:
        return Redirect(back, {"platform": platform, "error": code})

    if query.get("error"):
        # The user said no (access_denied), or the platform could not ask them.
        return fail("access_denied" if query["error"] == "access_denied" else "platform_error")
    setup = live_setup(rt.settings, platform)
    if setup is None:  # the app was removed from the settings during the flow
        return fail("platform_not_configured")
    code = query.get("code", "")
    if not code or len(code) > 2000:
        return fail("platform_error")
    adapter, app = setup
    verifier = rt.keyring.decrypt(session.oauth_verifier) if session.oauth_verifier else None
    try:
        grant = adapter.exchange(rt.platform_http, app, code, redirect_uri(rt.settings, platform), verifier,
                                 now=rt.now(), settings=rt.settings)
    except AccountNotEligible as e:
        log.info("connecting %s for workspace %s refused: %s", platform, session.workspace_id, e.reason)
        return fail("account_not_eligible")
    except (AuthFailed, PlatformUnreachable) as e:
        log.warning("connecting %s for workspace %s failed: %s", platform, session.workspace_id,
                    getattr(e, "reason", None) or getattr(e, "message", None))
        return fail("platform_error")
    with db.connection_context():
        try:
            account = connect_account(
                rt, session.workspace_id, platform=platform, sandbox=False,
                platform_user_id=grant.user_id, username=grant.username,
                access_token=grant.access_token, refresh_token=grant.refresh_token,
                token_expires_at=grant.expires_at, refresh_at=refresh_at(adapter, grant, rt.now(), rt.randbytes),
            )
        except PlanLimitExceeded:
            return fail("plan_limit_exceeded")
    log.info("connected %s account %s to workspace %s", platform, account.id, session.workspace_id)
    return Redirect(back, {"platform": platform, "account_id": account.id, "status": "connected"})

