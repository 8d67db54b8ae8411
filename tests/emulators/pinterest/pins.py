"""Pinterest's boards and Pins as the emulator keeps them: `GET /v5/boards` (bookmark
pagination), `POST /v5/pins` with PinCreate's checks (digits, lengths, an http(s) link, the
board the user's, a media source: an image fetched by its URL, or a processed video with a
cover), the per-user quota of Pin writes, and the reads back (`GET /v5/pins/{id}`,
`GET /v5/boards/{id}/pins`, newest first) (tests/emulators/README.md#pinterest)."""
from __future__ import annotations

import base64
import binascii
import datetime as dt
import itertools
import re
from typing import Any

from ..media import fetch
from ..wire import Request, Response
from .state import (BOARD_NOT_FOUND, MEDIA_NOT_FOUND, PIN_NOT_FOUND, RATE_LIMITED, SUCCEEDED, Board, Pin,
                    PinterestError, PinterestUser, invalid, platform_time)

DIGITS = re.compile(r"\d+")
LINK = re.compile(r"https?://[^\s]+", re.IGNORECASE)
CAPS = {"title": 100, "description": 800, "link": 2048, "alt_text": 500}  # PinCreate's maxLength [C]
IMAGE_FORMATS = ("jpeg", "png", "gif", "webp")  # [S]
IMAGE_MAX_BYTES = 32 * 1024 * 1024  # [S] "20-32 MB": the larger, Pinterest's to refuse past it
SOURCE_TYPES = ("image_url", "image_base64", "multiple_image_urls", "multiple_image_base64", "video_id", "pin_url")
OFFERED = ("image_url", "video_id")  # what the emulator makes Pins of [U]
PAGE_SIZE = (1, 250, 25)  # least, most, default [C]
RATE_WORDS = ("This request exceeded a rate limit. This can happen if the client exceeds a rate limit or because "
              "of other factors.")
NOT_FETCHED = "Sorry, we could not fetch the image."


def pin_ids():
    return itertools.count(1_090_000_000_000_000_001)


