"""The X emulator: X API v2's OAuth 2.0 with PKCE, media upload and posts on loopback, on
the emulator's clock (tests/emulators/README.md#x has its behaviour and the choices it
makes).

One server answers x.com, twitter.com, api.x.com and api.twitter.com;
FANOUT_PLATFORM_HOSTS sends them all to it (`hosts_setting`). API errors are
problem+json; every API answer carries the x-rate-limit headers of its endpoint and user.
OAuth is in oauth.py, media in media.py, the records and error bodies in state.py.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import math
import re
from collections.abc import Iterable
from typing import Any

from ..base import EmulatorServer, Rule
from ..clock import as_utc
from ..replies import reply_chain
from ..text import links
from ..wire import Request, Response
from .media import DEFAULT_PROCESSING, XMedia
from .oauth import SCOPES, XOAuth
from .state import (
    PROBLEM,
    Media,
    MediaView,
    Post,
    Problem,
    Token,
    XUser,
    forbidden,
    invalid_request,
    problem_body,
    problem_response,
    too_many_requests,
)
from .text import too_long

HOSTS = ("x.com", "twitter.com", "api.x.com", "api.twitter.com")
TOO_LONG = ("Your Tweet text is too long. For more information on how Twitter determines text length see "
            "https://github.com/twitter/twitter-text.")
DUPLICATE = "You are not allowed to create a Tweet with duplicate content."
REPLY_GONE = "You attempted to reply to a Tweet that is deleted or not visible to you."
REPLY_SETTINGS = ("following", "mentionedUsers", "subscribers", "verified")
DUPLICATE_WINDOW = dt.timedelta(hours=24)  # [U]
QUARTER, DAY = dt.timedelta(minutes=15), dt.timedelta(hours=24)
# Rate-limited endpoints: (method, path, name, calls per user per 15 minutes). POST /2/tweets
# counts posts against `user_tweet_limit`; the others count calls.
ENDPOINTS = (
    ("POST", r"/2/tweets", "tweets", None),
    ("GET", r"/2/users/me", "users_me", 75),
    ("GET", r"/2/users/[0-9]+/tweets", "user_tweets", 900),  # [U] X's figure for the timeline
    ("POST", r"/2/media/upload", "media_upload", 500),
    ("GET", r"/2/media/upload", "media_status", 1000),
    ("POST", r"/2/media/upload/initialize", "media_initialize", 1875),
    ("POST", r"/2/media/upload/[0-9]+/append", "media_append", 1875),
    ("POST", r"/2/media/upload/[0-9]+/finalize", "media_finalize", 1875),
    ("POST", r"/2/media/metadata", "media_metadata", 500),  # [U] the one-shot upload's figure
)
_TCO_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def tco(url: str) -> str:
    """The t.co link X stores for `url`: 10 characters, the same for the same URL."""
    number = int.from_bytes(hashlib.sha256(url.encode("utf-8")).digest(), "big")
    slug = ""
    for _ in range(10):
        number, digit = divmod(number, len(_TCO_ALPHABET))
        slug += _TCO_ALPHABET[digit]
    return "https://t.co/" + slug


def shorten(text: str) -> str:
    """`text` with every http(s) link made a t.co link (bare domains stay)."""
    out, at = [], 0
    for url in links(text):
        start = text.find(url, at)
        if start < 0 or not url.lower().startswith(("http://", "https://")):
            continue
        out += [text[at:start], tco(url)]
        at = start + len(url)
    return "".join(out) + text[at:]


def window(times: Iterable[dt.datetime], limit: int, span: dt.timedelta, now: dt.datetime) -> tuple[int, int, int]:
    """(limit, remaining, reset) of a rolling window holding `times`: reset (unix seconds) is
    when the oldest leaves it, or a whole window from now when it is empty."""
    inside = [t for t in times if now - t < span]
    reset = min(inside) + span if inside else now + span
    return limit, max(0, limit - len(inside)), math.ceil(reset.timestamp())


def headers(prefix: str, limit: int, remaining: int, reset: int) -> dict[str, str]:
    return {f"{prefix}-limit": str(limit), f"{prefix}-remaining": str(remaining), f"{prefix}-reset": str(reset)}


def x_time(instant: dt.datetime) -> str:
    """X's timestamps: 2026-11-22T10:00:00.000Z."""
    return as_utc(instant).strftime("%Y-%m-%dT%H:%M:%S.") + f"{as_utc(instant).microsecond // 1000:03d}Z"


