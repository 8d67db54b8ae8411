"""What a Page publishes through the emulator, but for videos (videos.py): feed posts with
a message, a link or attached photos, photos (published, or unpublished to be attached),
comments, and reading them back; the checks every Page call passes (the Page token, its
permissions and tasks, the Page's limits) (tests/emulators/README.md#facebook)."""
from __future__ import annotations

import json
import re
from typing import Any, Callable
from urllib.parse import urlsplit

from .. import media
from ..graph import GraphError, graph_time, requested_fields, select, unknown_object
from ..wire import Request, Response
from .state import (
    BLOCKED, COMMENT_SCOPE, PUBLISH_SCOPES, THROTTLED, Comment, PageToken, Photo, Post, param_error, permission_error,
)

MESSAGE_LIMIT = 63206  # code points
COMMENT_LIMIT = 8000
PHOTO_LIMIT = 4 * 1024 * 1024  # "smaller than 4 MB", read as MiB
PHOTO_KINDS = ("jpeg", "png", "gif")  # of those Facebook takes, the ones the emulator tells from their bytes
READ_SCOPES = ("pages_read_engagement",)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_URL = re.compile(r"https?://[^\s/$.?#][^\s]*", re.IGNORECASE)
_ATTACHED = re.compile(r"attached_media\[(\d+)\]")


def loopback(url: str) -> bool:
    """Whether the emulator may fetch `url`: it fetches from loopback only."""
    try:
        return (urlsplit(url).hostname or "") in LOOPBACK
    except ValueError:
        return False


