"""The Instagram emulator: the Instagram API with Instagram Login, OAuth and content
publishing, on loopback and the emulator's clock (tests/emulators/README.md#instagram has
its behaviour and the choices it makes).

One server answers www.instagram.com, api.instagram.com and graph.instagram.com;
FANOUT_PLATFORM_HOSTS sends them all to it (`hosts_setting`). Graph errors are Graph's
envelope, HTTP 400 unless said otherwise; the code exchange on api.instagram.com answers
the older `{"error_type", "code", "error_message"}` shape. What it shares with the Threads
emulator is in tests/emulators/graph/ (oauth.py, publishing.py).
"""
from __future__ import annotations

import datetime as dt
from typing import Iterable

from ..graph import VERSION, GraphError, graph_time, requested_fields, unknown_object
from ..graph.oauth import Token
from ..graph.publishing import (QUOTA_WINDOW, ERROR, EXPIRED, FINISHED, PUBLISHED, Container, GraphEmulator, PostMedia,
                               shortcode)
from .rules import (DOWNLOAD_FAILED, alt_text, check_caption, check_comment, checked_outcome, container_options,
                    fetch_image, fetch_video, media_fields)
from .state import MEDIA_TYPES, STATUS_TEXTS, Comment, InstagramUser, Post, upload_failed
from ..wire import Refusal, Request, Response

HOSTS = ("www.instagram.com", "api.instagram.com", "graph.instagram.com")
SCOPES = ("instagram_business_basic", "instagram_business_content_publish")
COMMENTS_SCOPE = "instagram_business_manage_comments"
ANSWER_SHAPES = ("data", "flat")
CONTAINER_LIMIT = 400  # containers a user may create in a rolling 24 hours


