"""The Facebook emulator: Facebook Login, Page tokens and a Page's publishing (feed posts,
photos, videos, Reels, comments) on loopback and the emulator's clock
(tests/emulators/README.md#facebook has its behaviour and the choices it makes).

One server plays www.facebook.com (the login dialog), graph.facebook.com (every API call),
graph-video.facebook.com (`/{page-id}/videos`) and rupload.facebook.com (a Reel's bytes),
routing by path; FANOUT_PLATFORM_HOSTS sends all four to it (`hosts_setting`). Graph paths
may carry a version (`/v25.0/...`) or none; errors are Graph's envelope
(tests/emulators/graph/). Login and tokens are in login.py, posts, photos and comments in
publishing.py, videos and Reels in videos.py, what it reads of an MP4 in movie.py, the
records and error bodies in state.py.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from ..base import EmulatorServer
from ..graph import VERSION, GraphError
from ..wire import Request, Response
from .login import FacebookLogin
from .publishing import MESSAGE_LIMIT, FacebookPublishing
from .state import COMMENT_SCOPE, EVERY_TASK, FacebookPage, FacebookUser, PUBLISH_SCOPES
from .videos import FacebookVideos

HOSTS = ("www.facebook.com", "graph.facebook.com", "graph-video.facebook.com", "rupload.facebook.com")
PAGE = r"(?P<page_id>[0-9]+)"
OBJECT = r"(?P<object_id>[0-9]+(?:_[0-9]+)?)"


class FacebookEmulator(FacebookLogin, FacebookPublishing, FacebookVideos, EmulatorServer):
    name = "facebook"
    HOSTS = HOSTS
    SCOPES = ("pages_show_list", PUBLISH_SCOPES[0])
    MORE_SCOPES = (PUBLISH_SCOPES[1], COMMENT_SCOPE)
    DEFAULT_PAGE = FacebookPage("109000000000001", "Emu Bakery", "emubakery", "Bakery")
    DEFAULT_USER = FacebookUser("10000000000001", "Emu Facebook", {DEFAULT_PAGE.id: EVERY_TASK})

    def __init__(self, client_id: str = "facebook-app-id", client_secret: str = "facebook-app-secret", *,
                 users: Iterable[FacebookUser] | None = None, pages: Iterable[FacebookPage] | None = None,
                 redirect_uris: Iterable[str] | None = None, processing_seconds: dict[str, float] | None = None,
                 reel_limit: int = 30, message_limit: int = MESSAGE_LIMIT, **server):
        super().__init__(**server)
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        self.processing_seconds = {"video": 5.0, "reel": 3.0, **(processing_seconds or {})}
        self.reel_limit, self.message_limit = reel_limit, message_limit
        self._ids = itertools.count(120_000_000_000_001)
        if users is None:
            users, pages = [self.DEFAULT_USER], [self.DEFAULT_PAGE]
        self._pages = {page.id: page for page in pages or ()}
        self._users = {user.id: FacebookUser(user.id, user.name, dict(user.pages), user.declined,
                                             user.granted_pages) for user in users}
        self._consenting = next(iter(self._users), None)
        self._reset_state()
        for method, pattern, handler in (
            ("GET", VERSION + r"/dialog/oauth", self._dialog),
            ("GET", VERSION + r"/oauth/access_token", self._access_token),
            ("POST", VERSION + r"/oauth/access_token", self._access_token),
            ("GET", VERSION + r"/debug_token", self._debug_token),
            ("GET", VERSION + r"/me/permissions", self._permissions),
            ("GET", VERSION + r"/me/accounts", self._accounts),
            ("POST", VERSION + f"/{PAGE}/feed", self._create_post),
            ("GET", VERSION + f"/{PAGE}/(?:feed|posts|published_posts)", self._feed),
            ("POST", VERSION + f"/{PAGE}/photos", self._create_photo),
            ("GET", VERSION + f"/{PAGE}/photos", self._photo_list),
            ("POST", VERSION + f"/{PAGE}/videos", self._create_video),
            ("GET", VERSION + f"/{PAGE}/videos", self._video_list),
            ("POST", VERSION + f"/{PAGE}/video_reels", self._reels),
            ("GET", VERSION + f"/{PAGE}/video_reels", self._reel_list),
            ("POST", VERSION + f"/{OBJECT}/comments", self._create_comment),
            ("GET", VERSION + f"/{OBJECT}/comments", self._comment_list),
            ("GET", VERSION + r"/(?P<object_id>me|[0-9]+(?:_[0-9]+)?)", self._get_object),
            ("POST", r"/video-upload/v\d+\.\d+/(?P<video_id>[0-9]+)", self._rupload),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, add_page=self.add_page, remove_role=self.remove_role, decline=self.decline,
            select_pages=self.select_pages, next_user=self.next_user, consent_as=self.consent_as,
            deny_consent=self.deny_consent, issue_token=self.issue_token, page_token=self.page_token,
            revoke=self.revoke, take_back=self.take_back, expire_user_tokens=self.expire_user_tokens,
            exhaust=self.exhaust, block=self.block, unthrottle=self.unthrottle, fail_graph=self.fail_graph,
            fail_next_video=self.fail_next_video,
            cut_next_upload=self.cut_next_upload, configure=self.configure, clear_faults=self.clear_faults,
        )
        self.views.update(users=lambda: self.users, pages=lambda: self.pages, posts=lambda: self.posts,
                          photos=lambda: self.photos, videos=lambda: self.videos, comments=lambda: self.comments,
                          uploads=lambda: self.uploads,
                          tokens=lambda: {uid: self.tokens_of(uid) for uid in list(self._users)})

    def _reset_state(self) -> None:
        self._tokens: dict = {}
        self._codes: dict = {}
        self._asked: dict[str, set] = {}
        self._revoked: dict[str, int] = {}
        self._limited: dict[str, int] = {}
        self._posts: list = []
        self._photos: dict = {}
        self._videos: dict = {}
        self._comments: list = []
        self._failing: list[str] = []
        self._cut: int | None = None
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every Facebook host here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    def not_found(self, request: Request) -> Response:
        return GraphError(f"Unknown path components: {request.path}", code=2500).response

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def users(self) -> list[FacebookUser]:
        with self.lock:
            return list(self._users.values())

    @property
    def pages(self) -> list[FacebookPage]:
        with self.lock:
            return list(self._pages.values())

    def _by_page(self, items: Iterable[Any]) -> dict[str, list]:
        found: dict[str, list] = {page_id: [] for page_id in self._pages}
        for item in items:
            found.setdefault(item.page_id, []).append(item)
        return found

    @property
    def posts(self) -> dict[str, list]:
        """Feed posts by Page id, oldest first; every Page has an entry."""
        with self.lock:
            return self._by_page(self._posts)

    @property
    def photos(self) -> dict[str, list]:
        with self.lock:
            return self._by_page(self._photos.values())

    @property
    def videos(self) -> dict[str, list[dict]]:
        """Videos and Reels by Page id, oldest first, each with its status now."""
        with self.lock:
            return {page_id: [self._status_view(v) for v in videos]
                    for page_id, videos in self._by_page(self._videos.values()).items()}

    @property
    def comments(self) -> dict[str, list]:
        """Comments by the object they are on, oldest first."""
        with self.lock:
            found: dict[str, list] = {}
            for comment in self._comments:
                found.setdefault(comment.object_id, []).append(comment)
            return found

    @property
    def uploads(self) -> list[dict]:
        """Every Reel's upload: bytes received of its file_size."""
        with self.lock:
            return [{"video_id": v.id, "page_id": v.page_id, "how": v.how, "received": v.received,
                     "file_size": v.file_size} for v in self._videos.values() if v.kind == "reel"]

    # --- controls -----------------------------------------------------------------------------

    def clear_faults(self) -> None:
        """Forget the rules (fail, garble, drop, delay) and the Pages' limits."""
        with self.lock:
            self._rules.clear()
            self._limited.clear()
            self._failing.clear()
            self._cut = None


__all__ = ["HOSTS", "FacebookEmulator"]
