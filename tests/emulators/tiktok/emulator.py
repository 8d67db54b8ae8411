"""The TikTok emulator: Login Kit v2 and the Content Posting API on loopback, on the
emulator's clock (tests/emulators/README.md#tiktok has its behaviour and the choices it
makes).

One server answers www.tiktok.com, open.tiktokapis.com and open-upload.tiktokapis.com;
FANOUT_PLATFORM_HOSTS sends them all to it (`hosts_setting`). Every API answer, errors
included, is TikTok's envelope; the token endpoint answers flat JSON. OAuth is in
oauth.py, posting and uploads in posting.py, the records and bodies in state.py.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable

from ..base import EmulatorServer, Rule
from .oauth import SCOPES, TikTokOAuth
from .posting import TikTokPosting, avatar_url
from .state import ApiError, PostView, TikTokUser, UploadView, envelope
from ..wire import Request, Response

HOSTS = ("www.tiktok.com", "open.tiktokapis.com", "open-upload.tiktokapis.com")
# The fields GET /v2/user/info/ answers, and the scope each needs.
USER_FIELDS = {"open_id": "user.info.basic", "union_id": "user.info.basic", "avatar_url": "user.info.basic",
               "display_name": "user.info.basic", "username": "user.info.profile"}


class TikTokEmulator(TikTokOAuth, TikTokPosting, EmulatorServer):
    name = "tiktok"
    HOSTS, SCOPES = HOSTS, SCOPES
    DEFAULT_USER = TikTokUser("-000emuTikTokOpenId0001", "emu_tiktok", "Emu TikTok")

    def __init__(self, client_key: str = "tiktok-app-id", client_secret: str = "tiktok-app-secret", *,
                 users: Iterable[TikTokUser | tuple] | None = None,
                 redirect_uris: Iterable[str] | None = None,
                 processing_seconds: float = 5.0, moderation_seconds: float = 0.0,
                 daily_cap: int = 15,
                 verified_domains: Iterable[str] = (), verified_prefixes: Iterable[str] = (),
                 unaudited: bool = False,
                 access_ttl: float = 86400, refresh_ttl: float = 31536000,
                 **server):
        super().__init__(**server)
        self.client_key, self.client_secret = client_key, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        # What the controls may change, as constructed: reset() puts it back.
        self._configured = (processing_seconds, moderation_seconds, daily_cap, tuple(verified_domains),
                            tuple(verified_prefixes), unaudited, access_ttl, refresh_ttl)
        users = [self.DEFAULT_USER] if users is None else users
        self._users = {u.open_id: u for u in (u if isinstance(u, TikTokUser) else TikTokUser(*u) for u in users)}
        self._consenting = next(iter(self._users), None)
        self._made_up = itertools.count(2)  # open_ids add_user makes up
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/v2/auth/authorize/", self._authorize),
            ("POST", r"/v2/oauth/token/", self._token),
            ("POST", r"/v2/oauth/revoke/", self._revoke_endpoint),
            ("GET", r"/v2/user/info/", self._user_info),
            ("POST", r"/v2/post/publish/creator_info/query/", self._creator_info),
            ("POST", r"/v2/post/publish/video/init/", self._video_init),
            ("POST", r"/v2/post/publish/content/init/", self._content_init),
            ("POST", r"/v2/post/publish/status/fetch/", self._status),
            ("PUT", r"/video/", self._put_chunk),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, revoke_tokens=self.revoke_tokens, fail_tiktok=self.fail_tiktok,
            set_verified=self.set_verified, set_daily_cap=self.set_daily_cap, set_unaudited=self.set_unaudited,
            set_token_lifetimes=self.set_token_lifetimes, force_next_publish=self.force_next_publish,
            set_processing_time=self.set_processing_time, set_upload_base=self.set_upload_base,
        )
        self.views.update(posts=lambda: self.posts, uploads=lambda: self.uploads, users=lambda: self.users)

    def _reset_state(self) -> None:
        """The state as constructed: no tokens or posts, and the settings the controls change
        (processing times, cap, verified hosts, audit, token lifetimes, the upload URL's base)
        back to the constructor's,
        so that tests sharing one server do not inherit each other's."""
        processing, moderation, cap, domains, prefixes, unaudited, access, refresh = self._configured
        self.set_processing_time(processing, moderation)
        self.set_daily_cap(cap)
        self.set_verified(domains, prefixes)
        self.set_unaudited(unaudited)
        self.set_token_lifetimes(access, refresh)
        self.set_upload_base()
        self._tokens: dict = {}
        self._codes: dict = {}
        self._ids = itertools.count(7_440_000_000_000_000_001)  # publishes, uploads, post ids
        self._publishes: dict = {}
        self._uploads: dict = {}
        self._hits: dict = {}  # (endpoint, access token): calls in the last minute
        self._forced: list = []
        self._deny = False

    @property
    def client_id(self) -> str:
        """The client key by the name the service's setting gives it (FANOUT_TIKTOK_CLIENT_ID)."""
        return self.client_key

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every TikTok host here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    @property
    def users(self) -> list[TikTokUser]:
        with self.lock:
            return list(self._users.values())

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, username: str, open_id: str | None = None, nickname: str | None = None,
                 privacy_level_options: Iterable[str] | None = None,
                 max_video_post_duration_sec: int = 600, comment_disabled: bool = False,
                 duet_disabled: bool = False, stitch_disabled: bool = False) -> TikTokUser:
        """Another creator (an open_id is made up if none is given), with the settings
        creator info shows (what they turned off, the privacy levels they are offered)."""
        with self.lock:
            uid = str(open_id or f"-000emuTikTokOpenId{next(self._made_up):04d}")
            options = {} if privacy_level_options is None else {"privacy_level_options": tuple(privacy_level_options)}
            user = TikTokUser(uid, username, nickname or "", max_video_post_duration_sec=max_video_post_duration_sec,
                              comment_disabled=comment_disabled, duet_disabled=duet_disabled,
                              stitch_disabled=stitch_disabled, **options)
            self._users[user.open_id] = user
            if self._consenting is None:
                self._consenting = user.open_id
        return user

    def fail_tiktok(self, path: str, status: int, code: str, message: str = "The emulator was told to fail this call.",
                    times: int | None = 1) -> Rule:
        """The next `times` calls whose path matches `path` answer that envelope error, without effect."""
        return self.fail(None, path, status, envelope({}, self.clock.now(), code, message), times=times)

    # --- serving ------------------------------------------------------------------------------

    def not_found(self, request: Request) -> Response:
        return Response.json(404, envelope({}, self.clock.now(), "not_found",  # [U]
                                           f"No route for {request.method} {request.path}."))

    def _user_info(self, request: Request) -> Response:
        with self.lock:
            now = self.clock.now()
            token = self._auth(request, now, "user.info.basic")
            user = self._users[token.open_id]
        fields = list(dict.fromkeys(f.strip() for f in request.query.get("fields", "").split(",") if f.strip()))
        unknown = [f for f in fields if f not in USER_FIELDS]
        if not fields or unknown:
            raise ApiError(400, "invalid_param", f"fields must list some of {', '.join(USER_FIELDS)}"
                           + (f"; unknown: {', '.join(unknown)}." if unknown else "."), now)
        missing = sorted({USER_FIELDS[f] for f in fields} - set(token.scopes))
        if missing:
            raise ApiError(401, "scope_permission_missed", f"The fields asked for need the scope(s) "
                           f"{', '.join(missing)}, which the user did not authorize.", now)
        values = {"open_id": user.open_id, "union_id": f"emu-union-{user.open_id}", "avatar_url": avatar_url(user),
                  "display_name": user.nickname, "username": user.username}
        return Response.json(200, envelope({"user": {f: values[f] for f in fields}}, now))


__all__ = ["HOSTS", "SCOPES", "PostView", "TikTokEmulator", "TikTokUser", "UploadView"]