class FacebookPublishing:
    """The Page's calls, on an emulator holding `lock`, `clock`, `_ids`, `_pages`,
    `_users`, `_posts`, `_photos`, `_videos`, `_comments`, `_limited` (a Page's limit:
    a code of THROTTLED, or 368) and `message_limit`."""

    # --- controls -------------------------------------------------------------------------

    def exhaust(self, page: str, code: int = 32) -> None:
        """The Page's publishing calls answer that request limit (4, 17, 32, 613, 80001) until `unthrottle`."""
        if int(code) not in THROTTLED:
            raise ValueError(f"code is one of {sorted(THROTTLED)}")
        with self.lock:
            self._limited[str(page)] = int(code)

    def block(self, page: str) -> None:
        """The Page's publishing calls answer 368/1390008 (going too fast) until `unthrottle`."""
        with self.lock:
            self._limited[str(page)] = 368

    def unthrottle(self, page: str) -> None:
        with self.lock:
            self._limited.pop(str(page), None)

    # --- the checks of a Page's calls ----------------------------------------------------------

    def _page_access(self, request: Request, page_id: str, *, scopes: tuple[str, ...] = PUBLISH_SCOPES,
                     task: str = "CREATE_CONTENT", creating: bool = True, refusal: GraphError | None = None):
        """The call's token, if it may do this on the Page: a Page token of it (a read may
        come with the token of a user who manages it), `scopes` granted, the user's `task`
        on the Page; a creating call, within the Page's limits. Under the lock."""
        token = self._token(request)
        if page_id not in self._pages:
            raise unknown_object(page_id, request.method.lower())
        if not isinstance(token, PageToken):
            if creating or page_id not in self._users[token.user_id].pages:
                raise permission_error()
        elif token.page_id != page_id:
            raise unknown_object(page_id, request.method.lower())
        if not all(scope in token.scopes for scope in scopes):
            raise refusal or permission_error()
        if task not in self._users[token.user_id].pages.get(page_id, ()):
            raise permission_error("(#200) The user does not have sufficient administrative permission for this "
                                   "action on this Page")
        limited = self._limited.get(page_id) if creating else None
        if limited == 368:
            raise GraphError(BLOCKED, code=368, subcode=1390008, error_user_title="You're Temporarily Blocked",
                             error_user_msg=BLOCKED)
        if limited is not None:
            raise GraphError(THROTTLED[limited], code=limited, is_transient=True)
        return token

    def _read_access(self, request: Request, page_id: str):
        return self._page_access(request, page_id, scopes=READ_SCOPES, task="ANALYZE", creating=False,
                                 refusal=GraphError("(#10) This endpoint requires the 'pages_read_engagement' "
                                                    "permission", code=10))

    # --- feed posts ---------------------------------------------------------------------------

    def _create_post(self, request: Request, page_id: str) -> Response:
        p = request.params
        with self.lock:
            self._page_access(request, page_id)
            message, link = p.get("message", ""), p.get("link") or None
            attached = self._attached_media(request)
            if len(message) > self.message_limit:
                raise param_error(f"(#100) Param message must be at most {self.message_limit} characters long")
            if link is not None and not _URL.fullmatch(link):
                raise param_error("(#100) Param link must be a valid URL")
            if p.get("published", "true").lower() == "false":
                raise param_error("(#100) Unpublished Page posts are not offered here")  # [U] not emulated
            if not (message or link or attached):
                raise param_error("(#100) Param message, link or attached_media must be set")
            photos = [self._attachable(page_id, index, photo_id) for index, photo_id in enumerate(attached)]
            if len(photos) != len(set(attached)):
                raise param_error("These photos were already posted.", subcode=1366051)
            post = self._new_post(page_id, message, link, tuple(photo.id for photo in photos))
        return Response.json(200, {"id": post.id})

    def _attached_media(self, request: Request) -> list[str]:
        """The photo ids of `attached_media`: a JSON list, or fields attached_media[N] each a
        JSON object (`{"media_fbid": ...}`)."""
        if isinstance(request.json, dict) and isinstance(request.json.get("attached_media"), list):
            items = request.json["attached_media"]
        else:
            p = request.params
            if "attached_media" in p:
                try:
                    items = json.loads(p["attached_media"])
                except ValueError:
                    raise param_error("(#100) Param attached_media must be a JSON array") from None
            else:
                numbered = sorted((int(m.group(1)), v) for k, v in p.items() if (m := _ATTACHED.fullmatch(k)))
                try:
                    items = [json.loads(v) for _, v in numbered]
                except ValueError:
                    raise param_error("(#100) Each attached_media[N] must be a JSON object") from None
        if not isinstance(items, list) or not all(isinstance(i, dict) and i.get("media_fbid") for i in items):
            raise param_error('(#100) attached_media items are {"media_fbid": "<photo id>"}')
        if len(items) > 10:
            raise param_error("(#100) A post may attach at most 10 photos")  # [U] what 1-10 photos means
        return [str(i["media_fbid"]) for i in items]

    def _attachable(self, page_id: str, index: int, photo_id: str) -> Photo:
        photo = self._photos.get(photo_id)
        if photo is None or photo.page_id != page_id:
            raise param_error(f"(#100) Param attached_media[{index}] must be an unpublished photo of this Page")
        if photo.published or photo.post_id is not None:
            raise param_error("These photos were already posted.", subcode=1366051)
        return photo

    def _new_post(self, page_id: str, message: str, link: str | None, photos: tuple[str, ...]) -> Post:
        """A feed post made now, its photos attached to it. Under the lock."""
        number = str(next(self._ids))
        page = self._pages[page_id]
        post = Post(f"{page_id}_{number}", page_id, message, link, photos, self.clock.now(),
                    f"https://www.facebook.com/{page.path}/posts/{number}")
        self._posts.append(post)
        for photo_id in photos:
            self._photos[photo_id].post_id = post.id
        return post

    def _post_fields(self, post: Post) -> dict[str, Callable[[], Any]]:
        return {"id": lambda: post.id, "message": lambda: post.message or None,
                "created_time": lambda: graph_time(post.created_at), "permalink_url": lambda: post.permalink_url,
                "link": lambda: post.link, "attachments": lambda: self._attachments(post),
                "from": lambda: {"id": post.page_id, "name": self._pages[post.page_id].name},
                "is_published": lambda: True}

    def _attachments(self, post: Post) -> dict | None:
        def photo(photo_id: str) -> dict:
            return {"type": "photo", "media_type": "photo", "target": {"id": photo_id}}
        if len(post.photos) == 1:
            return {"data": [photo(post.photos[0])]}
        if post.photos:
            return {"data": [{"type": "album", "media_type": "album",
                              "subattachments": {"data": [photo(p) for p in post.photos]}}]}
        if post.link:
            return {"data": [{"type": "share", "media_type": "link", "url": post.link, "target": {"url": post.link}}]}
        return None

    def _feed(self, request: Request, page_id: str) -> Response:
        """The Page's posts, newest first, paged (`since`, `until` in unix seconds)."""
        with self.lock:
            self._read_access(request, page_id)
            posts = [post for post in reversed(self._posts) if post.page_id == page_id]
        return self._listing(request, posts, lambda post: (self._post_fields(post), "PagePost"),
                             lambda post: post.created_at)

    # --- photos -------------------------------------------------------------------------------

    def _create_photo(self, request: Request, page_id: str) -> Response:
        p = request.params
        with self.lock:
            self._page_access(request, page_id)
        url, source = p.get("url"), request.files.get("source")
        if source is not None:
            kind, size, digest = media.sniff(source[:media.HEAD_BYTES]), len(source), None
        elif url:
            fetched = media.fetch(url, limit=PHOTO_LIMIT) if loopback(url) else media.Fetched(error="not loopback")
            if not fetched.ok:
                raise GraphError("(#324) Missing or invalid image file", code=324)
            kind, size, digest = fetched.kind, fetched.size, fetched.sha256
        else:
            raise GraphError("(#324) Requires upload file", code=324)
        if kind not in PHOTO_KINDS:
            raise GraphError("(#324) Missing or invalid image file", code=324)
        if size > PHOTO_LIMIT:
            raise param_error("Your photos couldn't be uploaded. Photos should be smaller than 4 MB and saved as JPG, "
                              "PNG, GIF, TIFF, HEIF or WebP files.", subcode=1366046)
        published = p.get("published", "true").lower() != "false"
        with self.lock:
            photo = Photo(str(next(self._ids)), page_id, url, digest, p.get("alt_text_custom") or None, published,
                          self.clock.now())
            self._photos[photo.id] = photo
            if not published:
                return Response.json(200, {"id": photo.id})
            post = self._new_post(page_id, p.get("message", ""), None, (photo.id,))
        return Response.json(200, {"id": photo.id, "post_id": post.id})

    def _photo_fields(self, photo: Photo) -> dict[str, Callable[[], Any]]:
        return {"id": lambda: photo.id, "created_time": lambda: graph_time(photo.created_at),
                "alt_text_custom": lambda: photo.alt_text, "page_story_id": lambda: photo.post_id,
                "link": lambda: f"https://www.facebook.com/photo/?fbid={photo.id}",
                "from": lambda: {"id": photo.page_id, "name": self._pages[photo.page_id].name}}

    def _photo_list(self, request: Request, page_id: str) -> Response:
        """The Page's photos (`type=uploaded`), newest first: the published ones [U]."""
        with self.lock:
            self._read_access(request, page_id)
            photos = [photo for photo in reversed(list(self._photos.values()))
                      if photo.page_id == page_id and (photo.published or photo.post_id)]
        return self._listing(request, photos, lambda photo: (self._photo_fields(photo), "Photo"),
                             lambda photo: photo.created_at)

    # --- comments -----------------------------------------------------------------------------

    def _owner(self, object_id: str) -> str | None:
        """The Page a post, photo or video is of. Under the lock."""
        for post in self._posts:
            if post.id == object_id:
                return post.page_id
        found = self._photos.get(object_id) or self._videos.get(object_id)
        return found.page_id if found else None

    def _create_comment(self, request: Request, object_id: str) -> Response:
        p = request.params
        with self.lock:
            page_id = self._owner(object_id)
            if page_id is None:
                self._token(request)
                raise unknown_object(object_id, "post")
            self._page_access(request, page_id, scopes=(COMMENT_SCOPE,), task="MODERATE", refusal=permission_error(
                "(#200) Requires pages_manage_engagement permission to manage the object"))
            message = p.get("message", "")
            if not message and not p.get("attachment_url"):
                raise param_error("(#100) Missing message or attachment")
            if len(message) > COMMENT_LIMIT:
                raise param_error(f"(#100) Param message must be at most {COMMENT_LIMIT} characters long")
            comment = Comment(f"{object_id.rsplit('_', 1)[-1]}_{next(self._ids)}", object_id, page_id, message,
                              self.clock.now())
            self._comments.append(comment)
        return Response.json(200, {"id": comment.id})

    def _comment_fields(self, comment: Comment) -> dict[str, Callable[[], Any]]:
        return {"id": lambda: comment.id, "message": lambda: comment.message,
                "created_time": lambda: graph_time(comment.created_at),
                "from": lambda: {"id": comment.page_id, "name": self._pages[comment.page_id].name}}

    def _comment_list(self, request: Request, object_id: str) -> Response:
        """An object's comments, oldest first (`order=reverse_chronological`: newest first)."""
        with self.lock:
            page_id = self._owner(object_id)
            if page_id is None:
                self._token(request)
                raise unknown_object(object_id)
            self._read_access(request, page_id)
            comments = [c for c in self._comments if c.object_id == object_id]
        if request.params.get("order") == "reverse_chronological":
            comments.reverse()
        return self._listing(request, comments, lambda c: (self._comment_fields(c), "Comment"), None)

    # --- reading ------------------------------------------------------------------------------

    def _listing(self, request: Request, items: list, fields_of, created_at) -> Response:
        """`items` (newest first where `created_at` reads their time) as a Graph list:
        `fields`, `limit` (25, at most 100), the `after` cursor, `since` and `until`."""
        p = request.params
        wanted = requested_fields(p.get("fields"))
        try:
            limit = min(max(int(p.get("limit", 25)), 1), 100)
            start = int(p.get("after") or 0)
            since = int(p["since"]) if p.get("since") else None
            until = int(p["until"]) if p.get("until") else None
        except ValueError:
            raise param_error("(#100) Params limit, after, since and until must be integers") from None
        if created_at is not None:
            items = [i for i in items if (since is None or created_at(i).timestamp() >= since)
                     and (until is None or created_at(i).timestamp() <= until)]
        page = items[start:start + limit]
        data = [select(wanted, *fields_of(item)) for item in page]
        answer: dict[str, Any] = {"data": data}
        if page:
            answer["paging"] = {"cursors": {"before": str(start), "after": str(start + len(page))}}
        return Response.json(200, answer)

    def _get_object(self, request: Request, object_id: str) -> Response:
        """`GET /{id}`: me, a Page, a post, a photo, a video or Reel, a comment."""
        wanted = requested_fields(request.params.get("fields"))
        with self.lock:
            found = self._object_or_page(request, object_id)
            if found is not None:
                return found
            page_id = self._owner(object_id)
            comment = next((c for c in self._comments if c.id == object_id), None)
            if page_id is None and comment is not None:
                page_id = comment.page_id
            if page_id is None:
                self._token(request)
                raise unknown_object(object_id)
            self._read_access(request, page_id)
            if comment is not None:
                return Response.json(200, select(wanted, self._comment_fields(comment), "Comment"))
            post = next((post for post in self._posts if post.id == object_id), None)
            if post is not None:
                return Response.json(200, select(wanted, self._post_fields(post), "PagePost"))
            if object_id in self._photos:
                return Response.json(200, select(wanted, self._photo_fields(self._photos[object_id]), "Photo"))
            # A video or a Reel (videos.py).
            return Response.json(200, select(wanted, self._video_fields(self._videos[object_id]), "Video"))