class XEmulator(XOAuth, XMedia, EmulatorServer):
    name = "x"
    HOSTS, SCOPES = HOSTS, SCOPES
    DEFAULT_USER = XUser("1600000000000000001", "emu_x", "Emu X")

    def __init__(self, client_id: str = "x-app-id", client_secret: str = "x-app-secret", *,
                 users: Iterable[XUser | tuple[str, ...]] | None = None,
                 redirect_uris: Iterable[str] | None = None,
                 processing_seconds: dict[str, float] | None = None,
                 user_tweet_limit: int = 100, app_tweet_limit: int = 10_000, user_daily_tweet_limit: int = 10_000,
                 **server):
        super().__init__(**server)
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uris = set(redirect_uris) if redirect_uris is not None else None
        self.processing_seconds = dict(DEFAULT_PROCESSING)
        for category, seconds in (processing_seconds or {}).items():
            self.set_processing_time(category, seconds)
        self.user_tweet_limit, self.app_tweet_limit = user_tweet_limit, app_tweet_limit
        self.user_daily_tweet_limit = user_daily_tweet_limit
        self._ids = itertools.count(1_870_000_000_000_000_001)  # users, media, posts
        users = [self.DEFAULT_USER] if users is None else users
        self._users = {u.id: u for u in (u if isinstance(u, XUser) else XUser(*u) for u in users)}
        self._consenting = next(iter(self._users), None)
        self._endpoints = [(method, re.compile(path), name, limit) for method, path, name, limit in ENDPOINTS]
        self._reset_state()
        for method, pattern, handler in (
            ("GET", r"/i/oauth2/authorize", self._authorize),
            ("GET", r"/2/oauth2/authorize", self._authorize),
            ("POST", r"/2/oauth2/token", self._token),
            ("POST", r"/2/oauth2/revoke", self._revoke_endpoint),
            ("GET", r"/2/users/me", self._me),
            ("GET", r"/2/users/(?P<user_id>[0-9]+)/tweets", self._user_tweets),
            ("POST", r"/2/tweets", self._create_tweet),
            ("POST", r"/2/media/upload", self._upload),
            ("GET", r"/2/media/upload", self._status),
            ("POST", r"/2/media/upload/initialize", self._initialize),
            ("POST", r"/2/media/upload/(?P<media_id>[0-9]+)/append", self._append),
            ("POST", r"/2/media/upload/(?P<media_id>[0-9]+)/finalize", self._finalize),
            ("POST", r"/2/media/metadata", self._metadata),
        ):
            self.route(method, pattern, handler)
        self.controls.update(
            add_user=self.add_user, consent_as=self.consent_as, deny_consent=self.deny_consent,
            issue_token=self.issue_token, revoke_tokens=self.revoke_tokens, fail_problem=self.fail_problem,
            set_limits=self.set_limits, force_next_media=self.force_next_media,
            set_processing_time=self.set_processing_time,
        )
        self.views.update(posts=lambda: self.posts, media=lambda: self.media, users=lambda: self.users)

    def _reset_state(self) -> None:
        self._tokens: dict[str, Token] = {}
        self._codes: dict = {}
        self._families = itertools.count(1)
        self._media: dict[str, Media] = {}
        self._posts: list[Post] = []
        self._hits: dict[tuple[str, str], list[dt.datetime]] = {}  # (endpoint, user id): calls counted
        self._forced_media: list[tuple[str, dict]] = []
        self._deny = False

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every X host here."""
        return ",".join(f"{host}={self.base_url}" for host in self.HOSTS)

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def users(self) -> list[XUser]:
        with self.lock:
            return list(self._users.values())

    @property
    def posts(self) -> dict[str, list[Post]]:
        """Posts by user id, oldest first; every user has an entry."""
        with self.lock:
            return {uid: [p for p in self._posts if p.user_id == uid] for uid in self._users}

    # --- controls -----------------------------------------------------------------------------

    def add_user(self, username: str, user_id: str | None = None, name: str | None = None) -> XUser:
        """Another user (an id is made up if none is given; the name defaults to the username)."""
        user = XUser(str(user_id or next(self._ids)), username, name or "")
        with self.lock:
            self._users[user.id] = user
            if self._consenting is None:
                self._consenting = user.id
        return user

    def fail_problem(self, method: str | None, path: str, status: int, title: str, detail: str,
                     type: str = "about:blank", times: int | None = 1, **extra: Any) -> Rule:
        """The next matching calls answer that problem+json, without effect."""
        return self.fail(method, path, status, problem_body(status, title, detail, type, **extra), times=times,
                         headers={"Content-Type": PROBLEM})

    def set_limits(self, user_tweet_limit: int | None = None, app_tweet_limit: int | None = None,
                   user_daily_tweet_limit: int | None = None) -> None:
        """Posts a user may make in 15 minutes, the app in 24 hours, a user in 24 hours; from now."""
        if user_tweet_limit is not None:
            self.user_tweet_limit = int(user_tweet_limit)
        if app_tweet_limit is not None:
            self.app_tweet_limit = int(app_tweet_limit)
        if user_daily_tweet_limit is not None:
            self.user_daily_tweet_limit = int(user_daily_tweet_limit)

    # --- serving: errors and rate-limit headers -------------------------------------------------

    def not_found(self, request: Request) -> Response:
        return problem_response(404, "Not Found Error", f"No route for {request.method} {request.path}.")

    def _answer(self, request: Request) -> Response | None:
        """Every API answer gets its endpoint's rate-limit headers (those an answer set win)."""
        response = super()._answer(request)
        if response is None or not request.path.startswith("/2/") or request.path.startswith("/2/oauth2/"):
            return response
        with self.lock:
            computed = self._rate_headers(request.method, request.path, self._token_user(request))
        return Response(response.status, response.body, {**computed, **response.headers})

    def _endpoint(self, method: str, path: str) -> tuple[str, int] | None:
        for m, pattern, name, limit in self._endpoints:
            if m == method and pattern.fullmatch(path):
                return name, limit if limit is not None else self.user_tweet_limit
        return None

    def _rate_headers(self, method: str, path: str, user_id: str | None) -> dict[str, str]:
        """The x-rate-limit headers (and POST /2/tweets' 24-hour ones) as they stand. Under the lock."""
        endpoint = self._endpoint(method, path)
        if endpoint is None:
            return {}
        name, limit = endpoint
        now = self.clock.now()
        if name != "tweets":
            return headers("x-rate-limit", *window(self._hits.get((name, user_id), ()), limit, QUARTER, now))
        mine = [p.created_at for p in self._posts if p.user_id == user_id]
        return {**headers("x-rate-limit", *window(mine, limit, QUARTER, now)),
                **headers("x-user-limit-24hour", *window(mine, self.user_daily_tweet_limit, DAY, now)),
                **headers("x-app-limit-24hour", *window((p.created_at for p in self._posts), self.app_tweet_limit,
                                                        DAY, now))}

    def _api_auth(self, request: Request, *scopes: str) -> Token:
        """The call's token (see XOAuth._auth), then the endpoint's limit of calls per user in
        15 minutes: past it 429, else the call counts. Under the lock."""
        token = self._auth(request, *scopes)
        endpoint, limit = self._endpoint(request.method, request.path)
        now = self.clock.now()
        hits = self._hits.setdefault((endpoint, token.user_id), [])
        hits[:] = [t for t in hits if now - t < QUARTER]
        if len(hits) >= limit:
            raise too_many_requests(headers("x-rate-limit", *window(hits, limit, QUARTER, now)))
        hits.append(now)
        return token

    def _check_post_limits(self, user_id: str, now: dt.datetime) -> None:
        """100 posts a user in 15 minutes, and the 24-hour caps of the user and the app: past
        one, 429 whose x-rate-limit headers tell that limit. Under the lock."""
        mine = [p.created_at for p in self._posts if p.user_id == user_id]
        every = [p.created_at for p in self._posts]
        for times, limit, span in ((mine, self.user_tweet_limit, QUARTER), (mine, self.user_daily_tweet_limit, DAY),
                                   (every, self.app_tweet_limit, DAY)):
            limit, remaining, reset = window(times, limit, span, now)
            if remaining == 0:
                raise too_many_requests(headers("x-rate-limit", limit, remaining, reset))

    # --- users --------------------------------------------------------------------------------

    def _me(self, request: Request) -> Response:
        with self.lock:
            user = self._users[self._api_auth(request, "users.read").user_id]
        return Response.json(200, {"data": {"id": user.id, "name": user.name, "username": user.username}})

    def _user_tweets(self, request: Request, user_id: str) -> Response:
        p = request.params
        fields = set(filter(None, p.get("tweet.fields", "").split(",")))
        with self.lock:
            self._api_auth(request, "tweet.read", "users.read")
            if user_id not in self._users:
                return Response.json(200, {"errors": [{
                    "value": user_id, "detail": f"Could not find user with id: [{user_id}].", "title": "Not Found Error",
                    "resource_type": "user", "parameter": "id", "resource_id": user_id,
                    "type": "https://api.twitter.com/2/problems/resource-not-found"}]})
            posts = [post for post in reversed(self._posts) if post.user_id == user_id]
        size, start = p.get("max_results", "10"), p.get("pagination_token", "0")
        if not size.isdigit() or not 5 <= int(size) <= 100:
            raise invalid_request(f"The `max_results` query parameter value [{size}] is not between 5 and 100",
                                  max_results=size)
        if not start.isdigit():
            raise invalid_request(f"The `pagination_token` query parameter value [{start}] is not valid",
                                  pagination_token=start)
        page = posts[int(start):int(start) + int(size)]
        if not page:
            return Response.json(200, {"meta": {"result_count": 0}})
        meta = {"result_count": len(page), "newest_id": page[0].id, "oldest_id": page[-1].id}
        if int(start) + len(page) < len(posts):
            meta["next_token"] = str(int(start) + len(page))
        return Response.json(200, {"data": [self._tweet(post, fields) for post in page], "meta": meta})

    def replies_to(self, post_id: str) -> list[Post]:
        """The posts replying to `post_id`, oldest first."""
        with self.lock:
            return [p for p in self._posts if p.in_reply_to == post_id]

    def chain(self, post_id: str) -> list[Post]:
        """`post_id` and the posts it replies to, up to the first of its conversation, first first."""
        with self.lock:
            return reply_chain(self._posts, post_id, lambda post: post.in_reply_to)

    def _tweet(self, post: Post, fields: set[str]) -> dict:
        tweet = {"id": post.id, "text": post.text, "edit_history_tweet_ids": [post.id]}
        if "referenced_tweets" in fields and (post.in_reply_to or post.quote_tweet_id):
            tweet["referenced_tweets"] = (
                ([{"type": "replied_to", "id": post.in_reply_to}] if post.in_reply_to else [])
                + ([{"type": "quoted", "id": post.quote_tweet_id}] if post.quote_tweet_id else []))
        if "conversation_id" in fields:
            tweet["conversation_id"] = post.conversation_id
        if "in_reply_to_user_id" in fields and post.in_reply_to:
            tweet["in_reply_to_user_id"] = self._by_id(post.in_reply_to).user_id
        if "reply_settings" in fields:
            tweet["reply_settings"] = post.reply_settings or "everyone"
        if "created_at" in fields:
            tweet["created_at"] = x_time(post.created_at)
        if "author_id" in fields:
            tweet["author_id"] = post.user_id
        if "attachments" in fields and post.media_ids:
            tweet["attachments"] = {"media_keys": [self._media[m].media_key for m in post.media_ids]}
        return tweet

    # --- posts ----------------------------------------------------------------------------------

    def _by_id(self, post_id: str) -> Post | None:
        """Any user's post. Under the lock."""
        return next((p for p in self._posts if p.id == post_id), None)

    def _create_tweet(self, request: Request) -> Response:
        with self.lock:
            token = self._auth(request, "tweet.write")
        text, media_ids, reply_to, quoted, settings = _tweet_request(request.json)
        if too_long(text):
            raise invalid_request(TOO_LONG, text=text)
        if not text.strip() and not media_ids:
            raise invalid_request("A Tweet needs text or media: `text` is empty and no media is attached.", text=text)
        with self.lock:
            self._attachable(media_ids, token.user_id)
            parent = self._by_id(reply_to) if reply_to else None
            if reply_to and parent is None:
                raise forbidden(REPLY_GONE)
            if quoted and self._by_id(quoted) is None:
                raise invalid_request(f"The `quote_tweet_id` query parameter value [{quoted}] does not name a "
                                      "Tweet you can see.", quote_tweet_id=quoted)  # [U] X's wording
            now, stored = self.clock.now(), shorten(text)
            if stored.strip() and any(p.user_id == token.user_id and p.text == stored
                                      and now - p.created_at < DUPLICATE_WINDOW for p in self._posts):
                raise forbidden(DUPLICATE)
            self._check_post_limits(token.user_id, now)
            post_id = str(next(self._ids))
            post = Post(post_id, token.user_id, stored, text, tuple(media_ids), now, in_reply_to=reply_to,
                        quote_tweet_id=quoted, reply_settings=settings,
                        conversation_id=parent.conversation_id if parent else post_id)
            self._posts.append(post)
        return Response.json(201, {"data": {"id": post.id, "text": post.text, "edit_history_tweet_ids": [post.id]}})


