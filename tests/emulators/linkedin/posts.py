"""LinkedIn's Posts API as the emulator keeps it: `POST /rest/posts` (201, the new post's
URN in `x-restli-id`), its checks (author, visibility, distribution, the commentary's
3,000 characters, media that must be AVAILABLE and the author's, duplicates, the member's
daily posts), reading a post back (which needs `r_member_social`) and deleting it
(tests/emulators/README.md#linkedin)."""
from __future__ import annotations

import datetime as dt
import itertools
from typing import Any
from urllib.parse import unquote

from ..wire import Request, Response
from .state import AVAILABLE, InputError, Post, RestError
from .text import COMMENTARY_LIMIT, length, shown

VISIBILITIES = ("PUBLIC", "CONNECTIONS", "LOGGED_IN")
FEEDS = ("MAIN_FEED", "NONE")
STATES = ("PUBLISHED", "DRAFT")
DUPLICATE_WINDOW = dt.timedelta(hours=24)  # [U]
MULTI_IMAGE = (2, 20)


class LinkedInPosts:
    """Post handlers, on an emulator holding `lock`, `clock`, `_posts`, `_images`,
    `_videos`, `_ids`, `_post_times`, `daily_posts`."""

    def _create_post(self, request: Request) -> Response:
        body = request.json
        if not isinstance(body, dict):
            raise RestError(400, "The request body must be a JSON object")
        with self.lock:
            member = self._rest(request, "w_member_social")
            if body.get("author") != member.urn:
                raise RestError(403, f"Not enough permissions to access: partnerApiPostsExternal.CREATE."
                                     f"{request.headers.get('LinkedIn-Version')}", "ACCESS_DENIED", 100)
            commentary = body.get("commentary", "")
            if not isinstance(commentary, str):
                raise InputError(400, "/commentary must be a string", "INVALID_VALUE_TYPE", "/commentary")
            if length(commentary) > COMMENTARY_LIMIT:
                raise InputError(400, "com.linkedin.content.common.exception.BadRequestResponseException: "
                                      f"ShareCommentary text length ({length(commentary)} characters) exceeded the "
                                      f"maximum allowed ({COMMENTARY_LIMIT} characters)",
                                 "FIELD_ARRAY_SIZE_TOO_HIGH", "/commentary", maxLength=COMMENTARY_LIMIT)
            _enum(body, "visibility", VISIBILITIES)
            distribution = body.get("distribution")
            if not isinstance(distribution, dict):
                raise InputError(422, "/distribution is required", "FIELD_VALUE_REQUIRED", "/distribution")
            _enum(distribution, "feedDistribution", FEEDS, "/distribution/feedDistribution")
            _enum(body, "lifecycleState", STATES)
            if "isReshareDisabledByAuthor" in body and not isinstance(body["isReshareDisabledByAuthor"], bool):
                raise InputError(422, "/isReshareDisabledByAuthor must be a boolean", "INVALID_VALUE_TYPE",
                                 "/isReshareDisabledByAuthor")
            content = body.get("content")
            media = self._content_media(content, member.urn)
            if not commentary and not content:
                raise InputError(422, "A post needs commentary or content", "FIELD_VALUE_REQUIRED", "/commentary")
            now = self.clock.now()
            for post in reversed(self._posts):
                if post.author == member.urn and post.commentary == commentary and post.content == content \
                        and now - post.created_at < DUPLICATE_WINDOW:
                    raise InputError(422, f"Content is a duplicate of {post.urn}", "DUPLICATE_POST")
            today = now.replace(hour=0, minute=0, second=0, microsecond=0)
            times = self._post_times.setdefault(member.sub, [])
            if len([t for t in times if t >= today]) >= self.daily_posts:
                raise RestError(429, "Resource level throttle DAY limit for calls to this resource is reached.")
            kind = "ugcPost" if isinstance(content, dict) and ("multiImage" in content or any(
                m.startswith("urn:li:video:") for m in media)) else "share"
            post = Post(f"urn:li:{kind}:{next(self._ids)}", member.urn, commentary, shown(commentary), content,
                        body["visibility"], body["lifecycleState"], now, tuple(media))
            self._posts.append(post)
            times.append(now)
        return Response(201, b"", {"x-restli-id": post.urn, "x-linkedin-id": post.urn})

    def _content_media(self, content: Any, owner: str) -> list[str]:
        """The media URNs a post's content names, each the owner's and AVAILABLE (the lock held)."""
        if content is None:
            return []
        if not isinstance(content, dict) or len(content) != 1:
            raise InputError(422, "/content must hold one of media, multiImage, article", "INVALID_VALUE", "/content")
        (kind, value), = content.items()
        if kind == "article":
            if not isinstance(value, dict) or not isinstance(value.get("source"), str) or not isinstance(
                    value.get("title"), str):
                raise InputError(422, "/content/article needs source and title", "FIELD_VALUE_REQUIRED",
                                 "/content/article")
            return []
        if kind == "media":
            items, path = [value], "/content/media"
        elif kind == "multiImage":
            items = value.get("images") if isinstance(value, dict) else None
            path = "/content/multiImage/images"
            if not isinstance(items, list) or not MULTI_IMAGE[0] <= len(items) <= MULTI_IMAGE[1]:
                raise InputError(422, f"{path} must hold {MULTI_IMAGE[0]} to {MULTI_IMAGE[1]} images",
                                 "FIELD_ARRAY_SIZE_TOO_LOW" if isinstance(items, list) and len(items) < 2
                                 else "FIELD_ARRAY_SIZE_TOO_HIGH", path)
        else:
            raise InputError(422, f"/content/{kind} is not a content type this API takes", "INVALID_VALUE", "/content")
        urns = []
        for index, item in enumerate(items):
            urn = item.get("id") if isinstance(item, dict) else None
            where = path if kind == "media" else f"{path}/{index}"
            if not isinstance(urn, str):
                raise InputError(422, f"{where}/id is required", "FIELD_VALUE_REQUIRED", f"{where}/id")
            if kind == "multiImage" and not urn.startswith("urn:li:image:"):
                raise InputError(422, f"{where}/id must be an image", "INVALID_VALUE", f"{where}/id")
            found = self._images.get(urn) if urn.startswith("urn:li:image:") else self._videos.get(urn)
            if found is None or found.owner != owner:
                raise InputError(400, f"Media {urn} does not exist or is not the author's", "INVALID_VALUE",
                                 f"{where}/id")
            status = self.image_status(found) if urn.startswith("urn:li:image:") else self.video_status(found)
            if status != AVAILABLE:
                raise InputError(400, f"Media {urn} is not ready to be posted: its status is {status}",
                                 "INVALID_VALUE", f"{where}/id", mediaStatus=status)
            urns.append(urn)
        return urns

    def _get_post(self, request: Request, urn: str) -> Response:
        urn = unquote(urn)
        with self.lock:
            member = self._rest(request, "r_member_social")
            post = next((p for p in self._posts if p.urn == urn), None)
            if post is None or post.author != member.urn:
                raise RestError(404, f"Post {urn} does not exist")
            return Response.json(200, _view(post))

    def _find_posts(self, request: Request) -> Response:
        p = request.query
        if p.get("q") != "author":
            raise RestError(400, "The finder q=author is the one this API offers")
        try:
            count = int(p.get("count", "10"))
            start = int(p.get("start", "0"))
        except ValueError:
            raise RestError(400, "count and start are whole numbers") from None
        with self.lock:
            member = self._rest(request, "r_member_social")
            if unquote(p.get("author", "")) != member.urn:
                raise RestError(403, "Not enough permissions to access: posts.FINDER-author", "ACCESS_DENIED", 100)
            mine = [post for post in reversed(self._posts) if post.author == member.urn]
        page = mine[start:start + count]
        return Response.json(200, {"elements": [_view(post) for post in page],
                                   "paging": {"start": start, "count": count, "total": len(mine)}})

    def _delete_post(self, request: Request, urn: str) -> Response:
        urn = unquote(urn)
        with self.lock:
            member = self._rest(request, "w_member_social")
            post = next((p for p in self._posts if p.urn == urn), None)
            if post is None or post.author != member.urn:
                raise RestError(404, f"Post {urn} does not exist")
            self._posts.remove(post)
        return Response(204)


def _enum(body: dict, name: str, allowed: tuple[str, ...], path: str | None = None) -> None:
    path = path or f"/{name}"
    value = body.get(name)
    if value is None:
        raise InputError(422, f"{path} is required", "FIELD_VALUE_REQUIRED", path)
    if value not in allowed:
        raise InputError(422, f"{path} {value!r} is not one of {', '.join(allowed)}", "INVALID_ENUM_VALUE", path)


def _view(post: Post) -> dict:
    view = {"id": post.urn, "author": post.author, "commentary": post.commentary, "visibility": post.visibility,
            "lifecycleState": post.lifecycle_state, "createdAt": int(post.created_at.timestamp() * 1000),
            "publishedAt": int(post.created_at.timestamp() * 1000),
            "distribution": {"feedDistribution": "MAIN_FEED", "targetEntities": [],
                             "thirdPartyDistributionChannels": []}}
    if post.content:
        view["content"] = post.content
    return view


def post_ids():
    return itertools.count(7_400_000_000_000_000_001)
