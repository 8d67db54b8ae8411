"""The Threads emulator: Threads' OAuth and publishing API on loopback, on the emulator's
clock (tests/emulators/README.md#threads has its behaviour and the choices it makes).

One server answers every Threads host; FANOUT_PLATFORM_HOSTS sends them all to it
(`hosts_setting`). Errors are Graph's envelope, HTTP 400 unless said otherwise.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from typing import Any, Iterable

from .base import EmulatorServer, Request, Response, Rule
from .graph import (
    VERSION,
    GraphError,
    error_body,
    requested_fields,
    select,
    unknown_object,
)
from .threads_oauth import SCOPES, ThreadsOAuth
from .threads_rules import (
    MAX_ITEMS,
    MIN_ITEMS,
    apply_outcome,
    check_params,
    check_text,
    checked_outcome,
    fetch_image,
    fetch_video,
    media_fields,
    param_error,
)
from .threads_state import (
    ERROR,
    ERROR_MESSAGES,
    EXPIRED,
    FINISHED,
    IN_PROGRESS,
    MEDIA_TYPES,
    POST_MEDIA_TYPES,
    PUBLISHED,
    STATUSES,
    Code,
    Container,
    ContainerView,
    Post,
    PostMedia,
    ThreadsUser,
    Token,
    shortcode,
    status_of,
    view,
)

HOSTS = ("threads.net", "www.threads.net", "threads.com", "www.threads.com", "graph.threads.net", "graph.threads.com")
QUOTA_WINDOW = dt.timedelta(hours=24)
DEFAULT_PROCESSING = {"TEXT": 0.0, "IMAGE": 0.0, "VIDEO": 30.0, "CAROUSEL": 0.0}

P = "(?P<uid>me|[0-9]+)"


class ThreadsEmulator(ThreadsOAuth, EmulatorServer):
    name = "threads"

    def __init__(self, client_id: str = "threads-app-id", client_secret: str = "threads-app-secret", *,
                 users: Iterable[ThreadsUser | tuple[str, str]] | None = None,
                 redirect_uris: Iterable[str] | None = None,
                 processing_seconds: dict[str, float] | None = None,
                 publish_quota: int = 250, permalink_host: str = "www.threads.net", **server):
        super().__init__(**server)
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        self.processing_seconds = {**DEFAULT_PROCESSING, **(processing_seconds or {})}
        self.publish_quota = publish_quota
        self.permalink_host = permalink_host
        self._ids = itertools.count(18_000_000_000_000_001)  # users, containers, media
        self._users: dict[str, ThreadsUser] = {}
        for user in users if users is not None else [ThreadsUser("17841400000000001", "emu_threads")]:
            user = user if isinstance(user, ThreadsUser) else ThreadsUser(*user)
            self._users[user.id] = user
        self._consenting = next(iter(self._users), None)
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/oauth/authorize", self._authorize),
            ("POST", VERSION + r"/oauth/access_token", self._exchange_code),
            ("GET", VERSION + r"/oauth/access_token", self._exchange_code),
            ("GET", VERSION + r"/access_token", self._long_lived),
            ("GET", VERSION + r"/refresh_access_token", self._refresh),
            ("POST", VERSION + f"/{P}/threads", self._create_container),
            ("GET", VERSION + f"/{P}/threads", self._list_posts),
            ("POST", VERSION + f"/{P}/threads_publish", self._publish),
            ("GET", VERSION + f"/{P}/threads_publishing_limit", self._publishing_limit),
            ("GET", VERSION + r"/(?P<object_id>me|[0-9]+)", self._get_object),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, revoke_tokens=self.revoke_tokens, fail_refresh=self.fail_refresh,
            fail_graph=self.fail_graph, force_next_container=self.force_next_container,
            force_container=self.force_container, set_processing_time=self.set_processing_time,
        )
        self.views.update(posts=lambda: self.posts, containers=lambda: self.containers, users=lambda: self.users)

    def _reset_state(self) -> None:
        self._tokens: dict[str, Token] = {}
        self._codes: dict[str, Code] = {}
        self._containers: dict[str, Container] = {}
        self._posts: list[Post] = []
        self._forced: list[tuple[str | None, str, str | None]] = []
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every Threads host here."""
        return ",".join(f"{host}={self.base_url}" for host in HOSTS)

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def users(self) -> list[ThreadsUser]:
        with self.lock:
            return list(self._users.values())

    @property
    def posts(self) -> dict[str, list[Post]]:
        """Published posts by user id, oldest first; every user has an entry."""
        with self.lock:
            return {uid: [p for p in self._posts if p.user_id == uid] for uid in self._users}

    @property
    def containers(self) -> dict[str, ContainerView]:
        with self.lock:
            now = self.clock.now()
            return {cid: view(c, now, self._containers) for cid, c in self._containers.items()}

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, username: str, user_id: str | None = None, profile_picture_url: str = "") -> ThreadsUser:
        with self.lock:
            user = ThreadsUser(str(user_id or next(self._ids)), username, profile_picture_url)
            self._users[user.id] = user
            if self._consenting is None:
                self._consenting = user.id
            return user

    def consent_as(self, user_id: str) -> None:
        """The user who consents on the next authorizations."""
        with self.lock:
            if str(user_id) not in self._users:
                raise KeyError(f"no user {user_id}")
            self._consenting = str(user_id)

    def deny_consent(self, deny: bool = True) -> None:
        """While on, the user refuses every authorization (error=access_denied)."""
        self._deny = deny

    def issue_token(self, user_id: str | None = None, *, long_lived: bool = True,
                    scopes: Iterable[str] = SCOPES) -> str:
        """A token as the OAuth flow would give it, for tests that start connected."""
        with self.lock:
            uid = str(user_id or self._consenting)
            if uid not in self._users:
                raise KeyError(f"no user {uid}")
            return self._issue(uid, long_lived, frozenset(scopes)).value

    def revoke_tokens(self, user_id: str | None = None) -> int:
        """Every token of the user (default: the consenting one) stops working (190/458)."""
        uid = str(user_id or self._consenting)
        with self.lock:
            revoked = [t for t in self._tokens.values() if t.user_id == uid and not t.revoked]
            for token in revoked:
                self._tokens[token.value] = dataclasses.replace(token, revoked=True)
            return len(revoked)

    def fail_refresh(self, times: int | None = 1) -> Rule:
        """The next refreshes answer 190 (the token is refused) and change nothing."""
        return self.fail_graph("GET", r"/refresh_access_token$", 190,
                               "Error validating access token: The session has been invalidated because the user "
                               "changed their password or Facebook has changed the session for security reasons.",
                               subcode=460, times=times)

    def fail_graph(self, method: str | None, path: str, code: int, message: str = "An unexpected error has occurred.",
                   *, subcode: int | None = None, status: int = 400, type: str = "OAuthException",
                   times: int | None = 1, **extra: Any) -> Rule:
        """The next matching calls answer a Graph error envelope (any row of the error table)."""
        return self.fail(method, path, status, error_body(message, code=code, type=type, subcode=subcode, **extra),
                         times=times)

    def force_next_container(self, status: str, error_message: str | None = None, media_type: str | None = None) -> None:
        """The next container created (of `media_type`, default any) ends as told instead:
        FINISHED or ERROR once processed, IN_PROGRESS forever, or EXPIRED at once."""
        status, error_message = checked_outcome(status, error_message)
        with self.lock:
            self._forced.append((media_type.upper() if media_type else None, status, error_message))

    def force_container(self, container_id: str, status: str, error_message: str | None = None) -> None:
        """An existing container ends as told (see force_next_container), from now."""
        status, error_message = checked_outcome(status, error_message)
        with self.lock:
            container = self._containers[str(container_id)]
            apply_outcome(container, status, error_message, self.clock.now())

    def set_processing_time(self, media_type: str, seconds: float) -> None:
        """How long new containers of `media_type` stay IN_PROGRESS (emulator seconds)."""
        if media_type.upper() not in MEDIA_TYPES:
            raise ValueError(f"media_type is one of {MEDIA_TYPES}")
        self.processing_seconds[media_type.upper()] = float(seconds)

    # --- errors ------------------------------------------------------------------------------

    def not_found(self, request: Request) -> Response:
        return GraphError("Unknown path components: " + request.path, code=2500).response

    # --- profile and objects ------------------------------------------------------------------

    def _get_object(self, request: Request, object_id: str) -> Response:
        fields = requested_fields(request.params.get("fields"))
        with self.lock:
            token = self._auth(request)
            if object_id in ("me", token.user_id):
                user = self._users[token.user_id]
                return Response.json(200, select(fields, {
                    "id": lambda: user.id, "username": lambda: user.username, "name": lambda: user.username,
                    "threads_profile_picture_url": lambda: user.profile_picture_url or None,
                    "threads_biography": lambda: "",
                }, "ThreadsUser"))
            container = self._containers.get(object_id)
            if container is not None and container.user_id == token.user_id:
                status, message = status_of(container, self.clock.now(), self._containers)
                return Response.json(200, select(fields, {
                    "id": lambda: container.id, "status": lambda: status, "error_message": lambda: message,
                }, "ThreadsMediaContainer"))
            for post in self._posts:
                if post.user_id == token.user_id and object_id in (post.id, *(m.id for m in post.media)):
                    return Response.json(200, select(fields, media_fields(post, object_id), "ThreadsMedia"))
        raise unknown_object(object_id)

    # --- publishing ---------------------------------------------------------------------------

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
        check_text(text, p.get("link_attachment"))
        error_message, failed_download, url = None, False, None
        if media_type in ("IMAGE", "VIDEO"):
            url = p.get("image_url" if media_type == "IMAGE" else "video_url")
            if not url:
                raise param_error(f"The parameter {media_type.lower()}_url is required.")
            if media_type == "IMAGE":
                fetch_image(url)
            else:
                error_message = fetch_video(url)
                failed_download = error_message == "FAILED_DOWNLOADING_VIDEO"
        with self.lock:
            children = self._carousel_items(p, token.user_id) if media_type == "CAROUSEL" else ()
            now = self.clock.now()
            container = Container(
                str(next(self._ids)), token.user_id, media_type, now,
                now + dt.timedelta(seconds=self.processing_seconds[media_type]), text, url, is_item, children,
                {k: v for k, v in p.items() if k in ("link_attachment", "reply_control", "topic_tag")},
                error_message, failed_download)
            forced = next((f for f in self._forced if f[0] in (None, media_type)), None)
            if forced is not None:
                self._forced.remove(forced)
                apply_outcome(container, forced[1], forced[2], None)
            self._containers[container.id] = container
        return Response.json(200, {"id": container.id})

    def _carousel_items(self, p: dict, user_id: str) -> tuple[str, ...]:
        ids = tuple(i.strip() for i in p.get("children", "").split(",") if i.strip())
        if not MIN_ITEMS <= len(ids) <= MAX_ITEMS:
            raise param_error(f"Carousels need at least {MIN_ITEMS} and at most {MAX_ITEMS} children; got {len(ids)}.")
        now = self.clock.now()
        for item_id in ids:
            item = self._containers.get(item_id)
            if item is None or item.user_id != user_id or not item.is_carousel_item \
                    or status_of(item, now, self._containers)[0] in (EXPIRED, PUBLISHED):
                raise param_error(f"Param children contains an invalid carousel item id: {item_id}")
        return ids

    def _publish(self, request: Request, uid: str) -> Response:
        p = request.params
        with self.lock:
            token = self._auth(request, uid, publishing=True)
            creation_id = p.get("creation_id", "")
            if not creation_id:
                raise param_error("The parameter creation_id is required.")
            container = self._containers.get(creation_id)
            if container is None or container.user_id != token.user_id:
                raise GraphError(f"The media with id {creation_id} cannot be found.", code=24, subcode=2207006)
            now = self.clock.now()
            status, message = status_of(container, now, self._containers)
            if container.is_carousel_item:
                raise param_error("A carousel item is published through its carousel, not on its own.")
            if status == PUBLISHED:
                raise param_error(f"The media container {creation_id} has already been published.")
            if status == EXPIRED:
                raise GraphError("The media you are trying to access has expired. Please try to upload again.",
                                 code=-2, subcode=2207020)
            if status == IN_PROGRESS:
                raise GraphError("The media is not ready for publishing, please wait for a moment", code=9007,
                                 subcode=2207027)
            if status == ERROR:
                raise param_error(f"The media container {creation_id} failed processing ({message}) and "
                                   "cannot be published.")
            if self._quota_usage(token.user_id, now) >= self.publish_quota:
                raise GraphError(
                    "You reached maximum number of posts that is allowed to be published by Content Publishing API.",
                    code=9, subcode=2207042, is_transient=False, error_user_title="Publishing limit reached",
                    error_user_msg=f"This profile has published {self.publish_quota} posts in 24 hours.")
            post = self._new_post(container, now)
        return Response.json(200, {"id": post.id})

    def _new_post(self, container: Container, now: dt.datetime) -> Post:
        media_id = str(next(self._ids))
        items = [self._containers[i] for i in container.children] or (
            [container] if container.media_url else [])
        media_list = []
        for item in items:
            item_id = media_id if item is container else str(next(self._ids))
            item.published_id = item_id
            media_list.append(PostMedia(item_id, item.media_type, item.media_url))
        container.published_id = media_id
        user = self._users[container.user_id]
        code = shortcode(media_id)
        post = Post(media_id, user.id, user.username, container.id, POST_MEDIA_TYPES[container.media_type],
                    container.text, tuple(media_list), code,
                    f"https://{self.permalink_host}/@{user.username}/post/{code}", now,
                    container.params.get("link_attachment"))
        self._posts.append(post)
        return post

    def _quota_usage(self, user_id: str, now: dt.datetime) -> int:
        return sum(1 for p in self._posts if p.user_id == user_id and now - p.published_at < QUOTA_WINDOW)

    def _publishing_limit(self, request: Request, uid: str) -> Response:
        fields = requested_fields(request.params.get("fields"), ("quota_usage", "config"))
        with self.lock:
            token = self._auth(request, uid, publishing=True)
            usage = self._quota_usage(token.user_id, self.clock.now())
        window = int(QUOTA_WINDOW.total_seconds())
        entry = select(fields, {
            "quota_usage": lambda: usage,
            "config": lambda: {"quota_total": self.publish_quota, "quota_duration": window},
            "reply_quota_usage": lambda: 0,
            "reply_config": lambda: {"quota_total": 1000, "quota_duration": window},
        }, "ThreadsPublishingLimit")
        return Response.json(200, {"data": [entry]})

    def _list_posts(self, request: Request, uid: str) -> Response:
        p = request.params
        fields = requested_fields(p.get("fields"))
        try:
            limit = min(max(int(p.get("limit", 25)), 1), 100)
            start = int(p.get("after", "0") or 0)
            since = int(p["since"]) if p.get("since") else None
            until = int(p["until"]) if p.get("until") else None
        except ValueError:
            raise param_error("Params limit, after, since and until must be integers") from None
        with self.lock:
            token = self._auth(request, uid)
            posts = [post for post in reversed(self._posts) if post.user_id == token.user_id
                     and (since is None or post.published_at.timestamp() >= since)
                     and (until is None or post.published_at.timestamp() <= until)]
        page = posts[start:start + limit]
        data = [select(fields, media_fields(post, post.id), "ThreadsMedia") for post in page]
        answer: dict[str, Any] = {"data": data}
        if page:
            answer["paging"] = {"cursors": {"before": str(start), "after": str(start + len(page))}}
        return Response.json(200, answer)


__all__ = ["HOSTS", "SCOPES", "STATUSES", "ERROR_MESSAGES", "ThreadsEmulator", "ThreadsUser", "Post", "PostMedia",
           "ContainerView", "FINISHED", "IN_PROGRESS", "ERROR", "EXPIRED", "PUBLISHED"]
