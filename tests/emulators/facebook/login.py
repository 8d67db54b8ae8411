"""Facebook Login as the emulator plays it, on Meta's OAuth shared with the Threads and
Instagram emulators (tests/emulators/graph/oauth.py): the dialog (declined permissions,
the Pages a user selects), the code for a short-lived user token, the 60-day exchange
(`fb_exchange_token`), `/me`, `/me/permissions`, `/me/accounts` and the Page tokens it
reads, `/{page-id}?fields=access_token`, `/debug_token`, and the controls over users,
Pages and tokens (tests/emulators/README.md#facebook)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
from typing import Any, Iterable
from urllib.parse import urlencode

from ..consent import error_page, revoke_where
from ..graph import GraphError, requested_fields, select, unknown_object
from ..graph.oauth import GraphOAuth, Token
from ..wire import Request, Response
from .state import EVERY_TASK, NEVER, REVOKED, FacebookPage, FacebookUser, PageToken, param_error

SHORT_PAGE_TOKEN = dt.timedelta(hours=1)  # a Page token read with a short-lived user token
ACCOUNT_FIELDS = ("id", "name", "access_token", "category", "category_list", "tasks")


class FacebookLogin(GraphOAuth):
    """Login and tokens, on an emulator holding `client_id`, `client_secret`,
    `redirect_uris`, `clock`, `lock`, `_users`, `_pages`, `_tokens`, `_codes`,
    `_consenting`, `_deny`, `_asked` (the permissions each user was asked for) and
    `_revoked` (the subcode each user's revoked tokens answer)."""

    TOKEN_PREFIX = "EAAB"
    CODE_TTL = dt.timedelta(minutes=10)
    SHORT_LIVED, LONG_LIVED = dt.timedelta(seconds=5400), dt.timedelta(days=60)
    MISSING_TOKEN = (2500, "An active access token must be used to query information about the current user.")
    UNKNOWN_TOKEN = (190, "Invalid OAuth access token - Cannot parse access token")

    # --- controls -------------------------------------------------------------------------

    def add_user(self, name: str, user_id: str | None = None, pages: Iterable[str] = ()) -> FacebookUser:
        """Another user, with every task on each of `pages` (ids of Pages that exist)."""
        with self.lock:
            user = FacebookUser(str(user_id or next(self._ids)), name, {str(p): EVERY_TASK for p in pages})
            self._users[user.id] = user
            if self._consenting is None:
                self._consenting = user.id
            return user

    def add_page(self, user_id: str, name: str, page_id: str | None = None, username: str | None = None,
                 tasks: Iterable[str] = EVERY_TASK) -> FacebookPage:
        """A Page `user_id` has a role on (with `tasks`), made now if it does not exist."""
        with self.lock:
            page = self._pages.get(str(page_id)) if page_id else None
            if page is None:
                page = FacebookPage(str(page_id or next(self._ids)), name, username)
                self._pages[page.id] = page
            self._users[str(user_id)].pages[page.id] = tuple(tasks)
            return page

    def remove_role(self, user_id: str, page_id: str) -> None:
        """The user no longer has a role on the Page: their tokens for it answer 190/492."""
        with self.lock:
            self._users[str(user_id)].pages.pop(str(page_id), None)

    def decline(self, user_id: str, permissions: Iterable[str]) -> None:
        """At their next consents the user declines these permissions."""
        with self.lock:
            self._users[str(user_id)].declined = frozenset(permissions)

    def select_pages(self, user_id: str, page_ids: Iterable[str] | None) -> None:
        """At the consent the user grants the app these of their Pages (None: every one)."""
        with self.lock:
            self._users[str(user_id)].granted_pages = None if page_ids is None else tuple(map(str, page_ids))

    def next_user(self, user_id: str) -> None:
        """The user who consents next (`consent_as`)."""
        self.consent_as(user_id)

    def revoke(self, user: str | None = None, subcode: int = 460) -> int:
        """Every token of the user, user and Page tokens, answers 190 with `subcode` (458 the
        app removed, 459, 460 the password changed, 464, 467); 458 also uninstalls the app."""
        if subcode not in REVOKED:
            raise ValueError(f"subcode is one of {sorted(REVOKED)}")
        uid = str(user or self._consenting)
        with self.lock:
            self._revoked[uid] = subcode
            if subcode == 458:
                self._users[uid].app_installed = False
            return revoke_where(self._tokens, lambda t: t.user_id == uid)

    def take_back(self, user: str, permission: str) -> int:
        """The user removes one permission from the app (in Facebook's settings): every token
        of theirs, user and Page tokens, loses it."""
        with self.lock:
            hit = [t for t in self._tokens.values() if t.user_id == str(user) and permission in t.scopes]
            for token in hit:
                self._tokens[token.value] = dataclasses.replace(token, scopes=token.scopes - {permission})
            return len(hit)

    def expire_user_tokens(self, user: str | None = None) -> int:
        """The user's user tokens expire now (Page tokens read with a long-lived one do not)."""
        uid = str(user or self._consenting)
        now = self.clock.now()
        with self.lock:
            hit = [t for t in self._tokens.values() if t.user_id == uid and not isinstance(t, PageToken)]
            for token in hit:
                self._tokens[token.value] = dataclasses.replace(token, expires_at=now)
            return len(hit)

    def page_token(self, page_id: str | None = None, user_id: str | None = None, *,
                   scopes: Iterable[str] | None = None) -> str:
        """A Page token as /me/accounts gives it after the long-lived exchange (it never
        expires), for tests that start connected; default: the first Page of the user."""
        with self.lock:
            user = self._users[str(user_id or self._consenting)]
            page = str(page_id or next(iter(user.pages)))
            scopes = (*self.SCOPES, *self.MORE_SCOPES) if scopes is None else scopes
            return self._page_token(user.id, page, frozenset(scopes), long_lived=True).value

    def tokens_of(self, user: str | None = None) -> list[dict]:
        """The user's tokens as tests read them: kind, Page, scopes, expiry (no values)."""
        uid = str(user or self._consenting)
        with self.lock:
            return [{"type": "PAGE" if isinstance(t, PageToken) else "USER", "page_id": getattr(t, "page_id", None),
                     "long_lived": t.long_lived, "scopes": sorted(t.scopes), "issued_at": t.issued_at,
                     "expires_at": None if t.expires_at == NEVER else t.expires_at, "revoked": t.revoked}
                    for t in self._tokens.values() if t.user_id == uid]

    # --- OAuth ----------------------------------------------------------------------------

    def _granted(self, user_id: str, scopes: frozenset) -> frozenset:
        user = self._users[user_id]
        self._asked.setdefault(user_id, set()).update(scopes)
        user.app_installed = True
        return frozenset(scopes - user.declined)

    def _code_answer(self, token: Token) -> dict:
        return {"access_token": token.value, "token_type": "bearer",
                "expires_in": int((token.expires_at - self.clock.now()).total_seconds())}

    def _dialog(self, request: Request) -> Response:
        """The login dialog: an app or redirect URI it does not know is an error page."""
        try:
            return self._authorize(request)
        except GraphError as e:
            return error_page(e.message)

    def _access_token(self, request: Request) -> Response:
        """/oauth/access_token: the code exchange, or `grant_type=fb_exchange_token`."""
        if request.params.get("grant_type") != "fb_exchange_token":
            return self._exchange_code(request)
        p = request.params
        self._check_app(p, client_id=True, secret=True)
        with self.lock:
            old = self._valid_token(p.get("fb_exchange_token"))
            if isinstance(old, PageToken):
                raise param_error("(#100) fb_exchange_token must be a user access token")
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _valid_token(self, value: str | None) -> Token:
        """A token that works: a revoked one answers its user's subcode; a Page token, while
        its user still has a role on its Page."""
        token = self._tokens.get(value or "")
        if token is not None and token.revoked:
            subcode = self._revoked.get(token.user_id, 460)
            raise GraphError(REVOKED[subcode].format(client_id=self.client_id), code=190, subcode=subcode)
        token = super()._valid_token(value)
        if isinstance(token, PageToken) and token.page_id not in self._users[token.user_id].pages:
            raise GraphError(REVOKED[492], code=190, subcode=492)
        return token

    def _token(self, request: Request) -> Token:
        """The call's token (`access_token`, or `Authorization: Bearer|OAuth`). Under the lock."""
        return self._valid_token(request.params.get("access_token") or request.bearer())

    def _page_token(self, user_id: str, page_id: str, scopes: frozenset, *, long_lived: bool) -> PageToken:
        now = self.clock.now()
        token = PageToken(self.TOKEN_PREFIX + secrets.token_urlsafe(48), user_id, long_lived, scopes, now,
                          NEVER if long_lived else now + SHORT_PAGE_TOKEN, page_id=page_id)
        self._tokens[token.value] = token
        return token

    # --- who the token is ---------------------------------------------------------------------

    def _granted_pages(self, user: FacebookUser) -> list[FacebookPage]:
        chosen = user.granted_pages
        return [self._pages[p] for p in user.pages if chosen is None or p in chosen]

    def _page_fields(self, page: FacebookPage, token: Token) -> dict:
        """A Page's fields as a token of its user reads them (its `access_token` new)."""
        tasks = self._users[token.user_id].pages.get(page.id, ())
        return {
            "id": lambda: page.id, "name": lambda: page.name, "username": lambda: page.username,
            "category": lambda: page.category,
            "category_list": lambda: [{"id": "2500", "name": page.category}],
            "tasks": lambda: list(tasks), "link": lambda: f"https://www.facebook.com/{page.path}",
            "access_token": lambda: self._page_token(token.user_id, page.id, token.scopes,
                                                     long_lived=token.long_lived).value
            if not isinstance(token, PageToken) and tasks else None,
        }

    def _me(self, request: Request) -> Response:
        fields = requested_fields(request.params.get("fields"), ("id", "name"))
        with self.lock:
            token = self._token(request)
            if isinstance(token, PageToken):
                page = self._pages[token.page_id]
                return Response.json(200, select(fields, self._page_fields(page, token), "Page"))
            user = self._users[token.user_id]
            return Response.json(200, select(fields, {"id": lambda: user.id, "name": lambda: user.name}, "User"))

    def _permissions(self, request: Request) -> Response:
        with self.lock:
            token = self._token(request)
            asked = self._asked.get(token.user_id, set()) | set(token.scopes)
            data = [{"permission": p, "status": "granted" if p in token.scopes else "declined"} for p in sorted(asked)]
        return Response.json(200, {"data": data})

    def _accounts(self, request: Request) -> Response:
        """The Pages the user granted the app, each with a Page token, paged."""
        p = request.params
        fields = requested_fields(p.get("fields"), ACCOUNT_FIELDS)
        try:
            limit = min(max(int(p.get("limit", 25)), 1), 100)
            start = int(p.get("after") or 0)
        except ValueError:
            raise param_error("(#100) Params limit and after must be integers") from None
        with self.lock:
            token = self._token(request)
            if isinstance(token, PageToken):
                raise GraphError("(#100) Tried accessing nonexisting field (accounts) on node type (Page)", code=100)
            pages = self._granted_pages(self._users[token.user_id])
            page = [select(fields, self._page_fields(page, token), "Page") for page in pages[start:start + limit]]
        answer: dict[str, Any] = {"data": page}
        if page:
            answer["paging"] = {"cursors": {"before": str(start), "after": str(start + len(page))}}
            if start + len(page) < len(pages):
                query = urlencode({"fields": ",".join(fields), "limit": limit, "after": start + len(page),
                                   "access_token": request.params.get("access_token") or request.bearer()})
                answer["paging"]["next"] = f"https://graph.facebook.com{request.path}?{query}"
        return Response.json(200, answer)

    def _page_with_user_token(self, request: Request, page: FacebookPage, token: Token) -> Response:
        """`GET /{page-id}` with a user token: the Page as the user sees it."""
        user = self._users[token.user_id]
        if page not in self._granted_pages(user):
            fields = {"id": lambda: page.id, "name": lambda: page.name, "username": lambda: page.username}
        else:
            fields = self._page_fields(page, token)
        wanted = requested_fields(request.params.get("fields"), ("id", "name"))
        if "access_token" in wanted and "access_token" not in fields:
            raise GraphError("(#200) The user does not have permission to read this Page's access token", code=200)
        return Response.json(200, select(wanted, fields, "Page"))

    def _debug_token(self, request: Request) -> Response:
        """What a token is, asked with the app's token (`<app id>|<app secret>`)."""
        p = request.params
        if (p.get("access_token") or request.bearer()) != f"{self.client_id}|{self.client_secret}":
            raise GraphError("Invalid OAuth access token signature.", code=190)
        with self.lock:
            token = self._tokens.get(p.get("input_token", ""))
            if token is None:
                return Response.json(200, {"data": {"error": {"code": 190, "message": "Invalid OAuth access token."},
                                                    "is_valid": False, "scopes": []}})
            data = {"app_id": self.client_id, "type": "PAGE" if isinstance(token, PageToken) else "USER",
                    "application": "Emu App", "issued_at": int(token.issued_at.timestamp()),
                    "expires_at": 0 if token.expires_at == NEVER else int(token.expires_at.timestamp()),
                    "is_valid": True, "scopes": sorted(token.scopes), "user_id": token.user_id}
            if isinstance(token, PageToken):
                data["profile_id"] = token.page_id
            try:
                self._valid_token(token.value)
            except GraphError as e:
                data.update(is_valid=False, error={"code": e.code, "subcode": e.subcode, "message": e.message})
        return Response.json(200, {"data": data})

    def _object_or_page(self, request: Request, object_id: str) -> Response | None:
        """`GET /{id}` of a Page read with a user token, or of `me`; None for other objects."""
        if object_id == "me":
            return self._me(request)
        page = self._pages.get(object_id)
        if page is None:
            return None
        token = self._token(request)
        if not isinstance(token, PageToken):
            return self._page_with_user_token(request, page, token)
        if token.page_id != page.id:
            raise unknown_object(object_id)
        wanted = requested_fields(request.params.get("fields"), ("id", "name"))
        return Response.json(200, select(wanted, self._page_fields(page, token), "Page"))
