"""The Threads emulator: Threads' OAuth and publishing API on loopback, on the emulator's
clock (tests/emulators/README.md#threads has its behaviour and the choices it makes).

One server answers every Threads host; FANOUT_PLATFORM_HOSTS sends them all to it
(`hosts_setting`). Errors are Graph's envelope, HTTP 400 unless said otherwise.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import secrets
from typing import Any, Iterable
from urllib.parse import urlencode, urlsplit, urlunsplit

from fanout.platforms.text import link_count, threads_length

from . import media
from .base import EmulatorServer, Request, Response, Rule
from .graph import VERSION, GraphError, error_body, graph_time, requested_fields, select, unknown_object
from .threads_state import (
    ERROR, ERROR_MESSAGES, EXPIRED, FINISHED, IN_PROGRESS, MEDIA_TYPES, POST_MEDIA_TYPES, PUBLISHED, STATUSES,
    Code, Container, ContainerView, Post, PostMedia, ThreadsUser, Token, shortcode, status_of, view,
)

HOSTS = ("threads.net", "www.threads.net", "threads.com", "www.threads.com", "graph.threads.net", "graph.threads.com")
SCOPES = ("threads_basic", "threads_content_publish")

SHORT_LIVED = dt.timedelta(hours=1)
LONG_LIVED = dt.timedelta(days=60)
REFRESHABLE_AFTER = dt.timedelta(hours=24)
CODE_TTL = dt.timedelta(minutes=10)  # [U] Meta documents no lifetime for Threads codes
QUOTA_WINDOW = dt.timedelta(hours=24)
TEXT_LIMIT, LINK_LIMIT = 500, 5
MIN_ITEMS, MAX_ITEMS = 2, 20
IMAGE_LIMIT = 8 * 1024 * 1024  # "8 MB"; read as MiB, as Instagram states it
VIDEO_LIMIT = 1024 ** 3
DEFAULT_PROCESSING = {"TEXT": 0.0, "IMAGE": 0.0, "VIDEO": 30.0, "CAROUSEL": 0.0}
REPLY_CONTROLS = ("everyone", "accounts_you_follow", "mentioned_only", "parent_post_author_only", "followers_only")

P = "(?P<uid>me|[0-9]+)"


class ThreadsEmulator(EmulatorServer):
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
        status, error_message = _checked_outcome(status, error_message)
        with self.lock:
            self._forced.append((media_type.upper() if media_type else None, status, error_message))

    def force_container(self, container_id: str, status: str, error_message: str | None = None) -> None:
        """An existing container ends as told (see force_next_container), from now."""
        status, error_message = _checked_outcome(status, error_message)
        with self.lock:
            container = self._containers[str(container_id)]
            _apply_outcome(container, status, error_message, self.clock.now())

    def set_processing_time(self, media_type: str, seconds: float) -> None:
        """How long new containers of `media_type` stay IN_PROGRESS (emulator seconds)."""
        if media_type.upper() not in MEDIA_TYPES:
            raise ValueError(f"media_type is one of {MEDIA_TYPES}")
        self.processing_seconds[media_type.upper()] = float(seconds)

    # --- errors ------------------------------------------------------------------------------

    def not_found(self, request: Request) -> Response:
        return GraphError("Unknown path components: " + request.path, code=2500).response

    # --- OAuth --------------------------------------------------------------------------------

    def _issue(self, user_id: str, long_lived: bool, scopes: frozenset) -> Token:
        now = self.clock.now()
        token = Token("THQVJ" + secrets.token_urlsafe(48), user_id, long_lived, scopes, now,
                      now + (LONG_LIVED if long_lived else SHORT_LIVED))
        self._tokens[token.value] = token
        return token

    def _check_app(self, params: dict, *, client_id: bool | None, secret: bool) -> None:
        """App credentials; `client_id` None: checked only when sent."""
        if client_id or (client_id is None and "client_id" in params):
            if params.get("client_id") != self.client_id:
                raise GraphError("Error validating application. Invalid application ID.", code=101)
        if secret and params.get("client_secret") != self.client_secret:
            raise GraphError("Error validating client secret.", code=1)

    def _authorize(self, request: Request) -> Response:
        p = request.query
        self._check_app(p, client_id=True, secret=False)
        for name in ("redirect_uri", "scope", "response_type"):
            if not p.get(name):
                raise _param_error(f"The parameter {name} is required")
        if p["response_type"] != "code":
            raise _param_error("Param response_type must be code")
        redirect_uri = p["redirect_uri"]
        if self.redirect_uris is not None and redirect_uri not in self.redirect_uris:
            raise GraphError("URL blocked: the redirect URI is not whitelisted in the app's Client OAuth Settings.",
                             code=191)
        answer = {"state": p["state"]} if "state" in p else {}
        if self._deny or self._consenting is None:
            answer = {"error": "access_denied", "error_reason": "user_denied",
                      "error_description": "Permissions error", **answer}
            return Response.redirect(_with_query(redirect_uri, answer))
        scopes = frozenset(s.strip() for s in p["scope"].replace(" ", ",").split(",") if s.strip())
        with self.lock:
            code = Code(secrets.token_urlsafe(32), self._consenting, redirect_uri, scopes,
                        self.clock.now() + CODE_TTL)
            self._codes[code.value] = code
        return Response.redirect(_with_query(redirect_uri, {"code": code.value, **answer}))

    def _exchange_code(self, request: Request) -> Response:
        p = request.params
        self._check_app(p, client_id=True, secret=True)
        if p.get("grant_type", "authorization_code") != "authorization_code":
            raise _param_error("Unsupported grant_type")
        with self.lock:
            code = self._codes.get(p.get("code", ""))
            if code is None:
                raise GraphError("Invalid verification code format.", code=100)
            if code.used:
                raise GraphError("This authorization code has been used.", code=100, subcode=36009)
            if self.clock.now() >= code.expires_at:
                raise GraphError("This authorization code has expired.", code=100, subcode=36007)
            if p.get("redirect_uri") != code.redirect_uri:
                raise GraphError("Error validating verification code. Please make sure your redirect_uri is "
                                 "identical to the one you used in the OAuth dialog request", code=100, subcode=36008)
            self._codes[code.value] = dataclasses.replace(code, used=True)
            token = self._issue(code.user_id, False, code.scopes)
        return Response.json(200, {"access_token": token.value, "user_id": int(token.user_id)})

    def _long_lived(self, request: Request) -> Response:
        p = request.params
        if p.get("grant_type") != "th_exchange_token":
            raise _param_error("Param grant_type must be th_exchange_token")
        self._check_app(p, client_id=None, secret=True)
        with self.lock:
            old = self._valid_token(p.get("access_token"))
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _refresh(self, request: Request) -> Response:
        p = request.params
        if p.get("grant_type") != "th_refresh_token":
            raise _param_error("Param grant_type must be th_refresh_token")
        with self.lock:
            old = self._valid_token(p.get("access_token"))
            if not old.long_lived:
                raise _param_error("(#100) Invalid parameter: only long-lived tokens can be refreshed")
            if self.clock.now() - old.issued_at < REFRESHABLE_AFTER:
                raise _param_error("(#100) Invalid parameter: a token can be refreshed once it is 24 hours old")
            token = self._issue(old.user_id, True, old.scopes)
        return self._bearer(token)

    def _bearer(self, token: Token) -> Response:
        expires_in = int((token.expires_at - self.clock.now()).total_seconds())
        return Response.json(200, {"access_token": token.value, "token_type": "bearer", "expires_in": expires_in})

    def _valid_token(self, value: str | None) -> Token:
        if not value:
            raise GraphError("An access token is required to request this resource.", code=104)
        token = self._tokens.get(value)
        now = self.clock.now()
        if token is None:
            raise GraphError("Error validating access token: Invalid OAuth access token.", code=190)
        if token.revoked:
            raise GraphError(f"Error validating access token: The user has not authorized application "
                             f"{self.client_id}.", code=190, subcode=458)
        if now >= token.expires_at:
            raise GraphError(f"Error validating access token: Session has expired on {_long_time(token.expires_at)}. "
                             f"The current time is {_long_time(now)}.", code=190, subcode=463)
        return token

    def _auth(self, request: Request, uid: str | None = None, *, publishing: bool = False) -> Token:
        token = self._valid_token(request.params.get("access_token") or request.bearer())
        needed = ("threads_basic", "threads_content_publish") if publishing else ("threads_basic",)
        if not all(scope in token.scopes for scope in needed):
            raise GraphError("(#10) Application does not have permission for this action", code=10)
        if uid is not None and uid not in ("me", token.user_id):
            raise unknown_object(uid, request.method.lower())
        return token

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
                    return Response.json(200, select(fields, _media_fields(post, object_id), "ThreadsMedia"))
        raise unknown_object(object_id)

    # --- publishing ---------------------------------------------------------------------------

    def _create_container(self, request: Request, uid: str) -> Response:
        p = request.params
        with self.lock:
            token = self._auth(request, uid, publishing=True)
        media_type = p.get("media_type", "").upper()
        if not media_type:
            raise _param_error("The parameter media_type is required.")
        if media_type not in MEDIA_TYPES:
            raise _param_error("Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}")
        is_item = p.get("is_carousel_item", "false").lower() == "true"
        text = p.get("text", "")
        _check_params(p, media_type, is_item)
        _check_text(text, p.get("link_attachment"))
        error_message, failed_download, url = None, False, None
        if media_type in ("IMAGE", "VIDEO"):
            url = p.get("image_url" if media_type == "IMAGE" else "video_url")
            if not url:
                raise _param_error(f"The parameter {media_type.lower()}_url is required.")
            if media_type == "IMAGE":
                _fetch_image(url)
            else:
                error_message = _fetch_video(url)
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
                _apply_outcome(container, forced[1], forced[2], None)
            self._containers[container.id] = container
        return Response.json(200, {"id": container.id})

    def _carousel_items(self, p: dict, user_id: str) -> tuple[str, ...]:
        ids = tuple(i.strip() for i in p.get("children", "").split(",") if i.strip())
        if not MIN_ITEMS <= len(ids) <= MAX_ITEMS:
            raise _param_error(f"Carousels need at least {MIN_ITEMS} and at most {MAX_ITEMS} children; got {len(ids)}.")
        now = self.clock.now()
        for item_id in ids:
            item = self._containers.get(item_id)
            if item is None or item.user_id != user_id or not item.is_carousel_item \
                    or status_of(item, now, self._containers)[0] in (EXPIRED, PUBLISHED):
                raise _param_error(f"Param children contains an invalid carousel item id: {item_id}")
        return ids

    def _publish(self, request: Request, uid: str) -> Response:
        p = request.params
        with self.lock:
            token = self._auth(request, uid, publishing=True)
            creation_id = p.get("creation_id", "")
            if not creation_id:
                raise _param_error("The parameter creation_id is required.")
            container = self._containers.get(creation_id)
            if container is None or container.user_id != token.user_id:
                raise GraphError(f"The media with id {creation_id} cannot be found.", code=24, subcode=2207006)
            now = self.clock.now()
            status, message = status_of(container, now, self._containers)
            if container.is_carousel_item:
                raise _param_error("A carousel item is published through its carousel, not on its own.")
            if status == PUBLISHED:
                raise _param_error(f"The media container {creation_id} has already been published.")
            if status == EXPIRED:
                raise GraphError("The media you are trying to access has expired. Please try to upload again.",
                                 code=-2, subcode=2207020)
            if status == IN_PROGRESS:
                raise GraphError("The media is not ready for publishing, please wait for a moment", code=9007,
                                 subcode=2207027)
            if status == ERROR:
                raise _param_error(f"The media container {creation_id} failed processing ({message}) and "
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
            raise _param_error("Params limit, after, since and until must be integers") from None
        with self.lock:
            token = self._auth(request, uid)
            posts = [post for post in reversed(self._posts) if post.user_id == token.user_id
                     and (since is None or post.published_at.timestamp() >= since)
                     and (until is None or post.published_at.timestamp() <= until)]
        page = posts[start:start + limit]
        data = [select(fields, _media_fields(post, post.id), "ThreadsMedia") for post in page]
        answer: dict[str, Any] = {"data": data}
        if page:
            answer["paging"] = {"cursors": {"before": str(start), "after": str(start + len(page))}}
        return Response.json(200, answer)


# --- rules --------------------------------------------------------------------------------------


def _param_error(message: str) -> GraphError:
    return GraphError(message, code=100, type="THApiException")


def _check_params(p: dict, media_type: str, is_item: bool) -> None:
    if is_item and media_type not in ("IMAGE", "VIDEO"):
        raise _param_error("Only IMAGE and VIDEO containers can be carousel items.")
    if media_type == "TEXT" and not p.get("text"):
        raise _param_error("The parameter text is required for TEXT posts.")
    if p.get("link_attachment") and media_type != "TEXT":
        raise _param_error("Param link_attachment is only allowed on TEXT posts.")
    if p.get("reply_control") and p["reply_control"] not in REPLY_CONTROLS:
        raise _param_error(f"Param reply_control must be one of {{{', '.join(REPLY_CONTROLS)}}}")
    tag = p.get("topic_tag")
    if tag is not None and not (1 <= len(tag) <= 50 and "." not in tag and "&" not in tag):
        raise _param_error("Param topic_tag must be 1 to 50 characters, without '.' or '&'.")


def _check_text(text: str, link_attachment: str | None) -> None:
    if threads_length(text) > TEXT_LIMIT:
        raise _param_error(f"Param text must be at most {TEXT_LIMIT} characters long.")
    if link_count(" ".join(filter(None, (text, link_attachment)))) > LINK_LIMIT:
        raise GraphError(f"THREADS_API__LINK_LIMIT_EXCEEDED: a post may contain at most {LINK_LIMIT} links.",
                         code=100, type="THApiException", error_user_title="Link limit exceeded",
                         error_user_msg=f"Posts can contain at most {LINK_LIMIT} links.")


def _fetch_image(url: str) -> None:
    """Fetches an image as Threads does at creation: failures are errors of the call."""
    fetched = media.fetch(url, limit=IMAGE_LIMIT)
    if not fetched.ok:
        raise GraphError(f"The media could not be fetched from this URI: {url}", code=9004, subcode=2207052,
                         error_user_title="Media download has failed.",
                         error_user_msg="The media could not be fetched from this URI.")
    if fetched.kind not in ("jpeg", "png"):
        raise GraphError(f"The image format {fetched.kind or 'unknown'} is not supported. Supported formats are: "
                         "JPEG, PNG.", code=36001, subcode=2207005)
    if fetched.size > IMAGE_LIMIT:
        raise GraphError("The image is too large to download. It should be less than 8 MB.", code=36000,
                         subcode=2207004)


def _fetch_video(url: str) -> str | None:
    """Fetches a video: what goes wrong shows on the container (status ERROR), not the call."""
    fetched = media.fetch(url, limit=VIDEO_LIMIT)
    if not fetched.ok:
        return "FAILED_DOWNLOADING_VIDEO"
    if fetched.kind not in ("mp4", "mov") or fetched.size > VIDEO_LIMIT:
        return "FAILED_PROCESSING_VIDEO"
    return None


def _checked_outcome(status: str, error_message: str | None) -> tuple[str, str | None]:
    status = status.upper()
    if status not in (IN_PROGRESS, FINISHED, ERROR, EXPIRED):
        raise ValueError(f"a container can be made IN_PROGRESS, FINISHED, ERROR or EXPIRED, not {status}")
    if status == ERROR:
        error_message = error_message or "UNKNOWN"
        if error_message not in ERROR_MESSAGES:
            raise ValueError(f"error_message is one of {ERROR_MESSAGES}")
        return status, error_message
    return status, None


def _apply_outcome(container: Container, status: str, error_message: str | None, now: dt.datetime | None) -> None:
    """Make `container` end in `status`; `now` given: a processing time already passed."""
    container.failed_download = False
    container.error_message = error_message if status == ERROR else None
    container.forced_expired = status == EXPIRED
    if status == IN_PROGRESS:
        container.ready_at = None
    elif now is not None:
        container.ready_at = now


def _media_fields(post: Post, object_id: str) -> dict:
    """A post's fields, or one of its carousel items' (`object_id`)."""
    item = next((m for m in post.media if m.id == object_id and object_id != post.id), None)
    if item is not None:
        return {"id": lambda: item.id, "media_product_type": lambda: "THREADS", "media_type": lambda: item.media_type,
                "media_url": lambda: item.url, "permalink": lambda: post.permalink,
                "owner": lambda: {"id": post.user_id}, "username": lambda: post.username,
                "timestamp": lambda: graph_time(post.published_at), "shortcode": lambda: post.shortcode,
                "is_quote_post": lambda: False}
    return {
        "id": lambda: post.id, "media_product_type": lambda: "THREADS", "media_type": lambda: post.media_type,
        "media_url": lambda: post.media[0].url if post.media and post.media_type != "CAROUSEL_ALBUM" else None,
        "permalink": lambda: post.permalink, "owner": lambda: {"id": post.user_id},
        "username": lambda: post.username, "text": lambda: post.text or None,
        "timestamp": lambda: graph_time(post.published_at), "shortcode": lambda: post.shortcode,
        "is_quote_post": lambda: False, "link_attachment_url": lambda: post.link_attachment,
        "children": lambda: {"data": [{"id": m.id} for m in post.media]} if post.media_type == "CAROUSEL_ALBUM"
        else None,
    }


def _with_query(url: str, params: dict) -> str:
    """`url` with `params` added to its query, and Meta's `#_` fragment."""
    parts = urlsplit(url)
    query = "&".join(filter(None, (parts.query, urlencode(params))))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, "_"))


def _long_time(instant: dt.datetime) -> str:
    return instant.strftime("%A, %d-%b-%y %H:%M:%S UTC")


__all__ = ["HOSTS", "SCOPES", "STATUSES", "ERROR_MESSAGES", "ThreadsEmulator", "ThreadsUser", "Post", "PostMedia",
           "ContainerView", "FINISHED", "IN_PROGRESS", "ERROR", "EXPIRED", "PUBLISHED"]
