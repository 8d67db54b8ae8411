"""The connect flow behind the connect pages (docs/decisions.md#connect-flow).

`start` makes the connect URL (`POST /v1/accounts/{platform}/connect`). A sandbox session
connects an account at once. A live session of a configured platform (an adapter in the
registry and an app in FANOUT_<P>_CLIENT_ID/SECRET) sends the browser to the platform's
authorize URL with an OAuth `state`; the platform sends it back to
`{connect_url}/connect/{platform}/callback`, where the code becomes tokens and an account.

The `state` is 256 random bits, stored only as a hash on the session, bound to that
session and forgotten when the callback claims it, so it works once and for 30 minutes at
most. It is not also bound to the browser by a cookie: the account always lands in the
session's workspace whichever browser finishes the flow, and consent may legitimately
finish in another browser than the one that started it (a phone handing over from the
platform's app).
"""
from __future__ import annotations

import datetime as _dt
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

from .models import db
from .models.account import connect_account
from .outbound import guard
from .security.apikeys import random_base62
from .models.connect_session import (
    SIGN_IN_TRIES, SessionUnusable, begin_oauth, claim_choice, claim_oauth_state, claim_sign_in, consume_session,
    offer_choices, open_choices, open_session, retry_session, start_session, use_session,
)
from .models.instance_apps import app_on, forget_app, keep_app
from .models.sandbox_account import connect_sandbox_account
from .models.tokens import refresh_at
from .platforms.base import (
    CREDENTIALS, SERVER, AccountNotEligible, AuthFailed, Choices, ClientRefused, Field, Grant, connect_style,
)
from .platforms.setup import live_setup
from .platforms.http import PlatformUnreachable
from .problems import InvalidRequest, PlanLimitExceeded, PlatformNotConfigured

log = logging.getLogger(__name__)

STATE_LENGTH = 43  # ~256 bits of base62
# Each outcome of the flow (the `error=` of the redirect back, or `connected`) in words for
# the person who connected: the connect pages and the dashboard say them alike.
OUTCOMES = {
    "connected": "Account connected",
    "plan_limit_exceeded": "The workspace cannot connect more accounts on its plan",
    "platform_not_configured": "This server is not set up to connect accounts on this platform yet",
    "access_denied": "Access was not granted",
    "platform_error": "The platform did not complete the connection",
    "account_not_eligible": "This account cannot publish through the platform's API",
}
# What the user can do about an outcome, where there is something; an account that cannot
# publish in its platform's words (its adapter's NOT_ELIGIBLE), as `remedy` says.
REMEDIES = {
    "account_not_eligible": "This account cannot publish through the platform's API.",
    "plan_limit_exceeded": ("The workspace already holds as many accounts as its plan allows, so only an account it "
                            "holds can be connected again, and this one is new to it. To add it, the workspace's owner "
                            "disconnects another account or upgrades the plan first."),
    "access_denied": "Publishing needs the access the platform asked you for.",
}


def remedy(rt, outcome: str, platform: str | None) -> str:
    """What the user can do about `outcome` of connecting `platform`, or ""."""
    entry = rt.platforms.get(platform or "")
    if outcome == "account_not_eligible" and entry is not None and getattr(entry.adapter, "NOT_ELIGIBLE", None):
        return entry.adapter.NOT_ELIGIBLE
    return REMEDIES.get(outcome, "")


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


@dataclass(frozen=True)
class Form:
    """Show the form of a live session: the credentials form (`kind` "credentials") at
    first, or again after a refusal (`error`), with the identifier typed so far and never
    the password; or the form that asks for the server (`kind` "server", its one field)."""

    platform: str
    title: str  # the platform's name
    token: str  # the session's, posted back with the form
    fields: tuple[Field, ...]
    identifier: str = ""
    error: str | None = None
    status: int = 200
    kind: str = "credentials"


@dataclass(frozen=True)
class Pick:
    """Show the accounts one consent granted, to pick one: each (value, name), the form
    posting `token` back and the value as `field` (`error` after a post of none)."""

    platform: str
    title: str
    token: str
    field: str
    noun: str
    options: tuple[tuple[str, str], ...]
    error: str | None = None
    status: int = 200


# What the form takes at most: an identifier is a handle, a DID or an email address.
MAX_IDENTIFIER, MAX_PASSWORD = 256, 1024
# A host name as DNS spells it (RFC 1123 labels).
HOST = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")


