"""Meta's container publishing as the Threads and Instagram emulators share it: the
container state machine, media fetched as Meta fetches it, posts, the publishing quota,
and `GraphEmulator`, the base both emulators are (tests/emulators/README.md).

A platform sets what differs in class attributes and hooks (`_user_fields`,
`_container_fields`, `_media_fields`, `_make_post`, `_publish_refusal`, ...) and adds its
own container creation."""
from __future__ import annotations

import base64
import datetime as dt
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from .. import media
from ..base import EmulatorServer
from . import VERSION, GraphError, requested_fields, select, unknown_object
from .oauth import Code, GraphOAuth, Token
from ..wire import Request, Response

CONTAINER_TTL = dt.timedelta(hours=24)  # "not published within 24 hours" -> EXPIRED
QUOTA_WINDOW = dt.timedelta(hours=24)
REPLY_QUOTA = 1000  # "1,000 replies / 24 h" (Threads)
IMAGE_LIMIT = 8 * 1024 * 1024  # "8 MB"; read as MiB, as Instagram's error states it

IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED = "IN_PROGRESS", "FINISHED", "ERROR", "EXPIRED", "PUBLISHED"
STATUSES = (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED)

P = "(?P<uid>me|[0-9]+)"  # a user in a path: the id or `me`


@dataclass
class Container:
    """A media container. Its status is computed from the clock (`status_of`), never stored,
    except what ends the machine: published, or forced expired."""

    id: str
    user_id: str
    media_type: str  # the platform's: TEXT | IMAGE | VIDEO | REELS | CAROUSEL
    created_at: dt.datetime
    ready_at: dt.datetime | None  # None: kept IN_PROGRESS forever
    text: str = ""  # the text or caption
    media_url: str | None = None
    is_carousel_item: bool = False
    children: tuple[str, ...] = ()
    params: Mapping[str, str] = field(default_factory=dict)  # link_attachment, reply_control...
    error_message: str | None = None  # set: ERROR once ready
    failed_download: bool = False  # ERROR at once (the download precedes processing)
    forced_expired: bool = False
    published_id: str | None = None


@dataclass(frozen=True)
class ContainerView:
    """A container as tests read it, with its status at the emulator's now."""

    id: str
    user_id: str
    media_type: str
    status: str
    error_message: str | None
    text: str
    media_url: str | None
    is_carousel_item: bool
    children: tuple[str, ...]
    created_at: dt.datetime
    published_id: str | None


@dataclass(frozen=True)
class PostMedia:
    id: str
    media_type: str  # IMAGE | VIDEO
    url: str


@dataclass(frozen=True)
class PublishedPost:
    """What every platform's post has; each platform's Post adds its own fields."""

    id: str
    user_id: str
    username: str
    container_id: str
    media_type: str
    shortcode: str
    permalink: str
    published_at: dt.datetime


def status_of(container: Container, now: dt.datetime, containers: Mapping[str, Container]) -> tuple[str, str | None]:
    """(status, error message) of a container at `now`.

    PUBLISHED once published; EXPIRED 24 h after creation if not; ERROR at once for a failed
    download; IN_PROGRESS until its processing time has passed (forever if kept so); then
    its outcome, FINISHED or ERROR. A carousel is also IN_PROGRESS while an item is, ERROR
    with an item's error, and EXPIRED when an item expired.
    """
    if container.published_id is not None:
        return PUBLISHED, None
    if container.forced_expired or now >= container.created_at + CONTAINER_TTL:
        return EXPIRED, None
    if container.failed_download:
        return ERROR, container.error_message
    if container.ready_at is None or now < container.ready_at:
        return IN_PROGRESS, None
    if container.error_message is not None:
        return ERROR, container.error_message
    items = [status_of(containers[i], now, containers) for i in container.children]
    for status, message in items:
        if status in (ERROR, EXPIRED):
            return status, message
    if any(status != FINISHED for status, _ in items):
        return IN_PROGRESS, None
    return FINISHED, None


def view(container: Container, now: dt.datetime, containers: Mapping[str, Container]) -> ContainerView:
    status, message = status_of(container, now, containers)
    return ContainerView(container.id, container.user_id, container.media_type, status, message, container.text,
                         container.media_url, container.is_carousel_item, container.children,
                         container.created_at, container.published_id)