def _tweet_request(body: Any) -> tuple[str, list[str], str | None, str | None, str | None]:
    """(text, media ids, the post replied to, the post quoted, reply_settings) of a POST
    /2/tweets body; other fields are taken and ignored."""
    if not isinstance(body, dict):
        raise invalid_request("The request body must be a JSON object (Content-Type: application/json).")
    text = body.get("text", "")
    if not isinstance(text, str):
        raise invalid_request("`text` must be a string.", text=text)
    reply = body.get("reply")
    reply_to = reply.get("in_reply_to_tweet_id") if isinstance(reply, dict) else None
    if reply is not None and not (isinstance(reply_to, str) and reply_to.isdigit()):
        raise invalid_request("`reply.in_reply_to_tweet_id` must be the id of a Tweet.", in_reply_to_tweet_id=reply_to)
    quoted = body.get("quote_tweet_id")
    if quoted is not None and not (isinstance(quoted, str) and quoted.isdigit()):
        raise invalid_request("`quote_tweet_id` must be the id of a Tweet.", quote_tweet_id=quoted)
    settings = body.get("reply_settings")
    if settings is not None and settings not in REPLY_SETTINGS:
        raise invalid_request(f"`reply_settings` must be one of [{', '.join(REPLY_SETTINGS)}].",
                              reply_settings=settings)
    media = body.get("media")
    if media is None:
        return text, [], reply_to, quoted, settings
    ids = media.get("media_ids") if isinstance(media, dict) else None
    if not isinstance(ids, list) or not ids:
        raise invalid_request("`media.media_ids` must list 1 to 4 media ids (a maximum of 4 items).",
                              media_ids=ids)
    if not all(isinstance(i, str) and i.isdigit() for i in ids):
        raise invalid_request("`media.media_ids` are strings of digits.", media_ids=ids)
    return text, ids, reply_to, quoted, settings


__all__ = [
    "DUPLICATE",
    "HOSTS",
    "SCOPES",
    "TOO_LONG",
    "MediaView",
    "Post",
    "Problem",
    "XEmulator",
    "XUser",
    "shorten",
    "tco",
]
