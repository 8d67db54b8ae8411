"""The LinkedIn emulator: OAuth 2.0, OpenID userinfo and the versioned REST API (Posts,
Images, Videos) a member's app posts through, on loopback and the emulator's clock
(tests/emulators/README.md#linkedin has its behaviour and the choices it makes).

One server plays www.linkedin.com (authorize, the token endpoint, the upload URLs under
/dms-uploads/) and api.linkedin.com (/v2/userinfo, /rest/...); FANOUT_PLATFORM_HOSTS sends
both to it (`hosts_setting`). Every /rest/ call needs `LinkedIn-Version` (a month of the
last twelve, YYYYMM) and `X-Restli-Protocol-Version: 2.0.0`. OAuth is in oauth.py, media in
media.py, posts in posts.py, the little text format in text.py, the records and error bodies
in state.py.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

from ..base import EmulatorServer
from ..wire import Request, Response
from .media import LinkedInMedia
from .oauth import SCOPES, LinkedInOAuth
from .posts import LinkedInPosts, post_ids
from .state import Image, LinkedInMember, Post, RestError, Video, rest_body

HOSTS = ("www.linkedin.com", "api.linkedin.com")
VERSION = re.compile(r"(?P<year>\d{4})(?P<month>\d{2})(\.\d{2})?")
ACTIVE_MONTHS = 12


class LinkedInEmulator(LinkedInOAuth, LinkedInMedia, LinkedInPosts, EmulatorServer):
    name = "linkedin"
    HOSTS, SCOPES = HOSTS, SCOPES
    DEFAULT_MEMBER = LinkedInMember("emuLiMember01", "Emu Linked", "emu@mail.invalid")

    def __init__(self, client_id: str = "linkedin-app-id", client_secret: str = "linkedin-app-secret", *,
                 members: Iterable[LinkedInMember | tuple[str, ...]] | None = None,
                 redirect_uris: Iterable[str] | None = None,
                 enabled_scopes: Iterable[str] = ("openid", "profile", "email", "w_member_social"),
                 refresh_tokens: bool = False, image_processing_seconds: float = 2,
                 video_processing_seconds: float = 10, video_min_bytes: int = 75 * 1024,
                 video_max_bytes: int = 500 * 1024 * 1024, member_media_reads: bool = True, daily_posts: int = 150,
                 **server):
        super().__init__(**server)
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        self.enabled_scopes = tuple(enabled_scopes)
        self.refresh_tokens = refresh_tokens
        self.image_processing_seconds, self.video_processing_seconds = image_processing_seconds, video_processing_seconds
        self.video_min_bytes, self.video_max_bytes = video_min_bytes, video_max_bytes
        self.member_media_reads, self.daily_posts = member_media_reads, daily_posts
        members = [self.DEFAULT_MEMBER] if members is None else members
        self._users = {m.sub: m for m in (m if isinstance(m, LinkedInMember) else LinkedInMember(*m) for m in members)}
        self._consenting = next(iter(self._users), None)
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/oauth/v2/authorization", self._authorize),
            ("POST", r"/oauth/v2/accessToken", self._access_token),
            ("POST", r"/oauth/v2/introspectToken", self._introspect),
            ("GET", r"/v2/userinfo", self._userinfo),
            ("POST", r"/rest/posts", self._create_post),
            ("GET", r"/rest/posts", self._find_posts),
            ("GET", r"/rest/posts/(?P<urn>[^/]+)", self._get_post),
            ("DELETE", r"/rest/posts/(?P<urn>[^/]+)", self._delete_post),
            ("POST", r"/rest/images", self._images_action),
            ("GET", r"/rest/images/(?P<urn>[^/]+)", lambda r, urn: self._image(r, _unquote(urn))),
            ("POST", r"/rest/videos", self._videos_action),
            ("GET", r"/rest/videos/(?P<urn>[^/]+)", lambda r, urn: self._video(r, _unquote(urn))),
            ("PUT", r"/dms-uploads/(?P<upload_id>[A-Za-z0-9_-]+)", self._put_upload),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_member=self.add_member, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, expire_tokens=self.expire_tokens, revoke_tokens=self.revoke_tokens,
            exhaust=self.exhaust, configure=self.configure, fail_rest=self.fail_rest,
            fail_next_video=self.fail_next_video,
        )
        self.views.update(posts=lambda: self.posts, members=lambda: self.members, media=lambda: self.media)

    def _reset_state(self) -> None:
        self._codes: dict = {}
        self._tokens: dict = {}
        self._images: dict[str, Image] = {}
        self._videos: dict[str, Video] = {}
        self._uploads: dict[str, tuple[str, str, int]] = {}
        self._posts: list[Post] = []
        self._post_times: dict[str, list] = {}  # member sub: when each post of theirs was made
        self._forced_failures: list[str] = []
        self._ids = post_ids()
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every LinkedIn host here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    def not_found(self, request: Request) -> Response:
        return Response.json(404, rest_body(404, f"No virtual resource found for {request.method} {request.path}"))

    # --- the versioned API --------------------------------------------------------------------

    def _rest(self, request: Request, *scopes: str) -> LinkedInMember:
        """The checks every /rest/ call passes: the version headers, then the token (the lock held)."""
        version = request.headers.get("LinkedIn-Version")
        if not version:
            raise RestError(400, "A version must be present. Please specify a version by adding the LinkedIn-Version "
                                 "header.", "VERSION_MISSING")
        m = VERSION.fullmatch(version.strip())
        now = self.clock.now()
        months_ago = (now.year * 12 + now.month) - (int(m["year"]) * 12 + int(m["month"])) if m else -1
        if m is None or not 0 <= months_ago < ACTIVE_MONTHS:
            raise RestError(426, f"Requested version {version} is not active", "NONEXISTENT_VERSION")
        if request.headers.get("X-Restli-Protocol-Version") != "2.0.0":
            raise RestError(400, "The X-Restli-Protocol-Version header must be 2.0.0 for this resource")
        return self._member(request, *scopes)

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def members(self) -> list[LinkedInMember]:
        with self.lock:
            return list(self._users.values())

    @property
    def posts(self) -> dict[str, list[Post]]:
        """Posts by member sub, oldest first; every member has an entry."""
        with self.lock:
            return {sub: [p for p in self._posts if p.author == m.urn] for sub, m in self._users.items()}

    @property
    def media(self) -> dict:
        with self.lock:
            return {**{urn: self._image_view(i) for urn, i in self._images.items()},
                    **{urn: self._video_view(v) for urn, v in self._videos.items()}}

    # --- controls -----------------------------------------------------------------------------

    def add_member(self, name: str, sub: str | None = None, email: str = "") -> LinkedInMember:
        """Another member (a sub is made up if none is given)."""
        with self.lock:
            member = LinkedInMember(sub or f"emuLiMember{len(self._users) + 1:02d}", name, email)
            self._users[member.sub] = member
            if self._consenting is None:
                self._consenting = member.sub
            return member

    def exhaust(self, sub: str | None = None) -> None:
        """The member has made today's posts: the next one is 429 until 00:00 UTC."""
        with self.lock:
            member = self._users[sub or self._consenting]
            now = self.clock.now()
            self._post_times.setdefault(member.sub, []).extend([now] * self.daily_posts)

    def fail_rest(self, method: str | None, path: str, status: int, message: str, code: str | None = None, *,
                  service_code: int | None = None, times: int | None = 1):
        """The next matching calls answer that REST error, without effect."""
        return self.fail(method, path, status, rest_body(status, message, code, service_code), times=times)


def _unquote(urn: str) -> str:
    return unquote(urn)


__all__ = ["HOSTS", "LinkedInEmulator"]
