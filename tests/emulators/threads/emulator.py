"""The Threads emulator: Threads' OAuth and publishing API on loopback, on the emulator's
clock (tests/emulators/README.md#threads has its behaviour and the choices it makes).

One server answers every Threads host; FANOUT_PLATFORM_HOSTS sends them all to it
(`hosts_setting`). Errors are Graph's envelope, HTTP 400 unless said otherwise. What it
shares with the Instagram emulator is in tests/emulators/graph/ (oauth.py, publishing.py).
"""
from __future__ import annotations

import datetime as dt
from typing import Iterable

from ..graph import VERSION, GraphError, requested_fields, unknown_object
from ..graph.oauth import Token
from ..graph.publishing import (
    ERROR,
    EXPIRED,
    FINISHED,
    IN_PROGRESS,
    PUBLISHED,
    QUOTA_WINDOW,
    STATUSES,
    Container,
    ContainerView,
    GraphEmulator,
    PostMedia,
    shortcode,
)
from .rules import (
    check_params,
    check_text,
    checked_outcome,
    fetch_image,
    fetch_video,
    media_fields,
    param_error,
)
from .state import ERROR_MESSAGES, MEDIA_TYPES, POST_MEDIA_TYPES, Post, ThreadsUser
from ..replies import reply_chain
from ..wire import Request, Response

HOSTS = ("threads.net", "www.threads.net", "threads.com", "www.threads.com", "graph.threads.net", "graph.threads.com")
SCOPES = ("threads_basic", "threads_content_publish")
REPLIES_SCOPE = "threads_manage_replies"  # [U] asked for replies as for managing them