def redirect_uri(settings, platform: str) -> str:
    """The redirect URI to register with the platform (README "Live platforms")."""
    return f"{settings.connect_url}/connect/{platform}/callback"


def start(rt, workspace_id: str, platform: str, *, sandbox: bool, redirect_url: str | None) -> str:
    """The connect URL of a new session: `{connect_url}/connect/{platform}?session=<token>`.

    400 for a `redirect_url` the browser may not be sent back to, 422 for a live flow this
    server cannot run, 403 at the account cap unless the flow may be a reconnect."""
    if redirect_url is not None:
        try:
            guard.parse_redirect_url(redirect_url, insecure=rt.settings.insecure_urls)
        except guard.UnsafeURL as e:
            raise InvalidRequest(f"redirect_url: {e}") from None
    return begin(rt, workspace_id, platform, sandbox=sandbox, back=redirect_url)


def begin(rt, workspace_id: str, platform: str, *, sandbox: bool, back: str | None) -> str:
    """The connect URL of a new session, by the rules of every flow (a live one needs the
    platform set up; the account cap), sending the browser to `back` at the end: a client's
    `redirect_url` that `start` checked, or a page of this server (the dashboard's)."""
    if not sandbox and live_setup(rt, platform) is None:
        raise PlatformNotConfigured(not_configured(rt, platform))
    token = start_session(rt, workspace_id, platform=platform, sandbox=sandbox, redirect_url=back)
    return f"{rt.settings.connect_url}/connect/{platform}?{urlencode({'session': token})}"


def not_configured(rt, platform: str) -> str:
    """What the operator does so that live flows of `platform` can run."""
    entry = rt.platforms[platform]
    if entry.adapter is None:
        return f"this server cannot connect live {entry.title} accounts; sandbox keys connect sandbox ones"
    return (f"no {entry.title} app is configured on this server: set {entry.env_prefix}CLIENT_ID and "
            f"{entry.env_prefix}CLIENT_SECRET on its API and worker processes")


def open_link(rt, token: str, platform: str) -> Redirect | Refused:
    """`GET /connect/{platform}?session=`: use the session once, and start its flow; or,
    for a live credentials flow, show its form and leave the session to the form's sign-in."""
    with db.connection_context():
        try:
            session = open_session(rt, token, platform)
            setup = live_setup(rt, platform)
            if not session.sandbox and setup is not None and connect_style(setup[0]) == CREDENTIALS:
                return form(rt, platform, token, setup[0])
            if not session.sandbox and setup is not None and connect_style(setup[0]) == SERVER:
                return server_form(rt, platform, token, setup[0])
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
        if setup is None:
            return Redirect(back, {"platform": platform, "error": "platform_not_configured"})
        adapter, app = setup
        state = random_base62(STATE_LENGTH, rt.randbytes)
        authorization = adapter.authorize(app, redirect_uri(rt.settings, platform), state, randbytes=rt.randbytes)
        verifier = rt.keyring.encrypt(authorization.verifier) if authorization.verifier else None
        begin_oauth(session, state, verifier)
    # Through the host map, so that a browser is sent to the emulator when one stands in.
    return Redirect(rt.platform_http.url(authorization.url))


def denials(adapter) -> tuple[str, ...]:
    """The callback's `error` values that mean the user said no: OAuth's `access_denied`,
    and those the platform names in its own words (the adapter's `DENIED`)."""
    return ("access_denied", *getattr(adapter, "DENIED", ()))


