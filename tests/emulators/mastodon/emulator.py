"""The Mastodon emulator: one instance on one domain, its instance documents, app
registration, OAuth 2.0, media and statuses, on loopback and the emulator's clock
(tests/emulators/README.md#mastodon has its behaviour and the choices it makes).

The instance is whatever domain it is told (`domain`): FANOUT_PLATFORM_HOSTS sends that
host to it (`hosts_setting`), so two instances are two emulators. What the instance states
of itself (`max_characters`, the media limits) is its configuration and changes with
`configure`. Apps and OAuth are in oauth.py, media in media.py, statuses in statuses.py,
their counting and rendering in text.py, the records and the error body in state.py.
"""
from __future__ import annotations

import datetime as dt
import itertools
import threading
from collections.abc import Iterable

from ..base import EmulatorServer
from ..wire import Refusal, Request, Response
from .media import MastodonMedia
from .oauth import MastodonOAuth
from .state import MastodonAccount, Media, Status, error
from .statuses import MastodonStatuses

DOMAIN = "mastodon.example"
# The rate limits (RateLimiter and the API's throttles [C]): per account, windows aligned
# to their period.
LIMITS = {"api": (300, dt.timedelta(minutes=5)), "media": (30, dt.timedelta(minutes=30)),
          "statuses": (300, dt.timedelta(hours=3))}
DEFAULT_MIME_TYPES = ("image/jpeg", "image/png", "image/gif", "image/heic", "image/heif", "image/webp", "image/avif",
                      "video/webm", "video/mp4", "video/quicktime", "video/ogg")


class _Ids:
    """Increasing ids of digits, as Mastodon's snowflakes look."""

    def __init__(self):
        self._numbers, self._lock = itertools.count(113_000_000_000_000_001), threading.Lock()

    def next(self) -> str:
        with self._lock:
            return str(next(self._numbers))


