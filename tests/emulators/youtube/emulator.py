"""The YouTube emulator: Google's OAuth 2.0 for web server apps and the YouTube Data API v3
a channel's app uploads through, on loopback and the emulator's clock
(tests/emulators/README.md#youtube has its behaviour and the choices it makes).

One server plays accounts.google.com (the consent page), oauth2.googleapis.com (the token
endpoint, revoke, tokeninfo) and www.googleapis.com (the Data API under /youtube/v3/,
uploads under /upload/youtube/v3/, userinfo); FANOUT_PLATFORM_HOSTS sends the three to it
(`hosts_setting`). OAuth is in oauth.py, `videos.insert` in uploads.py, the reads and
comments in data.py, the daily quota in quota.py, the records and error bodies in state.py.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable

from ..base import EmulatorServer
from ..wire import Request, Response
from .data import YouTubeData
from .oauth import SCOPES, GoogleOAuth
from .quota import Quota
from .state import Comment, GoogleUser, Session, Video, error_body
from .uploads import YouTubeUploads

HOSTS = ("accounts.google.com", "oauth2.googleapis.com", "www.googleapis.com")


class YouTubeEmulator(GoogleOAuth, YouTubeUploads, YouTubeData, Quota, EmulatorServer):
    name = "youtube"
    HOSTS, SCOPES = HOSTS, SCOPES
    DEFAULT_USER = GoogleUser("108000000000000000001", "Emu YouTube", "emu.youtube@gmail.invalid",
                              "UCemuYouTubeChannel00001", "@emu_youtube")

    def __init__(self, client_id: str = "youtube-app-id", client_secret: str = "youtube-app-secret", *,
                 users: Iterable[GoogleUser | tuple] | None = None, redirect_uris: Iterable[str] | None = None,
                 audited: bool = True, testing: bool = False, quota_model: str = "buckets", daily_units: int = 10_000,
                 daily_inserts: int = 100, daily_uploads: int = 100, processing_seconds: float = 5.0, **server):
        super().__init__(**server)
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        if quota_model not in ("buckets", "units"):
            raise ValueError("quota_model is buckets or units")
        # What configure may change (it stays through reset, as an app's settings do).
        self.audited, self.testing = audited, testing  # unaudited: every upload locked private
        self.quota_model, self.daily_units, self.daily_inserts = quota_model, daily_units, daily_inserts
        self.daily_uploads, self.processing_seconds = daily_uploads, processing_seconds
        users = [self.DEFAULT_USER] if users is None else users
        self._users = {u.sub: u for u in (u if isinstance(u, GoogleUser) else GoogleUser(*u) for u in users)}
        self._consenting = next(iter(self._users), None)
        self._made_up = itertools.count(len(self._users) + 1)
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/o/oauth2/v2/auth", self._authorize),
            ("POST", r"/token", self._token),
            ("POST", r"/revoke", self._revoke),
            ("GET", r"/tokeninfo", self._tokeninfo),
            ("POST", r"/tokeninfo", self._tokeninfo),
            ("GET", r"/oauth2/v3/userinfo", self._userinfo),
            ("GET", r"/youtube/v3/channels", self._channels),
            ("GET", r"/youtube/v3/videos", self._list_videos),
            ("GET", r"/youtube/v3/playlistItems", self._playlist_items),
            ("POST", r"/youtube/v3/commentThreads", self._insert_comment),
            ("GET", r"/youtube/v3/commentThreads", self._list_comments),
            ("POST", r"/upload/youtube/v3/videos", self._insert),
            ("PUT", r"/upload/youtube/v3/videos", self._put),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, expire_tokens=self.expire_tokens, revoke_tokens=self.revoke_tokens,
            exhaust=self.exhaust, reset_quota=self.reset_quota, stall=self.stall, cut=self.cut,
            fail_google=self.fail_google, configure=self.configure,
        )
        self.views.update(users=lambda: self.users, videos=lambda: self.videos, sessions=lambda: self.sessions,
                          comments=lambda: self.comments, quota=lambda: self.quota, stalls=lambda: self.stalls)

    def _reset_state(self) -> None:
        self._codes: dict = {}
        self._tokens: dict = {}
        self._consented: set[str] = set()  # the users who consented to the app once
        self._sessions: dict[str, Session] = {}
        self._videos: dict[str, Video] = {}
        self._comments: list[Comment] = []
        self._transfers: list = []
        self._spent: dict = {}
        self._uploads_today: dict[str, int] = {}
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every Google host here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    def not_found(self, request: Request) -> Response:
        return Response.json(404, error_body(404, "notFound", f"Not Found: {request.method} {request.path}", "global"))

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def users(self) -> list[GoogleUser]:
        with self.lock:
            return list(self._users.values())

    @property
    def videos(self) -> dict[str, list[Video]]:
        """Videos by channel id, oldest first; every channel has an entry."""
        with self.lock:
            return {u.channel_id: [v for v in self._videos.values() if v.channel_id == u.channel_id]
                    for u in self._users.values() if u.channel_id}

    @property
    def sessions(self) -> dict[str, list[Session]]:
        """Upload sessions by channel id, oldest first."""
        with self.lock:
            return {u.channel_id: [s for s in self._sessions.values() if s.channel_id == u.channel_id]
                    for u in self._users.values() if u.channel_id}

    @property
    def comments(self) -> dict[str, list[Comment]]:
        """Comments by video id, oldest first."""
        with self.lock:
            return {video: [c for c in self._comments if c.video_id == video] for video in self._videos}

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, name: str, handle: str | None = None, *, channel: bool = True, sub: str | None = None,
                 email: str = "") -> GoogleUser:
        """Another Google account, with a channel of that @handle (or none: `channel` false)."""
        with self.lock:
            n = next(self._made_up)
            user = GoogleUser(sub or f"1080000000000000000{n:02d}", name, email,
                              f"UCemuYouTubeChannel{n:05d}" if channel else None,
                              (handle or f"@emu_youtube_{n}") if channel else None)
            self._users[user.sub] = user
            if self._consenting is None:
                self._consenting = user.sub
            return user

    def fail_google(self, method: str | None, path: str, status: int, reason: str, message: str | None = None, *,
                    domain: str = "youtube.api", times: int | None = 1):
        """The next matching calls answer that Data API error, without effect."""
        return self.fail(method, path, status, error_body(status, reason, message or reason, domain), times=times)


__all__ = ["HOSTS", "YouTubeEmulator"]