def finish(rt, platform: str, query: Mapping[str, str]) -> Redirect | Refused | Pick:
    """`GET /connect/{platform}/callback?code=&state=` (or `error=`): the platform's answer."""
    session = _opened(claim_oauth_state, rt, query.get("state", ""), platform,
                      said=lambda reason: "late_state" if reason == "expired" else "bad_state")
    if isinstance(session, Refused):
        return session
    back = session.redirect_url or f"{rt.settings.connect_url}/connect/done"

    def fail(code: str) -> Redirect:
        return Redirect(back, {"platform": platform, "error": code})

    if query.get("error") in denials(rt.platforms[platform].adapter):  # the user said no
        return denied(rt, session, back)
    if query.get("error"):  # the platform could not ask them
        return fail("platform_error")
    setup = live_setup(rt, platform)
    if setup is None:  # the app was removed from the settings during the flow
        return fail("platform_not_configured")
    code = query.get("code", "")
    if not code or len(code) > 2000:
        return fail("platform_error")
    adapter, app = setup
    verifier = rt.keyring.decrypt(session.oauth_verifier) if session.oauth_verifier else None
    on_server = {}
    if connect_style(adapter) == SERVER:
        with db.connection_context():
            app = app_on(rt, platform, session.server or "")
        if app is None:  # the app was forgotten during the flow: the user starts again
            return fail("platform_error")
        on_server = {"server": session.server}
    try:
        grant = adapter.exchange(rt.platform_http, app, code, redirect_uri(rt.settings, platform), verifier,
                                 now=rt.now(), settings=rt.settings, **on_server)
    except ClientRefused as e:
        log.warning("connecting %s for workspace %s: the app was refused: %s", platform, session.workspace_id, e)
        if on_server:  # the server swept this app: the next connect registers a new one
            with db.connection_context():
                forget_app(platform, session.server)
        return fail("platform_error")
    except AccountNotEligible as e:
        log.info("connecting %s for workspace %s refused: %s", platform, session.workspace_id, e.reason)
        return fail("account_not_eligible")
    except (AuthFailed, PlatformUnreachable) as e:
        log.warning("connecting %s for workspace %s failed: %s", platform, session.workspace_id,
                    getattr(e, "reason", None) or getattr(e, "message", None))
        return fail("platform_error")
    if isinstance(grant, Choices):
        return offer(rt, session, adapter, grant, fail)
    return connected(rt, session, adapter, grant)


def offer(rt, session, adapter, choices: Choices, fail) -> Redirect | Pick:
    """Several accounts granted: kept, encrypted, for the picker; one is connected at once,
    none is an account that cannot publish."""
    if not choices.grants:
        log.info("connecting %s for workspace %s: the consent granted no %s", session.platform,
                 session.workspace_id, choices.noun)
        return fail("account_not_eligible")
    if len(choices.grants) == 1:
        return connected(rt, session, adapter, choices.grants[0])
    token = random_base62(STATE_LENGTH, rt.randbytes)
    kept = json.dumps({"field": choices.field, "noun": choices.noun, "grants": [_kept(g) for g in choices.grants]})
    with db.connection_context():
        offer_choices(session, token, rt.keyring.encrypt(kept))
    return _pick(rt, session.platform, token, choices)


def pick(rt, platform: str, posted: Mapping[str, str]) -> Redirect | Refused | Pick:
    """`POST /connect/{platform}` from the picker: the account chosen is connected, once.
    Its token is the form's only authority, as a credentials form's is."""
    token = posted.get("pick", "")
    session = _opened(open_choices, rt, token, platform)
    if isinstance(session, Refused):
        return session
    choices = _choices(json.loads(rt.keyring.decrypt(session.choices)))
    chosen = next((g for g in choices.grants if g.user_id == posted.get(choices.field)), None)
    if chosen is None:
        return _pick(rt, platform, token, choices, f"Choose the {choices.noun} to connect.", 400)
    with db.connection_context():
        if not claim_choice(rt, session):  # another post of the form connected first
            return Refused("used")
    return connected(rt, session, rt.platforms[platform].adapter, chosen)


def _posted_session(rt, platform: str, posted: Mapping[str, str], style: str):
    """(adapter, session, token) of the live session a form of `style` posted its token for,
    or the page's refusal (no form of that style was shown for it)."""
    setup = live_setup(rt, platform)
    if setup is None or connect_style(setup[0]) != style:
        return Refused("unknown")
    token = posted.get("session", "")
    session = _opened(open_session, rt, token, platform)
    if isinstance(session, Refused):
        return session
    return (setup[0], session, token) if not session.sandbox else Refused("unknown")


def _opened(opener, rt, token: str, platform: str, *, said=lambda reason: reason):
    """The session `opener` finds for a token a page posted or a platform sent back, or the
    page's refusal (`said` words SessionUnusable's reason)."""
    if not token or len(token) > 200:
        return Refused(said("unknown"))
    with db.connection_context():
        try:
            return opener(rt, token, platform)
        except SessionUnusable as e:
            return Refused(said(e.reason))


def _pick(rt, platform: str, token: str, choices: Choices, error: str | None = None, status: int = 200) -> Pick:
    options = tuple((g.user_id or "", g.username or g.user_id or "") for g in choices.grants)
    return Pick(platform, rt.platforms[platform].title, token, choices.field, choices.noun, options, error, status)