def apply_outcome(container: Container, status: str, error_message: str | None, now: dt.datetime | None) -> None:
    """Make `container` end in `status`; `now` given: a processing time already passed."""
    container.failed_download = False
    container.error_message = error_message if status == ERROR else None
    container.forced_expired = status == EXPIRED
    if status == IN_PROGRESS:
        container.ready_at = None
    elif now is not None:
        container.ready_at = now


def forcible(status: str) -> str:
    """A status a container can be forced to end in."""
    status = status.upper()
    if status not in (IN_PROGRESS, FINISHED, ERROR, EXPIRED):
        raise ValueError(f"a container can be made IN_PROGRESS, FINISHED, ERROR or EXPIRED, not {status}")
    return status


def shortcode(media_id: str) -> str:
    """An 11-character code like Meta's (C9abc...), derived from the id so it is unique."""
    return base64.urlsafe_b64encode(int(media_id).to_bytes(8, "big")).decode("ascii").rstrip("=")


# --- media, fetched as Meta does at creation ---------------------------------------------------


def fetch_image(url: str, formats: Mapping[str, str], *,
                aspect: tuple[tuple[int, int], tuple[int, int]] | None = None) -> None:
    """Fetches an image during the creation call: what goes wrong is an error of the call.
    `formats` maps the sniffed kinds taken to their names; `aspect` bounds width:height,
    as ((w, h) at least, (w, h) at most)."""
    fetched = media.fetch(url, limit=IMAGE_LIMIT)
    if not fetched.ok:
        raise GraphError(f"The media could not be fetched from this URI: {url}", code=9004, subcode=2207052,
                         error_user_title="Media download has failed.",
                         error_user_msg="The media could not be fetched from this URI.")
    if fetched.kind not in formats:
        raise GraphError(f"The image format {fetched.kind or 'unknown'} is not supported. Supported formats are: "
                         f"{', '.join(formats.values())}.", code=36001, subcode=2207005)
    if fetched.size > IMAGE_LIMIT:
        raise GraphError("The image is too large to download. It should be less than 8 MiB.", code=36000,
                         subcode=2207004, error_user_title="Image size too large")
    if aspect is not None and fetched.dimensions is not None:
        (low_w, low_h), (high_w, high_h) = aspect
        width, height = fetched.dimensions
        if width * low_h < low_w * height or width * high_h > high_w * height:
            raise GraphError(f"The submitted image with aspect ratio ('{width}/{height}',) cannot be published. "
                             "Please submit an image with a valid aspect ratio.", code=36003, subcode=2207009)


def video_problem(url: str, limit: int) -> str | None:
    """Fetches a video during the creation call: "download" (it could not be fetched),
    "format" (not MP4 or MOV, or over `limit` bytes) or None. What goes wrong shows on the
    container, not the call."""
    fetched = media.fetch(url, limit=limit)
    if not fetched.ok:
        return "download"
    if fetched.kind not in ("mp4", "mov") or fetched.size > limit:
        return "format"
    return None


# --- the emulator ------------------------------------------------------------------------------