class MastodonEmulator(MastodonOAuth, MastodonMedia, MastodonStatuses, EmulatorServer):
    name = "mastodon"
    DEFAULT_ACCOUNT = MastodonAccount("109000000000000001", "emu", "Emu Mastodon")

    def __init__(self, domain: str = DOMAIN, *, accounts: Iterable[MastodonAccount | tuple[str, ...]] | None = None,
                 max_characters: int | None = 500, max_media_attachments: int = 4, description_limit: int = 1500,
                 image_size_limit: int = 16_777_216, video_size_limit: int = 103_809_024,
                 supported_mime_types: Iterable[str] = DEFAULT_MIME_TYPES, video_seconds: float = 10,
                 api_v2: bool = True, **server):
        super().__init__(**server)
        self.domain = domain.lower()
        self.max_characters = max_characters
        self.max_media_attachments, self.description_limit = max_media_attachments, description_limit
        self.image_size_limit, self.video_size_limit = image_size_limit, video_size_limit
        self.supported_mime_types = tuple(supported_mime_types)
        self.video_seconds, self.api_v2 = video_seconds, api_v2
        accounts = [self.DEFAULT_ACCOUNT] if accounts is None else accounts
        self._users = {a.id: a for a in (a if isinstance(a, MastodonAccount) else MastodonAccount(*a)
                                         for a in accounts)}
        self._consenting = next(iter(self._users), None)
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/api/v2/instance", self._instance_v2),
            ("GET", r"/api/v1/instance", self._instance_v1),
            ("GET", r"/\.well-known/oauth-authorization-server", self._oauth_metadata),
            ("POST", r"/api/v1/apps", self._register_app),
            ("GET", r"/oauth/authorize", self._authorize),
            ("POST", r"/oauth/token", self._token),
            ("POST", r"/oauth/revoke", self._revoke),
            ("GET", r"/api/v1/accounts/verify_credentials", self._verify_credentials),
            ("POST", r"/api/v2/media", self._upload),
            ("GET", r"/api/v1/media/(?P<media_id>\w+)", self._get_media),
            ("PUT", r"/api/v1/media/(?P<media_id>\w+)", self._update_media),
            ("POST", r"/api/v1/statuses", self._create_status),
            ("GET", r"/api/v1/statuses/(?P<status_id>\d+)", self._get_status),
            ("GET", r"/api/v1/statuses/(?P<status_id>\d+)/context", self._context),
            ("GET", r"/api/v1/accounts/(?P<account_id>\d+)/statuses", self._account_statuses),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_account=self.add_account, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, revoke_token=self.revoke_token, forget_apps=self.forget_apps,
            exhaust=self.exhaust, configure=self.configure, fail_next_media=self.fail_next_media,
        )
        self.views.update(accounts=lambda: self.accounts, apps=lambda: self.apps, statuses=lambda: self.statuses,
                          media=lambda: self.media, instance=self.instance)

    def _reset_state(self) -> None:
        self._apps: dict = {}
        self._codes: dict = {}
        self._tokens: dict = {}
        self._media: dict[str, Media] = {}
        self._statuses: dict[str, Status] = {}
        self._idempotency: dict[tuple[str, str], tuple[str, dt.datetime]] = {}
        self._windows: dict[tuple[str, str, int], int] = {}  # (who, family, window start) -> calls
        self._failures: list[str] = []
        self._ids = _Ids()
        self._deny = False
        self.force_logins = 0

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending the instance's domain here."""
        return f"{self.domain}={self.base_url}"

    def not_found(self, request: Request) -> Response:
        return Response.json(404, {"error": "Record not found"})

    # --- the instance -----------------------------------------------------------------------------

    def instance(self) -> dict:
        """`GET /api/v2/instance` (the parts clients read; `max_characters` left out when None)."""
        statuses = {"max_media_attachments": self.max_media_attachments, "characters_reserved_per_url": 23}
        if self.max_characters is not None:
            statuses = {"max_characters": self.max_characters, **statuses}
        return {
            "domain": self.domain, "title": "Emu Mastodon", "version": "4.4.0", "source_url":
                "https://github.com/mastodon/mastodon", "description": "An emulated instance", "registrations":
                {"enabled": False, "approval_required": False, "message": None}, "api_versions": {"mastodon": 6},
            "configuration": {
                "urls": {"streaming": f"wss://{self.domain}"}, "statuses": statuses,
                "media_attachments": {
                    "supported_mime_types": list(self.supported_mime_types), "description_limit": self.description_limit,
                    "image_size_limit": self.image_size_limit, "image_matrix_limit": 33_177_600,
                    "video_size_limit": self.video_size_limit, "video_frame_rate_limit": 120,
                    "video_matrix_limit": 8_294_400},
            },
        }

    def _instance_v2(self, request: Request) -> Response:
        if not self.api_v2:
            raise error(404, "Record not found")
        return Response.json(200, self.instance())

    def _instance_v1(self, request: Request) -> Response:
        document = self.instance()
        return Response.json(200, {"uri": self.domain, "title": document["title"], "version": document["version"],
                                   "configuration": document["configuration"]})

    def _oauth_metadata(self, request: Request) -> Response:
        base = f"https://{self.domain}"
        return Response.json(200, {
            "issuer": f"{base}/", "authorization_endpoint": f"{base}/oauth/authorize",
            "token_endpoint": f"{base}/oauth/token", "revocation_endpoint": f"{base}/oauth/revoke",
            "app_registration_endpoint": f"{base}/api/v1/apps", "scopes_supported": sorted(
                ("read", "write", "profile", "read:accounts", "read:statuses", "write:statuses", "write:media")),
            "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": ["authorization_code", "client_credentials"]})

    # --- rate limits --------------------------------------------------------------------------------

    def _dispatch(self, request: Request) -> Response:
        """Every API call counts against its caller's window of all endpoints (an account by
        its token, else the caller's address), and its answer carries that window's
        `X-RateLimit-*` unless the call's own family (statuses, media) set them."""
        if not request.path.startswith("/api/"):
            return super()._dispatch(request)
        with self.lock:
            token = self._tokens.get(request.bearer() or "")
            try:
                headers = self._limited(token.account_id if token else "ip", "api")
            except Refusal as refusal:
                return refusal.response
        response = super()._dispatch(request)
        return Response(response.status, response.body, {**headers, **response.headers})

    def _limited(self, who: str, family: str) -> dict:
        """One call of `family` counted for `who`, and the X-RateLimit headers of its window;
        a 429 when the window is full (the lock held)."""
        limit, period = LIMITS[family]
        now = self.clock.now()
        epoch = int(now.timestamp())
        start = epoch - epoch % int(period.total_seconds())
        reset = dt.datetime.fromtimestamp(start + period.total_seconds(), dt.timezone.utc)
        used = self._windows.get((who, family, start), 0)
        headers = {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(max(limit - used - 1, 0)),
                   "X-RateLimit-Reset": reset.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
        if used >= limit:
            raise error(429, "Too many requests", {**headers, "X-RateLimit-Remaining": "0"})
        self._windows[(who, family, start)] = used + 1
        return headers

    def exhaust(self, family: str = "statuses", account_id: str | None = None) -> None:
        """The account has used its window of `family` (statuses, media or api): the next
        call of it is 429 until the window's end."""
        with self.lock:
            limit, period = LIMITS[family]
            epoch = int(self.clock.now().timestamp())
            self._windows[(account_id or self._consenting, family, epoch - epoch % int(period.total_seconds()))] = limit

    # --- accessors for tests ------------------------------------------------------------------------

    @property
    def accounts(self) -> list[MastodonAccount]:
        with self.lock:
            return list(self._users.values())

    @property
    def apps(self) -> list:
        """Every app registered, in order (a test counts registrations)."""
        with self.lock:
            return list(self._apps.values())

    @property
    def statuses(self) -> list[Status]:
        """Every status made, oldest first."""
        with self.lock:
            return list(self._statuses.values())

    @property
    def media(self) -> list[Media]:
        with self.lock:
            return list(self._media.values())

    def statuses_of(self, account_id: str | None = None) -> list[Status]:
        with self.lock:
            account_id = account_id or self._consenting
            return [s for s in self._statuses.values() if s.account_id == account_id]

    # --- controls -----------------------------------------------------------------------------------

    def add_account(self, username: str, account_id: str | None = None, display_name: str = "") -> MastodonAccount:
        """Another account of the instance (an id is made up if none is given)."""
        with self.lock:
            account = MastodonAccount(account_id or str(109_000_000_000_000_001 + len(self._users)), username,
                                      display_name)
            self._users[account.id] = account
            if self._consenting is None:
                self._consenting = account.id
            return account

    def configure(self, **settings) -> dict:
        """Change what the instance states (max_characters, max_media_attachments,
        description_limit, image_size_limit, video_size_limit, supported_mime_types,
        video_seconds, api_v2) from now."""
        for name, value in settings.items():
            if name.startswith("_") or not hasattr(self, name) or callable(getattr(self, name)) or name == "domain":
                raise KeyError(f"no setting {name}")
            setattr(self, name, tuple(value) if name == "supported_mime_types" else value)
        return settings


__all__ = ["DOMAIN", "MastodonEmulator"]