class InstagramEmulator(GraphEmulator):
    name = "instagram"
    HOSTS, SCOPES, GRANT_PREFIX, TOKEN_PREFIX = HOSTS, SCOPES, "ig", "IGAA"
    USER, DEFAULT_USER = InstagramUser, ("17841400000000002", "emu_instagram")
    CODE_TTL = dt.timedelta(hours=1)
    MEDIA_TYPES = MEDIA_TYPES
    DEFAULT_PROCESSING = {"IMAGE": 0.0, "VIDEO": 30.0, "CAROUSEL": 0.0}
    CAROUSEL_ITEMS = (2, 10)
    CONTAINERS_ROUTE, PUBLISH_ROUTE, LIMIT_ROUTE = "media", "media_publish", "content_publishing_limit"
    LIMIT_DEFAULT_FIELDS = ("quota_usage",)
    USER_NODE, CONTAINER_NODE, MEDIA_NODE = "IGUser", "IGContainer", "IGMedia"
    MORE_SCOPES = (COMMENTS_SCOPE,)

    def __init__(self, client_id: str = "instagram-app-id", client_secret: str = "instagram-app-secret", *,
                 users: Iterable[InstagramUser | tuple[str, ...]] | None = None,
                 redirect_uris: Iterable[str] | None = None,
                 processing_seconds: dict[str, float] | None = None,
                 publish_quota: int = 50, container_limit: int = CONTAINER_LIMIT, **server):
        super().__init__(client_id, client_secret, users=users, redirect_uris=redirect_uris,
                         processing_seconds=processing_seconds, publish_quota=publish_quota, **server)
        self.container_limit = container_limit
        self.answer_shape = "data"
        self.controls.update(token_answer_shape=self.token_answer_shape)
        self.route("POST", VERSION + r"/(?P<media_id>[0-9]+)/comments", self._create_comment)
        self.route("GET", VERSION + r"/(?P<media_id>[0-9]+)/comments", self._list_comments)
        self.views.update(comments=lambda: self.comments)

    def _reset_state(self) -> None:
        super()._reset_state()
        self._comments: list[Comment] = []

    @property
    def comments(self) -> dict[str, list[Comment]]:
        """Comments by media id, oldest first."""
        with self.lock:
            found: dict[str, list[Comment]] = {}
            for comment in self._comments:
                found.setdefault(comment.media_id, []).append(comment)
            return found

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, username: str, user_id: str | None = None, account_type: str = "BUSINESS") -> InstagramUser:
        """Another user (an id is made up if none is given)."""
        return self._add_user(InstagramUser(str(user_id or next(self._ids)), username, account_type))

    def force_next_container(self, status_code: str, status: str | int | None = None,
                             media_type: str | None = None) -> None:
        """The next container created (of `media_type`: IMAGE, VIDEO (a Reel or a video
        item), REELS or CAROUSEL; default any) ends as told: FINISHED or ERROR once
        processed, IN_PROGRESS forever, or EXPIRED at once. ERROR's `status` is a text or a
        subcode (default 2207053)."""
        self._force_next(media_type, *checked_outcome(status_code, status))

    def force_container(self, container_id: str, status_code: str, status: str | int | None = None) -> None:
        """An existing container ends as told (see force_next_container), from now."""
        self._force(container_id, *checked_outcome(status_code, status))

    def token_answer_shape(self, shape: str) -> None:
        """How the code exchange answers: "data" (`{"data": [{...}]}`, `user_id` a string,
        `permissions` a comma-separated string) or "flat" (the object alone, `user_id` a
        number, `permissions` a list)."""
        if shape not in ANSWER_SHAPES:
            raise ValueError(f"shape is one of {ANSWER_SHAPES}")
        self.answer_shape = shape

    # --- what Instagram answers ---------------------------------------------------------------

    def _oauth_error(self, message: str, *, code: int, subcode: int | None = None) -> Refusal:
        # api.instagram.com still answers its older error shape, always code 400.
        return Refusal(Response.json(400, {"error_type": "OAuthException", "code": 400, "error_message": message}))

    def _code_answer(self, token: Token) -> dict:
        permissions = sorted(token.scopes)
        if self.answer_shape == "flat":
            return {"access_token": token.value, "user_id": int(token.user_id), "permissions": permissions}
        return {"data": [{"access_token": token.value, "user_id": token.user_id,
                          "permissions": ",".join(permissions)}]}

    def _auth(self, request: Request, uid: str | None = None, *, publishing: bool = False,
              also: tuple[str, ...] = ()) -> Token:
        token = super()._auth(request, uid, publishing=publishing, also=also)
        if publishing and self._users[token.user_id].account_type == "PERSONAL":
            # Only professional accounts publish through the API.
            raise GraphError("(#10) Application does not have permission for this action", code=10)
        return token

    def _user_fields(self, user: InstagramUser) -> dict:
        return {"id": lambda: user.id, "user_id": lambda: user.id, "username": lambda: user.username,
                "name": lambda: user.username, "account_type": lambda: user.account_type,
                "profile_picture_url": lambda: None}

    def _container_fields(self, container: Container, status: str, message: str | None) -> dict:
        return {"id": lambda: container.id, "status_code": lambda: status,
                "status": lambda: message if status == ERROR else STATUS_TEXTS[status]}

    def _media_fields(self, post: Post, object_id: str) -> dict:
        return media_fields(post, object_id, sum(1 for c in self._comments if c.media_id == post.id))

    # --- comments -----------------------------------------------------------------------------

    def _commented(self, media_id: str) -> Post:
        """The published media a comment call names. Under the lock."""
        post = next((p for p in self._posts if p.id == media_id), None)
        if post is None:
            raise unknown_object(media_id, "post")
        return post

    def _create_comment(self, request: Request, media_id: str) -> Response:
        message = request.params.get("message", "")
        with self.lock:
            token = self._auth(request, also=(COMMENTS_SCOPE,))
            self._commented(media_id)
            check_comment(message)
            user = self._users[token.user_id]
            comment = Comment(str(next(self._ids)), media_id, user.id, user.username, message, self.clock.now())
            self._comments.append(comment)
        return Response.json(200, {"id": comment.id})

    def _list_comments(self, request: Request, media_id: str) -> Response:
        fields = requested_fields(request.params.get("fields"))
        with self.lock:
            self._auth(request, also=(COMMENTS_SCOPE,))
            self._commented(media_id)
            mine = [c for c in self._comments if c.media_id == media_id]
        available = lambda c: {"id": lambda: c.id, "text": lambda: c.text, "username": lambda: c.username,  # noqa: E731
                               "timestamp": lambda: graph_time(c.created_at), "from": lambda: {"id": c.user_id,
                                                                                              "username": c.username}}
        return Response.json(200, {"data": [self._select(fields, available(c), "IGComment") for c in reversed(mine)]})

    def _carousel_refusal(self, message: str) -> GraphError:
        return GraphError(f"Your post won't work as a carousel. Carousels need at least {self.CAROUSEL_ITEMS[0]} "
                          f"photos/videos and no more than {self.CAROUSEL_ITEMS[1]} photos/videos. {message}",
                          code=100, subcode=2207028)

    def _child_refused(self, status: str) -> bool:
        return status != FINISHED  # Instagram wants every item processed before the carousel

    def _publish_refusal(self, creation_id: str, container: Container | None, status: str | None,
                         message: str | None) -> GraphError:
        if container is None or status == EXPIRED:
            return GraphError(f"The media builder with creation id = {creation_id} does not exist or has been "
                              "expired.", code=24, subcode=2207008)
        if container.is_carousel_item:
            return self._param_error("A carousel item is published through its carousel, not on its own.")
        if status == PUBLISHED:
            return self._param_error(f"The media container {creation_id} has already been published.")
        # IN_PROGRESS, and ERROR too: Instagram says "not ready" for any container not FINISHED.
        return GraphError("The media is not ready for publishing, please wait for a moment", code=9007,
                          subcode=2207027)

    def _make_post(self, container: Container, media_id: str, items: list[PostMedia], now: dt.datetime) -> Post:
        user = self._users[container.user_id]
        code = shortcode(media_id)
        reel = container.media_type == "REELS"
        carousel = container.media_type == "CAROUSEL"
        return Post(media_id, user.id, user.username, container.id,
                    "CAROUSEL_ALBUM" if carousel else items[0].media_type, code,
                    f"https://www.instagram.com/{'reel' if reel else 'p'}/{code}/", now,
                    media_product_type="REELS" if reel else "FEED", caption=container.text,
                    media_url=None if carousel else container.media_url, children=tuple(items) if carousel else (),
                    options=dict(container.params))

    # --- containers ---------------------------------------------------------------------------

    def _create_container(self, request: Request, uid: str) -> Response:
        p = request.params
        with self.lock:
            token = self._auth(request, uid, publishing=True)
        is_item = p.get("is_carousel_item", "false").lower() == "true"
        media_type, url = self._container_kind(p, is_item)
        caption = p.get("caption", "")
        if caption and is_item:
            raise self._param_error("Param caption is not allowed on carousel items.")
        check_caption(caption)
        with self.lock:
            options = container_options(p, media_type, is_item, {u.username for u in self._users.values()})
        options.update(alt_text(p, media_type, self._param_error))
        failed = None
        if media_type == "IMAGE":
            fetch_image(url)
        elif media_type in ("VIDEO", "REELS"):
            failed = fetch_video(url)
        with self.lock:
            self._check_container_limit(token.user_id)
            children = self._carousel_children(p, token.user_id) if media_type == "CAROUSEL" else ()
            container = self._new_container(
                token.user_id, media_type, "VIDEO" if media_type == "REELS" else media_type, text=caption,
                media_url=url, is_carousel_item=is_item, children=children, params=options,
                error_message=upload_failed(failed) if failed else None, failed_download=failed == DOWNLOAD_FAILED)
        return Response.json(200, {"id": container.id})

    def _container_kind(self, p: dict, is_item: bool) -> tuple[str, str | None]:
        """(IMAGE | VIDEO | REELS | CAROUSEL, its media URL) from the creation's parameters."""
        media_type = p.get("media_type", "").upper()
        if media_type in ("", "IMAGE"):
            kind, url_name = "IMAGE", "image_url"
        elif media_type == "REELS" and not is_item:
            kind, url_name = "REELS", "video_url"
        elif media_type == "VIDEO" and is_item:  # a video alone is a Reel now
            kind, url_name = "VIDEO", "video_url"
        elif media_type == "CAROUSEL" and not is_item:
            return "CAROUSEL", None
        else:
            raise self._param_error(f"The media type {media_type} is unknown.", subcode=2207023)
        if not p.get(url_name):
            raise self._param_error(f"The parameter {url_name} is required.")
        return kind, p[url_name]

    def _check_container_limit(self, user_id: str) -> None:
        """At most `container_limit` containers in a rolling 24 hours. Under the lock."""
        now = self.clock.now()
        made = sum(1 for c in self._containers.values() if c.user_id == user_id and now - c.created_at < QUOTA_WINDOW)
        if made >= self.container_limit:
            raise GraphError(f"(#17) User request limit reached: at most {self.container_limit} media containers "
                             "can be created in 24 hours.", code=17, is_transient=True)


__all__ = ["HOSTS", "SCOPES", "InstagramEmulator", "InstagramUser", "Post"]
