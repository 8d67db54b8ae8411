"""TestSky: a platform of the tests only, whose users sign in with an identifier (a handle
or an email address) and an app password, as Bluesky's
`POST /xrpc/com.atproto.server.createSession` takes them (docs/platforms.md, Bluesky):

- 200 `{"accessJwt", "refreshJwt", "handle", "did", "active"}` for a right pair, new
  tokens each time;
- 401 `{"error": "AuthenticationRequired", "message": "Invalid identifier or password"}`
  for a wrong one;
- 400 `{"error": "InvalidRequest", ...}` without both fields.

`POST /xrpc/com.atproto.server.refreshSession` with `Authorization: Bearer <refreshJwt>`
answers the same shape with both tokens new; the refresh token is rotated, so the old one
answers 400 `{"error": "ExpiredToken", "message": "Token has been revoked"}` afterwards.

Only app passwords sign in: a main password answers 401 `AuthFactorTokenRequired`, as
Bluesky does for a main password with email 2FA.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from ..base import EmulatorServer
from ..wire import Request, Response

HOSTS = ("api.testsky.example",)
CREATE_SESSION = "/xrpc/com.atproto.server.createSession"
REFRESH_SESSION = "/xrpc/com.atproto.server.refreshSession"


@dataclass
class SkyAccount:
    did: str
    handle: str
    email: str
    app_passwords: list[str] = field(default_factory=list)
    main_password: str = ""


def xrpc_error(status: int, name: str, message: str) -> Response:
    return Response.json(status, {"error": name, "message": message})


class TestSkyEmulator(EmulatorServer):
    __test__ = False  # not a test class, whatever pytest makes of its name
    name = "testsky"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.accounts: list[SkyAccount] = []
        self.sessions: dict[str, str] = {}  # access token: did
        self.refresh_tokens: dict[str, str] = {}  # refresh token not yet rotated: did
        self._reset_state()
        self.route("POST", CREATE_SESSION, self.create_session)
        self.route("POST", REFRESH_SESSION, self.refresh_session)

    def _reset_state(self) -> None:
        self.accounts = [SkyAccount("did:plc:testsky0000000000000001", "alice.testsky.example", "alice@example.com",
                                    app_passwords=["abcd-efgh-ijkl-mnop"], main_password="alice-main-password")]
        self.sessions = {}
        self.refresh_tokens = {}

    def add_account(self, handle: str, app_password: str) -> SkyAccount:
        with self.lock:
            account = SkyAccount(f"did:plc:testsky{len(self.accounts) + 1:018d}", handle, f"{handle}@example.com",
                                 app_passwords=[app_password])
            self.accounts.append(account)
            return account

    def find(self, identifier: str) -> SkyAccount | None:
        wanted = identifier.lower().removeprefix("@")
        return next((a for a in self.accounts if wanted in (a.did, a.handle, a.email)), None)

    def create_session(self, request: Request) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        identifier, password = body.get("identifier"), body.get("password")
        if not isinstance(identifier, str) or not isinstance(password, str) or not identifier or not password:
            return xrpc_error(400, "InvalidRequest", "Input must have the properties \"identifier\" and \"password\"")
        with self.lock:
            account = self.find(identifier)
            if account is not None and password == account.main_password:
                return xrpc_error(401, "AuthFactorTokenRequired", "A sign in code has been sent to your email address")
            if account is None or password not in account.app_passwords:
                return xrpc_error(401, "AuthenticationRequired", "Invalid identifier or password")
            return self.session_of(account)

    def refresh_session(self, request: Request) -> Response:
        with self.lock:
            did = self.refresh_tokens.pop(request.bearer() or "", None)
            account = next((a for a in self.accounts if a.did == did), None)
            if account is None:
                return xrpc_error(400, "ExpiredToken", "Token has been revoked")
            return self.session_of(account)

    def session_of(self, account: SkyAccount) -> Response:
        """A new pair of tokens for `account` (the lock held)."""
        access, refresh = f"sky-access-{secrets.token_urlsafe(24)}", f"sky-refresh-{secrets.token_urlsafe(24)}"
        self.sessions[access], self.refresh_tokens[refresh] = account.did, account.did
        return Response.json(200, {"accessJwt": access, "refreshJwt": refresh, "handle": account.handle,
                                   "did": account.did, "active": True})
