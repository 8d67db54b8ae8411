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

Posts are records, as on Bluesky's PDS: `POST /xrpc/com.atproto.repo.createRecord` with the
access token, `{"repo": <did>, "collection": "app.bsky.feed.post", "rkey"?, "record":
{"$type", "text", "createdAt"}}`, answers 200 `{"uri": "at://<did>/<collection>/<rkey>",
"cid"}`; a record key already taken answers 400 `InvalidRequest`; an unknown or expired
access token 401 `ExpiredToken`. `GET /xrpc/com.atproto.repo.getRecord?repo=&collection=&rkey=`
answers 200 `{"uri", "cid", "value"}` or 400 `RecordNotFound`.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from ..base import EmulatorServer
from ..wire import Request, Response

HOSTS = ("api.testsky.example",)
CREATE_SESSION = "/xrpc/com.atproto.server.createSession"
REFRESH_SESSION = "/xrpc/com.atproto.server.refreshSession"
CREATE_RECORD = "/xrpc/com.atproto.repo.createRecord"
GET_RECORD = "/xrpc/com.atproto.repo.getRecord"


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
        self.records: dict[str, dict] = {}  # at:// URI: the record, in the order created
        self._reset_state()
        self.route("POST", CREATE_SESSION, self.create_session)
        self.route("POST", REFRESH_SESSION, self.refresh_session)
        self.route("POST", CREATE_RECORD, self.create_record)
        self.route("GET", GET_RECORD, self.get_record)

    def _reset_state(self) -> None:
        self.accounts = [SkyAccount("did:plc:testsky0000000000000001", "alice.testsky.example", "alice@example.com",
                                    app_passwords=["abcd-efgh-ijkl-mnop"], main_password="alice-main-password")]
        self.sessions = {}
        self.refresh_tokens = {}
        self.records = {}

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

    def create_record(self, request: Request) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        with self.lock:
            did = self.sessions.get(request.bearer() or "")
            if did is None:
                return xrpc_error(401, "ExpiredToken", "Token has expired")
            repo, collection, record = body.get("repo"), body.get("collection"), body.get("record")
            if repo != did or not isinstance(collection, str) or not isinstance(record, dict):
                return xrpc_error(400, "InvalidRequest", "Input must have the properties \"repo\", \"collection\" and \"record\"")
            rkey = body.get("rkey") or secrets.token_hex(7)
            uri = f"at://{did}/{collection}/{rkey}"
            if uri in self.records:
                return xrpc_error(400, "InvalidRequest", f"Record already exists: {uri}")
            self.records[uri] = record
            return Response.json(200, {"uri": uri, "cid": cid_of(record)})

    def get_record(self, request: Request) -> Response:
        query = request.query
        uri = f"at://{query.get('repo')}/{query.get('collection')}/{query.get('rkey')}"
        with self.lock:
            record = self.records.get(uri)
        if record is None:
            return xrpc_error(400, "RecordNotFound", f"Could not locate record: {uri}")
        return Response.json(200, {"uri": uri, "cid": cid_of(record), "value": record})


def cid_of(record: dict) -> str:
    return "bafyrei" + hashlib.sha256(repr(sorted(record.items())).encode()).hexdigest()[:40]