class ThreadsEmulator(GraphEmulator):
    name = "threads"
    HOSTS, SCOPES, GRANT_PREFIX, TOKEN_PREFIX = HOSTS, SCOPES, "th", "THQVJ"
    USER, DEFAULT_USER = ThreadsUser, ("17841400000000001", "emu_threads")
    CODE_TTL = dt.timedelta(minutes=10)  # [U] Meta documents no lifetime for Threads codes
    MISSING_TOKEN = (104, "An access token is required to request this resource.")
    UNKNOWN_TOKEN = (190, "Error validating access token: Invalid OAuth access token.")
    REVOKED_TOKEN = (458, "Error validating access token: The user has not authorized application {client_id}.")
    PARAM_ERROR_TYPE = "THApiException"
    MEDIA_TYPES = MEDIA_TYPES
    DEFAULT_PROCESSING = {"TEXT": 0.0, "IMAGE": 0.0, "VIDEO": 30.0, "CAROUSEL": 0.0}
    CAROUSEL_ITEMS = (2, 20)
    CONTAINERS_ROUTE, PUBLISH_ROUTE, LIMIT_ROUTE = "threads", "threads_publish", "threads_publishing_limit"
    USER_NODE, CONTAINER_NODE, MEDIA_NODE = "ThreadsUser", "ThreadsMediaContainer", "ThreadsMedia"
    MORE_SCOPES = (REPLIES_SCOPE,)

    def __init__(self, client_id: str = "threads-app-id", client_secret: str = "threads-app-secret", *,
                 users: Iterable[ThreadsUser | tuple[str, str]] | None = None,
                 redirect_uris: Iterable[str] | None = None,
                 processing_seconds: dict[str, float] | None = None,
                 publish_quota: int = 250, permalink_host: str = "www.threads.net", **server):
        super().__init__(client_id, client_secret, users=users, redirect_uris=redirect_uris,
                         processing_seconds=processing_seconds, publish_quota=publish_quota, **server)
        self.permalink_host = permalink_host
        self.route("GET", VERSION + r"/oauth/access_token", self._exchange_code)  # Threads takes a GET too
        self.route("GET", VERSION + r"/(?P<object_id>me|[0-9]+)/replies", self._replies)

    # --- accessors for tests ------------------------------------------------------------------

    def replies_to(self, post_id: str) -> list[Post]:
        """The posts replying to `post_id`, oldest first."""
        with self.lock:
            return [p for p in self._posts if p.reply_to_id == post_id]

    def chain(self, post_id: str) -> list[Post]:
        """`post_id` and the posts it replies to, up to the first of its chain, first first."""
        with self.lock:
            return reply_chain(self._posts, post_id, lambda post: post.reply_to_id)

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, username: str, user_id: str | None = None, profile_picture_url: str = "") -> ThreadsUser:
        """Another user (an id is made up if none is given)."""
        return self._add_user(ThreadsUser(str(user_id or next(self._ids)), username, profile_picture_url))

    def force_next_container(self, status: str, error_message: str | None = None, media_type: str | None = None) -> None:
        """The next container created (of `media_type`, default any) ends as told instead:
        FINISHED or ERROR once processed, IN_PROGRESS forever, or EXPIRED at once."""
        self._force_next(media_type, *checked_outcome(status, error_message))

    def force_container(self, container_id: str, status: str, error_message: str | None = None) -> None:
        """An existing container ends as told (see force_next_container), from now."""
        self._force(container_id, *checked_outcome(status, error_message))

    # --- what Threads answers -----------------------------------------------------------------

    def _code_answer(self, token: Token) -> dict:
        return {"access_token": token.value, "user_id": int(token.user_id)}

    def _user_fields(self, user: ThreadsUser) -> dict:
        return {"id": lambda: user.id, "username": lambda: user.username, "name": lambda: user.username,
                "threads_profile_picture_url": lambda: user.profile_picture_url or None,
                "threads_biography": lambda: ""}

    def _container_fields(self, container: Container, status: str, message: str | None) -> dict:
        return {"id": lambda: container.id, "status": lambda: status, "error_message": lambda: message}

    def _media_fields(self, post: Post, object_id: str) -> dict:
        return media_fields(post, object_id)

    def _limit_fields(self, usage: int, replies: int = 0) -> dict:
        window = int(QUOTA_WINDOW.total_seconds())
        return {**super()._limit_fields(usage), "reply_quota_usage": lambda: replies,
                "reply_config": lambda: {"quota_total": self.reply_quota, "quota_duration": window}}

    def _publish_refusal(self, creation_id: str, container: Container | None, status: str | None,
                         message: str | None) -> GraphError:
        if container is None:
            return GraphError(f"The media with id {creation_id} cannot be found.", code=24, subcode=2207006)
        if container.is_carousel_item:
            return param_error("A carousel item is published through its carousel, not on its own.")
        if status == PUBLISHED:
            return param_error(f"The media container {creation_id} has already been published.")
        if status == EXPIRED:
            return GraphError("The media you are trying to access has expired. Please try to upload again.",
                              code=-2, subcode=2207020)
        if status == IN_PROGRESS:
            return GraphError("The media is not ready for publishing, please wait for a moment", code=9007,
                              subcode=2207027)
        return param_error(f"The media container {creation_id} failed processing ({message}) and cannot be published.")

    def _make_post(self, container: Container, media_id: str, items: list[PostMedia], now: dt.datetime) -> Post:
        user = self._users[container.user_id]
        code = shortcode(media_id)
        reply_to = container.params.get("reply_to_id")
        parent = next((p for p in self._posts if p.id == reply_to), None)
        return Post(media_id, user.id, user.username, container.id, POST_MEDIA_TYPES[container.media_type], code,
                    f"https://{self.permalink_host}/@{user.username}/post/{code}", now, text=container.text,
                    media=tuple(items), link_attachment=container.params.get("link_attachment"),
                    reply_to_id=reply_to, root_post_id=(parent.root_post_id or parent.id) if parent else None,
                    quote_post_id=container.params.get("quote_post_id"),
                    reply_control=container.params.get("reply_control"), topic_tag=container.params.get("topic_tag"))

    def _listed(self, post: Post) -> bool:
        return post.reply_to_id is None  # replies are listed by /replies

    def _replies(self, request: Request, object_id: str) -> Response:
        """GET /{user}/replies: the user's replies; GET /{media}/replies: a post's replies."""
        with self.lock:
            token = self._auth(request)
            if object_id in ("me", token.user_id):
                keep = None
            elif any(p.id == object_id for p in self._posts):
                keep = object_id
            else:
                raise unknown_object(object_id)
        if keep is None:
            return self._list_posts(request, "me", lambda post: post.reply_to_id is not None)
        with self.lock:
            replies = [p for p in self._posts if p.reply_to_id == keep]
        fields = requested_fields(request.params.get("fields"))
        return Response.json(200, {"data": [self._select(fields, media_fields(p, p.id), self.MEDIA_NODE)
                                            for p in replies]})

    # --- containers ---------------------------------------------------------------------------

    def _create_container(self, request: Request, uid: str) -> Response:
        p = request.params
        with self.lock:
            token = self._auth(request, uid, publishing=True)
        media_type = p.get("media_type", "").upper()
        if not media_type:
            raise param_error("The parameter media_type is required.")
        if media_type not in MEDIA_TYPES:
            raise param_error("Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}")
        is_item = p.get("is_carousel_item", "false").lower() == "true"
        text = p.get("text", "")
        check_params(p, media_type, is_item)
        with self.lock:
            if p.get("reply_to_id"):
                self._auth(request, uid, publishing=True, also=(REPLIES_SCOPE,))
                if not any(post.id == p["reply_to_id"] for post in self._posts):
                    raise param_error(f"The post {p['reply_to_id']} in reply_to_id cannot be found or replied to.")
            if p.get("quote_post_id") and not any(post.id == p["quote_post_id"] for post in self._posts):
                raise param_error(f"Param quote_post_id: the post {p['quote_post_id']} cannot be found or quoted.")
        check_text(text, p.get("link_attachment"))
        error_message, url = None, None
        if media_type in ("IMAGE", "VIDEO"):
            url = p.get("image_url" if media_type == "IMAGE" else "video_url")
            if not url:
                raise param_error(f"The parameter {media_type.lower()}_url is required.")
            if media_type == "IMAGE":
                fetch_image(url)
            else:
                error_message = fetch_video(url)
        with self.lock:
            children = self._carousel_children(p, token.user_id) if media_type == "CAROUSEL" else ()
            container = self._new_container(
                token.user_id, media_type, media_type, text=text, media_url=url, is_carousel_item=is_item,
                children=children,
                params={k: v for k, v in p.items() if k in ("link_attachment", "reply_control", "topic_tag",
                                                             "reply_to_id", "quote_post_id")},
                error_message=error_message, failed_download=error_message == "FAILED_DOWNLOADING_VIDEO")
        return Response.json(200, {"id": container.id})


__all__ = ["HOSTS", "SCOPES", "STATUSES", "ERROR_MESSAGES", "ThreadsEmulator", "ThreadsUser", "Post", "PostMedia",
           "ContainerView", "FINISHED", "IN_PROGRESS", "ERROR", "EXPIRED", "PUBLISHED"]