def _kept(grant: Grant) -> dict:
    return {"access_token": grant.access_token, "refresh_token": grant.refresh_token, "user_id": grant.user_id,
            "username": grant.username, "expires_at": grant.expires_at.isoformat() if grant.expires_at else None,
            "details": dict(grant.details) if grant.details is not None else None}


def _choices(kept: dict) -> Choices:
    grants = tuple(Grant(access_token=g["access_token"], refresh_token=g["refresh_token"], user_id=g["user_id"],
                         username=g["username"],
                         expires_at=_dt.datetime.fromisoformat(g["expires_at"]) if g["expires_at"] else None,
                         details=g.get("details"))
                   for g in kept["grants"])
    return Choices(kept["field"], kept["noun"], grants)


def connected(rt, session, adapter, grant: Grant) -> Redirect:
    """The end of every live flow that got tokens, whatever its style: the account added, or
    made active again, under the account cap."""
    platform, back = session.platform, session.redirect_url or f"{rt.settings.connect_url}/connect/done"
    with db.connection_context():
        try:
            account = connect_account(
                rt, session.workspace_id, platform=platform, sandbox=False,
                platform_user_id=grant.user_id, username=grant.username,
                access_token=grant.access_token, refresh_token=grant.refresh_token,
                token_expires_at=grant.expires_at, refresh_at=refresh_at(adapter, grant, rt.now(), rt.randbytes),
                details=grant.details,
            )
        except PlanLimitExceeded:
            # A new platform user at the cap: the URL was given because the flow might have
            # been a reconnect (caps.check_connect), and it was not.
            log.info("connecting %s for workspace %s refused: a new account past the account cap",
                     platform, session.workspace_id)
            return Redirect(back, {"platform": platform, "error": "plan_limit_exceeded"})
    log.info("connected %s account %s to workspace %s", platform, account.id, session.workspace_id)
    return Redirect(back, {"platform": platform, "account_id": account.id, "status": "connected"})


def form(rt, platform: str, token: str, adapter, identifier: str = "", error: str | None = None,
         status: int = 200) -> Form:
    return Form(platform, rt.platforms[platform].title, token, tuple(adapter.fields), identifier, error, status)


def take_form(rt, platform: str, posted: Mapping[str, str]) -> Redirect | Refused | Form | Pick:
    """`POST /connect/{platform}`: the picker's (it posts `pick`), the server form of a
    server-style platform, or the credentials form."""
    if "pick" in posted:
        return pick(rt, platform, posted)
    setup = live_setup(rt, platform)
    if setup is not None and connect_style(setup[0]) == SERVER:
        return choose_server(rt, platform, posted)
    return sign_in(rt, platform, posted)


def server_form(rt, platform: str, token: str, adapter, typed: str = "", error: str | None = None,
                status: int = 200) -> Form:
    field_ = getattr(adapter, "server_field", None) or Field("server", "server")
    return Form(platform, rt.platforms[platform].title, token, (field_,), typed, error, status, kind="server")


def server_named(rt, typed: str) -> str | None:
    """The host name the user typed (`mastodon.social`, or with https:// and a slash), lower
    case, when it is one this server may call: a listed host (FANOUT_PLATFORM_HOSTS), or a
    DNS name all of whose addresses are public, as every outbound host must be; else None."""
    host = typed.strip().lower().removeprefix("https://").rstrip("/")
    if not HOST.fullmatch(host) or "." not in host:
        return None
    if host in rt.settings.platform_hosts:
        return host
    try:
        guard.public_addresses(host, rt.resolve)
    except guard.UnsafeURL:
        return None
    return host