class GraphEmulator(GraphOAuth, EmulatorServer):
    """One Meta platform on loopback: OAuth (GraphOAuth), reading the user, containers,
    posts, publishing and its quota. A subclass adds its container creation route and the
    hooks below."""

    HOSTS: tuple[str, ...] = ()
    USER: type = object  # the platform's user dataclass, made from (id, username, ...)
    DEFAULT_USER: tuple[str, ...] = ()
    MEDIA_TYPES: tuple[str, ...] = ()  # keys of processing_seconds
    DEFAULT_PROCESSING: dict[str, float] = {}
    CAROUSEL_ITEMS = (2, 20)  # children of a carousel, at least and at most
    CONTAINERS_ROUTE = ""  # the path (after /<uid>) of the container and post list
    PUBLISH_ROUTE = ""
    LIMIT_ROUTE = ""
    LIMIT_DEFAULT_FIELDS: tuple[str, ...] = ("quota_usage", "config")
    USER_NODE, CONTAINER_NODE, MEDIA_NODE = "User", "MediaContainer", "Media"

    def __init__(self, client_id: str, client_secret: str, *, users: Iterable[Any] | None,
                 redirect_uris: Iterable[str] | None = None, processing_seconds: dict[str, float] | None = None,
                 publish_quota: int, **server):
        super().__init__(**server)
        users = [self.DEFAULT_USER] if users is None else users
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        self.processing_seconds = {**self.DEFAULT_PROCESSING, **(processing_seconds or {})}
        self.publish_quota = publish_quota
        self.reply_quota = REPLY_QUOTA  # Threads: replies per rolling 24 h, counted apart from posts
        self._ids = itertools.count(18_000_000_000_000_001)  # users, containers, media
        self._users = {user.id: user for user in (u if isinstance(u, self.USER) else self.USER(*u) for u in users)}
        self._consenting = next(iter(self._users), None)
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/oauth/authorize", self._authorize),
            ("POST", VERSION + r"/oauth/access_token", self._exchange_code),
            ("GET", VERSION + r"/access_token", self._long_lived),
            ("GET", VERSION + r"/refresh_access_token", self._refresh),
            ("POST", VERSION + f"/{P}/{self.CONTAINERS_ROUTE}", self._create_container),
            ("GET", VERSION + f"/{P}/{self.CONTAINERS_ROUTE}", self._list_posts),
            ("POST", VERSION + f"/{P}/{self.PUBLISH_ROUTE}", self._publish),
            ("GET", VERSION + f"/{P}/{self.LIMIT_ROUTE}", self._publishing_limit),
            ("GET", VERSION + r"/(?P<object_id>me|[0-9]+)", self._get_object),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, revoke_tokens=self.revoke_tokens, fail_refresh=self.fail_refresh,
            fail_graph=self.fail_graph, force_next_container=self.force_next_container,
            force_container=self.force_container, set_processing_time=self.set_processing_time,
            set_quota=self.set_quota,
        )
        self.views.update(posts=lambda: self.posts, containers=lambda: self.containers, users=lambda: self.users)

    def _reset_state(self) -> None:
        self._tokens: dict[str, Token] = {}
        self._codes: dict[str, Code] = {}
        self._containers: dict[str, Container] = {}
        self._posts: list[Any] = []
        self._forced: list[tuple[str | None, str, str | None]] = []
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every host of the platform here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def users(self) -> list:
        with self.lock:
            return list(self._users.values())

    @property
    def posts(self) -> dict[str, list]:
        """Published posts by user id, oldest first; every user has an entry."""
        with self.lock:
            return {uid: [p for p in self._posts if p.user_id == uid] for uid in self._users}

    @property
    def containers(self) -> dict[str, ContainerView]:
        with self.lock:
            now = self.clock.now()
            return {cid: view(c, now, self._containers) for cid, c in self._containers.items()}

    # --- controls -----------------------------------------------------------------------------

    # add_user, force_next_container and force_container are the platform's: their
    # arguments are named as the platform names things.

    def _add_user(self, user) -> Any:
        with self.lock:
            self._users[user.id] = user
            if self._consenting is None:
                self._consenting = user.id
            return user

    def _force_next(self, media_type: str | None, status: str, message: str | None) -> None:
        with self.lock:
            self._forced.append((media_type.upper() if media_type else None, status, message))

    def _force(self, container_id: str, status: str, message: str | None) -> None:
        with self.lock:
            apply_outcome(self._containers[str(container_id)], status, message, self.clock.now())

    def set_processing_time(self, media_type: str, seconds: float) -> None:
        """How long new containers of `media_type` stay IN_PROGRESS (emulator seconds)."""
        if media_type.upper() not in self.MEDIA_TYPES:
            raise ValueError(f"media_type is one of {self.MEDIA_TYPES}")
        self.processing_seconds[media_type.upper()] = float(seconds)

    def set_quota(self, total: int) -> None:
        """Posts a user may publish in a rolling 24 hours, from now."""
        self.publish_quota = int(total)

    # --- hooks --------------------------------------------------------------------------------

    def _create_container(self, request: Request, uid: str) -> Response:
        raise NotImplementedError

    def _user_fields(self, user) -> dict[str, Callable[[], Any]]:
        raise NotImplementedError

    def _container_fields(self, container: Container, status: str, message: str | None) -> dict[str, Callable]:
        raise NotImplementedError

    def _media_fields(self, post, object_id: str) -> dict[str, Callable[[], Any]]:
        raise NotImplementedError

    def _make_post(self, container: Container, media_id: str, items: list[PostMedia], now: dt.datetime):
        raise NotImplementedError

    def _publish_refusal(self, creation_id: str, container: Container | None, status: str | None,
                         message: str | None) -> GraphError:
        """Why a container cannot be published: None (unknown or another user's), a carousel
        item, or not FINISHED."""
        raise NotImplementedError

    def _carousel_refusal(self, message: str) -> GraphError:
        return self._param_error(message)

    def _child_refused(self, status: str) -> bool:
        """Whether a carousel item in `status` is refused as a child."""
        return status in (EXPIRED, PUBLISHED)

    def _limit_fields(self, usage: int, replies: int = 0) -> dict[str, Callable[[], Any]]:
        window = int(QUOTA_WINDOW.total_seconds())
        return {"quota_usage": lambda: usage,
                "config": lambda: {"quota_total": self.publish_quota, "quota_duration": window}}

    # --- errors ------------------------------------------------------------------------------

    def not_found(self, request: Request) -> Response:
        return GraphError("Unknown path components: " + request.path, code=2500).response

    def _select(self, fields: list[str], available: Mapping[str, Callable[[], Any]], node_type: str) -> dict:
        return select(fields, available, node_type, error_type=self.PARAM_ERROR_TYPE)

    # --- profile and objects ------------------------------------------------------------------

    def _get_object(self, request: Request, object_id: str) -> Response:
        fields = requested_fields(request.params.get("fields"))
        with self.lock:
            token = self._auth(request)
            if object_id in ("me", token.user_id):
                user = self._users[token.user_id]
                return Response.json(200, self._select(fields, self._user_fields(user), self.USER_NODE))
            container = self._containers.get(object_id)
            if container is not None and container.user_id == token.user_id:
                status, message = status_of(container, self.clock.now(), self._containers)
                return Response.json(200, self._select(fields, self._container_fields(container, status, message),
                                                       self.CONTAINER_NODE))
            for post in self._posts:
                if post.user_id == token.user_id and object_id in (post.id, *(m.id for m in post.media)):
                    return Response.json(200, self._select(fields, self._media_fields(post, object_id),
                                                           self.MEDIA_NODE))
        raise unknown_object(object_id)

    # --- containers ---------------------------------------------------------------------------

    def _new_container(self, user_id: str, media_type: str, processing: str, **fields: Any) -> Container:
        """Store a container made now, processed for `processing_seconds[processing]`, ending
        as a `force_next_container` of its type (or of its `processing` kind) said if one
        did. Under the lock."""
        now = self.clock.now()
        container = Container(str(next(self._ids)), user_id, media_type, now,
                              now + dt.timedelta(seconds=self.processing_seconds[processing]), **fields)
        forced = next((f for f in self._forced if f[0] in (None, media_type, processing)), None)
        if forced is not None:
            self._forced.remove(forced)
            apply_outcome(container, forced[1], forced[2], None)
        self._containers[container.id] = container
        return container

    def _carousel_children(self, p: dict, user_id: str) -> tuple[str, ...]:
        """The `children` of a carousel: CAROUSEL_ITEMS carousel items of the user. Under the lock."""
        ids = tuple(i.strip() for i in p.get("children", "").split(",") if i.strip())
        least, most = self.CAROUSEL_ITEMS
        if not least <= len(ids) <= most:
            raise self._carousel_refusal(f"Carousels need at least {least} and at most {most} children; "
                                         f"got {len(ids)}.")
        now = self.clock.now()
        for item_id in ids:
            item = self._containers.get(item_id)
            if item is None or item.user_id != user_id or not item.is_carousel_item \
                    or self._child_refused(status_of(item, now, self._containers)[0]):
                raise self._carousel_refusal(f"Param children contains an invalid carousel item id: {item_id}")
        return ids

    # --- publishing ---------------------------------------------------------------------------

    def _publish(self, request: Request, uid: str) -> Response:
        p = request.params
        with self.lock:
            token = self._auth(request, uid, publishing=True)
            creation_id = p.get("creation_id", "")
            if not creation_id:
                raise self._param_error("The parameter creation_id is required.")
            container = self._containers.get(creation_id)
            if container is None or container.user_id != token.user_id:
                raise self._publish_refusal(creation_id, None, None, None)
            now = self.clock.now()
            status, message = status_of(container, now, self._containers)
            if container.is_carousel_item or status != FINISHED:
                raise self._publish_refusal(creation_id, container, status, message)
            replies = bool(container.params.get("reply_to_id"))
            quota = self.reply_quota if replies else self.publish_quota
            if self._quota_usage(token.user_id, now, replies) >= quota:
                kind = "replies" if replies else "posts"
                raise GraphError(
                    f"You reached maximum number of {kind} that is allowed to be published by Content Publishing API.",
                    code=9, subcode=2207042, is_transient=False, error_user_title="Publishing limit reached",
                    error_user_msg=f"This profile has published {quota} {kind} in 24 hours.")
            post = self._new_post(container, now)
        return Response.json(200, {"id": post.id})

    def _new_post(self, container: Container, now: dt.datetime):
        """The post of a container (a carousel: one post, each item a media id of its own)."""
        media_id = str(next(self._ids))
        items = [self._containers[i] for i in container.children] or (
            [container] if container.media_url else [])
        media_list = []
        for item in items:
            item_id = media_id if item is container else str(next(self._ids))
            item.published_id = item_id
            media_list.append(PostMedia(item_id, "VIDEO" if item.media_type in ("VIDEO", "REELS") else "IMAGE",
                                        item.media_url))
        container.published_id = media_id
        post = self._make_post(container, media_id, media_list, now)
        self._posts.append(post)
        return post

    def _quota_usage(self, user_id: str, now: dt.datetime, replies: bool = False) -> int:
        """Posts (or replies, which Threads counts apart) of the user in the last 24 hours."""
        return sum(1 for p in self._posts if p.user_id == user_id and now - p.published_at < QUOTA_WINDOW
                   and bool(getattr(p, "reply_to_id", None)) == replies)

    def _publishing_limit(self, request: Request, uid: str) -> Response:
        fields = requested_fields(request.params.get("fields"), self.LIMIT_DEFAULT_FIELDS)
        with self.lock:
            token = self._auth(request, uid, publishing=True)
            usage = self._quota_usage(token.user_id, self.clock.now())
            replies = self._quota_usage(token.user_id, self.clock.now(), replies=True)
        return Response.json(200, {"data": [self._select(fields, self._limit_fields(usage, replies),
                                                         "PublishingLimit")]})

    def _listed(self, post) -> bool:
        """Whether the user's post list shows `post` (Threads lists replies apart)."""
        return True

    def _list_posts(self, request: Request, uid: str, keep: Callable[[Any], bool] | None = None) -> Response:
        """The user's posts (those `keep` takes, default `_listed`), newest first, paged."""
        keep = keep or self._listed
        p = request.params
        fields = requested_fields(p.get("fields"))
        try:
            limit = min(max(int(p.get("limit", 25)), 1), 100)
            start = int(p.get("after", "0") or 0)
            since = int(p["since"]) if p.get("since") else None
            until = int(p["until"]) if p.get("until") else None
        except ValueError:
            raise self._param_error("Params limit, after, since and until must be integers") from None
        with self.lock:
            token = self._auth(request, uid)
            posts = [post for post in reversed(self._posts) if post.user_id == token.user_id and keep(post)
                     and (since is None or post.published_at.timestamp() >= since)
                     and (until is None or post.published_at.timestamp() <= until)]
        page = posts[start:start + limit]
        data = [self._select(fields, self._media_fields(post, post.id), self.MEDIA_NODE) for post in page]
        answer: dict[str, Any] = {"data": data}
        if page:
            answer["paging"] = {"cursors": {"before": str(start), "after": str(start + len(page))}}
        return Response.json(200, answer)
