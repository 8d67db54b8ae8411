"""Identity and sessions as the Bluesky emulator keeps them: handle -> DID
(`resolveHandle`), DID -> DID document (plc.directory), app-password sessions
(`createSession`, `refreshSession` with rotation, `getSession`, `deleteSession`), service
tokens (`getServiceAuth`) and the token check of every authenticated call
(tests/emulators/README.md#bluesky)."""
from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import hmac
import json
import secrets

from ..wire import Request, Response
from .state import BlueskyAccount, RefreshToken, XrpcError, invalid_request

ACCESS_TTL = dt.timedelta(minutes=120)
REFRESH_TTL = dt.timedelta(days=90)
ACCESS, REFRESH = "com.atproto.access", "com.atproto.refresh"
# getServiceAuth: a token bound to one method (`lxm`) may live an hour, an unbound one 60 s.
SERVICE_DEFAULT, SERVICE_MOST_BOUND, SERVICE_MOST_UNBOUND = 60, 3600, 60
# createSession per account: 30 in 5 minutes and 300 a day (the reference PDS).
SESSION_LIMITS = ((30, dt.timedelta(minutes=5)), (300, dt.timedelta(days=1)))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Handlers and controls of identity and sessions, on an emulator holding `lock`,
    `clock`, `_accounts`, `_refresh`, `_expired_access`, `_session_hits`, `pds_host`,
    `refresh_grace`, `_secret`."""

    # --- tokens -----------------------------------------------------------------------------------

    def _jwt(self, payload: dict) -> str:
        header = _b64(json.dumps({"typ": "at+jwt", "alg": "HS256"}).encode())
        body = _b64(json.dumps(payload, separators=(",", ":")).encode())
        signature = hmac.new(self._secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{_b64(signature)}"

    def _claims(self, token: str) -> dict | None:
        """The payload of a JWT this emulator signed, or None."""
        try:
            header, body, signature = token.split(".")
            expected = hmac.new(self._secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
            if not hmac.compare_digest(expected, _unb64(signature)):
                return None
            claims = json.loads(_unb64(body))
        except (ValueError, binascii.Error):
            return None
        return claims if isinstance(claims, dict) else None

    def _session(self, account: BlueskyAccount) -> dict:
        """A new access and refresh JWT for `account` (the lock held)."""
        now = self.clock.now()
        stamp = int(now.timestamp())
        aud = f"did:web:{self.pds_of(account)}"
        access = self._jwt({"scope": ACCESS, "sub": account.did, "aud": aud, "iat": stamp,
                            "exp": stamp + int(ACCESS_TTL.total_seconds()), "nonce": secrets.token_hex(4)})
        jti = secrets.token_urlsafe(24)
        refresh = self._jwt({"scope": REFRESH, "sub": account.did, "aud": aud, "jti": jti, "iat": stamp,
                             "exp": stamp + int(REFRESH_TTL.total_seconds())})
        self._refresh[jti] = RefreshToken(jti, account.did, now + REFRESH_TTL)
        self._access_issued.setdefault(account.did, []).append(access)
        return {"accessJwt": access, "refreshJwt": refresh, "handle": account.handle, "did": account.did,
                "didDoc": self.did_document(account), "email": account.email,
                "emailConfirmed": account.email_confirmed, "emailAuthFactor": account.two_factor,
                "active": account.status is None, **({"status": account.status} if account.status else {})}

    def _auth(self, request: Request, scope: str = ACCESS) -> BlueskyAccount:
        """The account of the call's Bearer token of `scope`, or the XRPC error a PDS gives
        (the lock held)."""
        token = request.bearer()
        if not token:
            raise XrpcError(401, "AuthMissing", "Authentication Required")
        claims = self._claims(token)
        if claims is None:
            raise XrpcError(400, "InvalidToken", "Token could not be verified")
        if claims.get("scope") != scope:
            raise XrpcError(400, "InvalidToken", "Bad token scope")
        account = self._accounts.get(claims.get("sub"))
        if account is None:
            raise XrpcError(400, "InvalidToken", "Token could not be verified")
        now = self.clock.now()
        if claims.get("exp", 0) <= now.timestamp() or token in self._expired_access:
            raise XrpcError(400, "ExpiredToken", "Token has expired")
        if scope == REFRESH:
            record = self._refresh.get(claims.get("jti"))
            rotated_long_ago = record is not None and record.rotated_at is not None and (
                now - record.rotated_at >= dt.timedelta(seconds=self.refresh_grace))
            if record is None or record.revoked or rotated_long_ago:
                raise XrpcError(400, "ExpiredToken", "Token has been revoked")
        if account.status == "takendown":
            raise XrpcError(401, "AccountTakedown", "Account has been taken down")
        return account

    # --- identity ---------------------------------------------------------------------------------

    def pds_of(self, account: BlueskyAccount) -> str:
        return account.pds_host or self.pds_host

    def did_document(self, account: BlueskyAccount) -> dict:
        return {
            "id": account.did,
            "alsoKnownAs": [f"at://{account.handle}"],
            "verificationMethod": [{"id": f"{account.did}#atproto", "type": "Multikey", "controller": account.did,
                                    "publicKeyMultibase": "zQ3sh" + hashlib.sha256(account.did.encode()).hexdigest()[:44]}],
            "service": [{"id": "#atproto_pds", "type": "AtprotoPersonalDataServer",
                         "serviceEndpoint": f"https://{self.pds_of(account)}"}],
        }

    def find(self, identifier: str) -> BlueskyAccount | None:
        """The account a handle, DID or email names (the lock held)."""
        wanted = identifier.strip().lower().removeprefix("@")
        return next((a for a in self._accounts.values() if wanted in (a.did, a.handle.lower(), a.email.lower())), None)

    def _resolve_handle(self, request: Request) -> Response:
        handle = request.query.get("handle")
        if not handle:
            raise invalid_request('Error: Params must have the property "handle"')
        with self.lock:
            account = next((a for a in self._accounts.values() if a.handle.lower() == handle.lower()), None)
        if account is None:
            raise XrpcError(400, "HandleNotFound", "Unable to resolve handle")
        return Response.json(200, {"did": account.did})

    def _plc_document(self, request: Request, did: str) -> Response:
        with self.lock:
            account = self._accounts.get(did)
        if account is None:
            return Response.json(404, {"message": f"DID not registered: {did}"})
        return Response(200, json.dumps(self.did_document(account)).encode(),
                        {"Content-Type": "application/did+ld+json; charset=utf-8"})

    # --- sessions ---------------------------------------------------------------------------------

    def _create_session(self, request: Request) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        identifier, password = body.get("identifier"), body.get("password")
        if not isinstance(identifier, str) or not isinstance(password, str) or not identifier or not password:
            raise invalid_request('Input must have the properties "identifier" and "password"')
        with self.lock:
            account = self.find(identifier)
            key = account.did if account else identifier.lower()
            headers = self._session_limit(key)
            if account is None or password not in (*account.app_passwords, account.main_password):
                raise XrpcError(401, "AuthenticationRequired", "Invalid identifier or password", headers)
            if password == account.main_password and account.two_factor and not body.get("authFactorToken"):
                raise XrpcError(401, "AuthFactorTokenRequired", "A sign in code has been sent to your email address",
                                headers)
            if account.status == "takendown":
                raise XrpcError(401, "AccountTakedown", "Account has been taken down", headers)
            return Response.json(200, self._session(account), headers)

    def _session_limit(self, key: str) -> dict:
        """Count one createSession against the account's limits: past either, 429 (the lock held)."""
        now = self.clock.now()
        hits = self._session_hits.setdefault(key, [])
        hits[:] = [t for t in hits if now - t < SESSION_LIMITS[-1][1]]
        headers = {}
        for limit, window in SESSION_LIMITS:
            inside = [t for t in hits if now - t < window]
            reset = int(((min(inside) if inside else now) + window).timestamp())
            headers = rate_headers(limit, limit - len(inside) - 1, reset, window)
            if len(inside) >= limit:
                raise XrpcError(429, "RateLimitExceeded", "Rate Limit Exceeded", rate_headers(limit, 0, reset, window))
        hits.append(now)
        return headers

    def _refresh_session(self, request: Request) -> Response:
        with self.lock:
            account = self._auth(request, REFRESH)
            record = self._refresh[self._claims(request.bearer())["jti"]]
            if record.rotated_at is None:
                record.rotated_at = self.clock.now()
            return Response.json(200, self._session(account))

    def _get_session(self, request: Request) -> Response:
        with self.lock:
            account = self._auth(request)
            session = self._session(account)
            for key in ("accessJwt", "refreshJwt"):
                session.pop(key)
        return Response.json(200, session)

    def _delete_session(self, request: Request) -> Response:
        with self.lock:
            self._auth(request, REFRESH)
            self._refresh[self._claims(request.bearer())["jti"]].revoked = True
        return Response(200)

    def _get_service_auth(self, request: Request) -> Response:
        p = request.query
        with self.lock:
            account = self._auth(request)
            if not p.get("aud"):
                raise invalid_request('Error: Params must have the property "aud"')
            now = int(self.clock.now().timestamp())
            try:
                exp = int(p["exp"]) if p.get("exp") else now + SERVICE_DEFAULT
            except ValueError:
                raise invalid_request("exp must be an integer") from None
            most = SERVICE_MOST_BOUND if p.get("lxm") else SERVICE_MOST_UNBOUND
            if exp <= now:
                raise XrpcError(400, "BadExpiration", "expiration is in past")
            if exp - now > most:
                raise XrpcError(400, "BadExpiration", f"cannot request a token with an expiration more than "
                                                      f"{most // 60 if most >= 60 else most} "
                                                      f"{'minutes' if most >= 60 else 'seconds'} in the future")
            claims = {"iss": account.did, "aud": p["aud"], "exp": exp, "iat": now, "jti": secrets.token_hex(16)}
            if p.get("lxm"):
                claims["lxm"] = p["lxm"]
            return Response.json(200, {"token": self._jwt(claims)})

    def _service_claims(self, request: Request, aud: str | None, lxm: str) -> dict:
        """The claims of a service token made for `aud` (None: any) and method `lxm`, or 401."""
        token = request.bearer()
        if not token:
            raise XrpcError(401, "AuthMissing", "Authentication Required")
        claims = self._claims(token)
        if claims is None or "iss" not in claims:
            raise XrpcError(401, "AuthenticationRequired", "Invalid service token")
        if claims.get("exp", 0) <= self.clock.now().timestamp():
            raise XrpcError(401, "AuthenticationRequired", "Service token has expired")
        if aud is not None and claims.get("aud") != aud:
            raise XrpcError(401, "AuthenticationRequired", f"Service token audience must be {aud}")
        if claims.get("lxm") not in (None, lxm):
            raise XrpcError(401, "AuthenticationRequired", f"Service token is not for {lxm}")
        return claims

    # --- controls ---------------------------------------------------------------------------------

    def expire_tokens(self, did: str | None = None) -> int:
        """Every access token the account holds now answers ExpiredToken (as after 2 hours);
        its refresh tokens still work. Answers how many were live."""
        with self.lock:
            did = did or self.default_did
            issued = self._access_issued.get(did, [])
            live = [t for t in issued if t not in self._expired_access]
            self._expired_access.update(issued)
            return len(live)

    def revoke_refresh(self, did: str | None = None) -> int:
        """Every refresh token of the account answers ExpiredToken "Token has been revoked",
        as after the app password is revoked; its access tokens expire too."""
        with self.lock:
            did = did or self.default_did
            hit = [r for r in self._refresh.values() if r.did == did and not r.revoked]
            for record in hit:
                record.revoked = True
        self.expire_tokens(did)
        return len(hit)

    def issue_session(self, did: str | None = None) -> dict:
        """A session as createSession would answer it, for tests that start signed in."""
        with self.lock:
            return self._session(self._accounts[did or self.default_did])


def rate_headers(limit: int, remaining: int, reset: int, window: dt.timedelta) -> dict:
    return {"RateLimit-Limit": str(limit), "RateLimit-Remaining": str(max(0, remaining)),
            "RateLimit-Reset": str(reset), "RateLimit-Policy": f"{limit};w={int(window.total_seconds())}"}