class PinterestPins:
    """Board and Pin handlers, on an emulator holding `lock`, `clock`, `_boards`, `_pins`,
    `_media`, `_pin_writes`, `pin_writes_per_minute`."""

    # --- boards -------------------------------------------------------------------------------

    def _list_boards(self, request: Request) -> Response:
        with self.lock:
            user = self._user(request, "boards:read")
            token = self._tokens[request.bearer()]
            privacy = request.query.get("privacy")
            boards = [b for b in self._boards.values() if b.owner == user.id
                      and (b.privacy != "SECRET" or "boards:read_secret" in token.scopes)
                      and (privacy is None or b.privacy == privacy.upper())]
        return Response.json(200, page_of([self.board_view(b) for b in boards], request))

    def board_view(self, board: Board) -> dict:
        owner = self._users.get(board.owner)
        return {"id": board.id, "name": board.name, "description": "", "owner": {"username": owner.username if owner else ""},
                "privacy": board.privacy, "pin_count": sum(p.board_id == board.id for p in self._pins),
                "created_at": platform_time(board.created_at or self.clock.now()), "collaborator_count": 0,
                "follower_count": 0, "media": {"image_cover_url": None, "pin_thumbnail_urls": []}}

    def _board_pins(self, request: Request, board_id: str) -> Response:
        with self.lock:
            user = self._user(request, "boards:read", any_of=("pins:read", "pins:write"))
            board = self._boards.get(board_id)
            if board is None or board.owner != user.id:
                raise PinterestError(404, BOARD_NOT_FOUND, "Board not found.")
            pins = [self.pin_view(p) for p in reversed(self._pins) if p.board_id == board_id]
        return Response.json(200, page_of(pins, request))

    # --- Pins -----------------------------------------------------------------------------------

    def _get_pin(self, request: Request, pin_id: str) -> Response:
        with self.lock:
            user = self._user(request, any_of=("pins:read", "pins:write"))
            pin = next((p for p in self._pins if p.id == pin_id), None)
            if pin is None or pin.owner != user.id:
                raise PinterestError(404, PIN_NOT_FOUND, "Pin not found.")
            return Response.json(200, self.pin_view(pin))

    def _create_pin(self, request: Request) -> Response:
        body = request.json
        with self.lock:
            user = self._user(request, "pins:write")
            self._count_write(user)
        if not isinstance(body, dict):
            raise invalid("The request body must be a JSON object (PinCreate)")
        board_id = body.get("board_id")
        if board_id is None:
            raise invalid("'board_id' is a required property")
        if not isinstance(board_id, str) or not DIGITS.fullmatch(board_id):
            raise invalid(f"{board_id!r} does not match '^\\d+$' - 'board_id'")
        for name, cap in CAPS.items():
            value = body.get(name)
            if value is not None and not isinstance(value, str):
                raise invalid(f"{value!r} is not of type 'string' - '{name}'")
            if value is not None and len(value) > cap:
                raise invalid(f"{_short(value)} is too long - '{name}'")
        if body.get("link") is not None and not LINK.fullmatch(body["link"]):
            raise invalid(f"{_short(body['link'])} is not a valid URL - 'link'")
        with self.lock:
            board = self._boards.get(board_id)
            if board is None or board.owner != user.id:
                raise PinterestError(404, BOARD_NOT_FOUND, "Board not found.")
            kind, source, cover = self._media_source(body.get("media_source"), user)
        if kind == "image":
            self._fetched_image(source, "media_source.url")
        if cover and "cover_image_url" in cover:
            self._fetched_image(cover["cover_image_url"], "media_source.cover_image_url")
        with self.lock:
            pin = Pin(str(next(self._ids)), board_id, user.id, kind, source, self.clock.now(), body.get("title"),
                      body.get("description"), body.get("link"), body.get("alt_text"), cover,
                      body.get("dominant_color"))
            self._pins.append(pin)
            return Response.json(201, self.pin_view(pin))

    def _count_write(self, user: PinterestUser) -> None:
        """One more Pin write in the user's minute, or 429 (the lock held)."""
        now = self.clock.now()
        writes = [t for t in self._pin_writes.get(user.id, []) if t > now - dt.timedelta(minutes=1)]
        if len(writes) >= self.pin_writes_per_minute:
            raise PinterestError(429, RATE_LIMITED, RATE_WORDS)
        self._pin_writes[user.id] = writes + [now]

    def _media_source(self, source: Any, user: PinterestUser) -> tuple[str, str, dict | None]:
        """(kind, the image URL or the media id, a video's cover) of a valid media source
        (the lock held)."""
        if not isinstance(source, dict):
            raise invalid("'media_source' is a required property")
        kind = source.get("source_type")
        if kind not in SOURCE_TYPES:
            raise invalid(f"{kind!r} is not one of {list(SOURCE_TYPES)} - 'media_source.source_type'")
        if kind not in OFFERED:
            raise invalid(f"{kind!r} is not offered by this emulator - 'media_source.source_type'")
        if kind == "image_url":
            url = source.get("url")
            if not isinstance(url, str) or not url:
                raise invalid("'url' is a required property - 'media_source'")
            return "image", url, None
        media_id = source.get("media_id")
        if not isinstance(media_id, str) or not DIGITS.fullmatch(media_id):
            raise invalid(f"{media_id!r} does not match '^\\d+$' - 'media_source.media_id'")
        media = self._media.get(media_id)
        if media is None or media.owner != user.id:
            raise PinterestError(404, MEDIA_NOT_FOUND, "Media not found.")
        status = self.media_status(media)
        if status != SUCCEEDED:
            raise invalid(f"The video upload {media_id} is {status}, not succeeded - 'media_source.media_id'")
        cover = {k: source[k] for k in ("cover_image_url", "cover_image_key_frame_time", "cover_image_content_type",
                                        "cover_image_data") if source.get(k) is not None}
        if not cover or ("cover_image_content_type" in cover) != ("cover_image_data" in cover):
            raise invalid("'cover_image_url or cover_image_content_type' is a required property - 'media_source'")
        frame = cover.get("cover_image_key_frame_time")
        if frame is not None and (not isinstance(frame, int) or isinstance(frame, bool) or frame < 0):
            raise invalid(f"{frame!r} is not a whole number of seconds - 'media_source.cover_image_key_frame_time'")
        if "cover_image_data" in cover:
            try:
                base64.b64decode(cover["cover_image_data"], validate=True)
            except (binascii.Error, TypeError):
                raise invalid("'cover_image_data' does not match '^[a-zA-Z0-9+/=]+$'") from None
        return "video", media_id, cover

    def _fetched_image(self, url: str, where: str) -> None:
        """Pinterest fetches an image it is given the URL of: it must be an image it takes."""
        fetched = fetch(url, limit=IMAGE_MAX_BYTES)
        if not fetched.ok or fetched.kind not in IMAGE_FORMATS or fetched.size > IMAGE_MAX_BYTES:
            raise invalid(f"{NOT_FETCHED} - '{where}'")

    def pin_view(self, pin: Pin) -> dict:
        owner = self._users.get(pin.owner)
        if pin.media_type == "image":
            media = {"media_type": "image", "images": {"originals": {"url": pin.source, "width": 0, "height": 0}}}
        else:
            upload = self._media.get(pin.source)
            media = {"media_type": "video", "cover_image_url": f"https://i.pinimg.invalid/videos/{pin.id}.jpg",
                     "duration": int((upload.duration or 0) * 1000) if upload else 0, "width": 0, "height": 0}
        return {"id": pin.id, "created_at": platform_time(pin.created_at), "link": pin.link, "title": pin.title,
                "description": pin.description, "dominant_color": pin.dominant_color, "alt_text": pin.alt_text,
                "board_id": pin.board_id, "board_section_id": None,
                "board_owner": {"username": owner.username if owner else ""}, "is_owner": True, "media": media,
                "parent_pin_id": None, "is_standard": True, "has_been_promoted": False, "note": "",
                "creative_type": "VIDEO" if pin.media_type == "video" else "REGULAR", "pin_metrics": None}


def page_of(items: list, request: Request) -> dict:
    """A page of `items` by `page_size` and `bookmark` (an opaque offset here [U])."""
    least, most, default = PAGE_SIZE
    try:
        size = int(request.query.get("page_size", default))
    except ValueError:
        raise invalid(f"{request.query.get('page_size')!r} is not of type 'integer' - 'page_size'") from None
    if not least <= size <= most:
        raise invalid(f"{size} is not between {least} and {most} - 'page_size'")
    start = 0
    if request.query.get("bookmark"):
        try:
            start = int(base64.urlsafe_b64decode(request.query["bookmark"].encode()).decode())
        except (binascii.Error, ValueError, UnicodeDecodeError):
            raise invalid("Invalid bookmark - 'bookmark'") from None
    end = start + size
    more = base64.urlsafe_b64encode(str(end).encode()).decode() if end < len(items) else None
    return {"items": items[start:end], "bookmark": more}


def _short(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:37] + "...")