def choose_server(rt, platform: str, posted: Mapping[str, str]) -> Redirect | Refused | Form:
    """`POST /connect/{platform}` from the server form: the server checked, this server's app
    there (registered once, kept), then the platform's consent page on it. The session token
    is the form's only authority, as a credentials form's is; it is used up here."""
    opened = _posted_session(rt, platform, posted, SERVER)
    if isinstance(opened, Refused):
        return opened
    adapter, session, token = opened
    typed = posted.get(getattr(adapter, "server_field", Field("server", "server")).name, "")
    server = server_named(rt, typed[:MAX_IDENTIFIER])
    if server is None:
        return server_form(rt, platform, token, adapter, typed[:MAX_IDENTIFIER],
                           "Enter the address of a server on the internet, such as mastodon.social.", 400)
    back = redirect_uri(rt.settings, platform)
    with db.connection_context():
        app = app_on(rt, platform, server)
    if app is None:
        try:
            app = adapter.register(rt.platform_http, server, back, settings=rt.settings)
        except (AuthFailed, PlatformUnreachable) as e:
            log.info("registering an app on %s server %s failed: %s", platform, server,
                     getattr(e, "reason", None) or getattr(e, "message", None))
            return server_form(rt, platform, token, adapter, typed, f"{server} did not let Fanout register there.", 502)
        with db.connection_context():
            app = keep_app(rt, platform, server, app)
    with db.connection_context():
        try:
            session = consume_session(rt, token, platform)
        except SessionUnusable as e:
            return Refused(e.reason)
        state = random_base62(STATE_LENGTH, rt.randbytes)
        authorization = adapter.authorize(app, back, state, randbytes=rt.randbytes, server=server)
        verifier = rt.keyring.encrypt(authorization.verifier) if authorization.verifier else None
        begin_oauth(session, state, verifier, server)
    return Redirect(rt.platform_http.url(authorization.url))


def sign_in(rt, platform: str, posted: Mapping[str, str]) -> Redirect | Refused | Form:
    """`POST /connect/{platform}`: the credentials form. The session token it carries is its
    only authority (single-use, 30 minutes, SIGN_IN_TRIES sign-ins), so no cookie is needed
    against cross-site posts: a page elsewhere cannot know a token. The password is handed to
    the adapter's one call and dropped: never logged, stored or shown."""
    opened = _posted_session(rt, platform, posted, CREDENTIALS)
    if isinstance(opened, Refused):
        return opened
    adapter, session, token = opened
    identifier_field, password_field = adapter.fields
    identifier, password = posted.get(identifier_field.name, "").strip(), posted.get(password_field.name, "")
    if not identifier or not password:
        return form(rt, platform, token, adapter, identifier[:MAX_IDENTIFIER],
                    f"Enter your {identifier_field.label} and your {password_field.label}.", 400)
    if len(identifier) > MAX_IDENTIFIER or len(password) > MAX_PASSWORD:
        return form(rt, platform, token, adapter, "", "That is longer than any account's sign-in.", 400)
    with db.connection_context():
        try:
            session = claim_sign_in(rt, token, platform)
        except SessionUnusable as e:
            return Refused(e.reason)
    back = session.redirect_url or f"{rt.settings.connect_url}/connect/done"
    try:
        grant = adapter.sign_in(rt.platform_http, identifier, password, now=rt.now(), settings=rt.settings)
    except AccountNotEligible as e:
        log.info("connecting %s for workspace %s refused: %s", platform, session.workspace_id, e.reason)
        with db.connection_context():
            use_session(rt, session)
        return Redirect(back, {"platform": platform, "error": "account_not_eligible"})
    except (AuthFailed, PlatformUnreachable) as e:
        unreachable = isinstance(e, PlatformUnreachable)
        log.info("signing in to %s for workspace %s failed (try %d of %d): %s", platform, session.workspace_id,
                 session.sign_in_attempts, SIGN_IN_TRIES, getattr(e, "reason", None) or getattr(e, "message", None))
        left = SIGN_IN_TRIES - session.sign_in_attempts
        if left <= 0:
            return Refused("tries")
        title = rt.platforms[platform].title
        said = (f"{title} could not be reached." if unreachable else
                f"{title} did not accept this {identifier_field.label} and {password_field.label}.")
        tries = "1 more try" if left == 1 else f"{left} more tries"
        return form(rt, platform, token, adapter, identifier, f"{said} This link allows {tries}.",
                    503 if unreachable else 401)
    with db.connection_context():
        if not use_session(rt, session):  # another post of the form connected first
            return Refused("used")
    return connected(rt, session, adapter, grant)


def denied(rt, session, back: str) -> Redirect:
    """The user refused consent. The built-in page offers another try through a new session
    (this one is used up); a client's `redirect_url` gets none, its client makes its own
    (docs/decisions.md#connect-flow)."""
    params = {"platform": session.platform, "error": "access_denied"}
    if session.redirect_url is None and live_setup(rt, session.platform) is not None:
        with db.connection_context():
            try:
                params["retry"] = retry_session(rt, session)
            except PlanLimitExceeded:
                pass  # another try could only be refused: offer none
    return Redirect(back, params)
