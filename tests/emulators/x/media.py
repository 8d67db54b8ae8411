"""X's media upload as the X emulator keeps it: the one-shot image upload, the chunked
initialize / append / finalize, STATUS with its processing_info, media expiry, and what
a post may attach (tests/emulators/README.md#x)."""
from __future__ import annotations

import base64
import binascii
import datetime as dt
import math
from typing import Any

from ..media import HEAD_BYTES, gif_frames, sniff
from ..wire import Request, Response
from .state import (
    FAILED,
    GIF,
    IMAGE,
    IN_PROGRESS,
    PENDING,
    SUCCEEDED,
    UNSUPPORTED,
    VIDEO,
    Media,
    MediaView,
    invalid_request,
)

MB = 1024 * 1024  # [U] X's "MB" read as MiB, as the Instagram emulator reads Meta's
LIMITS = {IMAGE: 5 * MB, GIF: 15 * MB, VIDEO: 512 * MB}
CHUNK_LIMIT = 5 * MB  # [U] the v1.1 limit; v2 documents none
SEGMENTS = range(1000)
EXPIRES_AFTER = dt.timedelta(seconds=86400)
DEFAULT_PROCESSING = {VIDEO: 10.0, GIF: 2.0}
# The kinds (by the bytes) each category takes.
FITS = {IMAGE: ("jpeg", "png", "webp", "gif"), GIF: ("gif",), VIDEO: ("mp4", "mov")}
STILL_CHECK_AFTER = 5  # check_after_secs of a media kept in progress forever [U]
ALT_TEXT_LIMIT = 1000  # characters of alt text on an image or GIF (X's media metadata)


def processing_info(media: Media, now: dt.datetime) -> dict | None:
    """The processing_info of a finalized video or GIF at `now`: pending for its first
    second, in_progress until its processing time has passed, then succeeded or failed
    (with its error); None for an image (ready at once) or an upload not yet finalized."""
    if not media.processed or media.finalized_at is None:
        return None
    if media.ready_at is not None and now >= media.ready_at:
        if media.error is not None:
            return {"state": FAILED, "error": media.error}
        return {"state": SUCCEEDED, "progress_percent": 100}
    elapsed = (now - media.finalized_at).total_seconds()
    if elapsed < 1:
        return {"state": PENDING, "check_after_secs": 1}
    if media.ready_at is None:
        return {"state": IN_PROGRESS, "check_after_secs": STILL_CHECK_AFTER, "progress_percent": 0}
    total = (media.ready_at - media.finalized_at).total_seconds()
    return {"state": IN_PROGRESS, "check_after_secs": max(1, math.ceil(total - elapsed)),
            "progress_percent": int(100 * elapsed / total)}


def media_view(media: Media, now: dt.datetime) -> MediaView:
    info = processing_info(media, now)
    return MediaView(media.id, media.media_key, media.user_id, media.category, media.kind, media.size,
                     info["state"] if info else None, info.get("error") if info else None, media.created_at,
                     media.expires_at, media.alt_text)


def _bytes_of(request: Request, name: str = "media") -> bytes:
    """A file part, or base64 in a form or JSON field (X takes both)."""
    if name in request.files:
        return request.files[name]
    encoded = request.params.get(name)
    if not encoded:
        raise invalid_request(f"The `{name}` field is required.", **{name: ""})
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise invalid_request(f"The `{name}` field is neither a file nor base64.", **{name: "..."}) from None


def _category(value: Any, media_type: str) -> str:
    """The media_category given, or the one `media_type` implies [U]."""
    if value:
        category = str(value).lower()
        if category not in LIMITS:
            raise invalid_request(f"media_category {value} is not one of tweet_image, tweet_gif, tweet_video.",
                                  media_category=value)
        return category
    if media_type.startswith("video/"):
        return VIDEO
    if media_type == "image/gif":
        return GIF
    if media_type.startswith("image/"):
        return IMAGE
    raise invalid_request(f"media_type {media_type} is not an image or a video.", media_type=media_type)


class XMedia:
    """Media handlers and controls of the X emulator, which holds the state they use:
    `clock`, `lock`, `_media`, `_ids`, `_forced_media`, `processing_seconds`; and
    `_api_auth` (the token, its scope, the endpoint's rate limit)."""

    # --- controls -----------------------------------------------------------------------------

    def force_next_media(self, state: str, error: dict | None = None) -> None:
        """The next video or GIF finalized ends `failed` with `error` (default InvalidMedia,
        "Unsupported video format"), or stays `in_progress` forever."""
        if state not in (FAILED, IN_PROGRESS):
            raise ValueError(f"state is {FAILED} or {IN_PROGRESS}")
        if error is not None and not isinstance(error, dict):
            raise ValueError("error is an object such as {'code': 1, 'name': 'InvalidMedia', 'message': '...'}")
        with self.lock:
            self._forced_media.append((state, error or UNSUPPORTED))

    def set_processing_time(self, category: str, seconds: float) -> None:
        """How long videos or GIFs finalized from now process (emulator seconds)."""
        if category.lower() not in DEFAULT_PROCESSING:
            raise ValueError(f"category is one of {tuple(DEFAULT_PROCESSING)}")
        self.processing_seconds[category.lower()] = float(seconds)

    @property
    def media(self) -> dict[str, MediaView]:
        """Every upload, with its state at the emulator's now."""
        with self.lock:
            now = self.clock.now()
            return {mid: media_view(m, now) for mid, m in self._media.items()}

    # --- handlers -----------------------------------------------------------------------------

    def _upload(self, request: Request) -> Response:
        """The one-shot upload: a still image, judged by its bytes."""
        with self.lock:
            token = self._api_auth(request, "media.write")
        if "command" in request.params:
            raise invalid_request("The command parameter is no longer taken: use /2/media/upload/initialize, "
                                  "/{id}/append and /{id}/finalize.", command=request.params["command"])
        data = _bytes_of(request)
        category = request.params.get("media_category") or IMAGE
        if category.lower() != IMAGE:
            raise invalid_request(f"media_category {category} is uploaded in chunks (initialize, append, finalize); "
                                  "this endpoint takes tweet_image.", media_category=category)
        if len(data) > LIMITS[IMAGE]:
            raise invalid_request(f"The image is {len(data)} bytes; an image may have at most {LIMITS[IMAGE]}.",
                                  media=f"{len(data)} bytes")
        kind = sniff(data[:HEAD_BYTES])
        if kind in FITS[VIDEO]:
            raise invalid_request("A video is uploaded in chunks as tweet_video (initialize, append, finalize).",
                                  media=kind)
        if kind not in FITS[IMAGE]:
            raise invalid_request("Unsupported media type: an image is JPEG, PNG, WEBP or GIF.", media=kind)
        if kind == "gif" and gif_frames(data) != 1:
            raise invalid_request("An animated GIF is uploaded in chunks as tweet_gif (initialize, append, finalize).",
                                  media="gif")
        with self.lock:
            now = self.clock.now()
            media = Media(str(next(self._ids)), token.user_id, IMAGE, f"image/{kind}", len(data), now,
                          now + EXPIRES_AFTER, {0: (len(data), data[:HEAD_BYTES])}, kind, finalized_at=now,
                          ready_at=now)
            self._media[media.id] = media
        return Response.json(200, {"data": self._media_answer(media, now)})

    def _metadata(self, request: Request) -> Response:
        """POST /2/media/metadata: `{"id", "metadata": {"alt_text": {"text"}}}` sets the alt
        text of an upload of the caller's (1,000 characters at most); answered with the
        metadata now associated."""
        with self.lock:
            token = self._api_auth(request, "media.write")
        body = request.json if isinstance(request.json, dict) else {}
        media_id = body.get("id")
        alt = (body.get("metadata") or {}).get("alt_text") if isinstance(body.get("metadata"), dict) else None
        text = alt.get("text") if isinstance(alt, dict) else None
        if not isinstance(media_id, str) or not media_id:
            raise invalid_request("The `id` field is required.", id=media_id or "")
        if not isinstance(text, str):
            raise invalid_request("`metadata.alt_text.text` must be a string.", **{"metadata.alt_text.text": text})
        if len(text) > ALT_TEXT_LIMIT:
            raise invalid_request(f"Alt text may have at most {ALT_TEXT_LIMIT} characters; it has {len(text)}.",
                                  **{"metadata.alt_text.text": f"{len(text)} characters"})
        with self.lock:
            media = self._media.get(media_id)
            if media is None or media.user_id != token.user_id or media.finalized_at is None:
                raise invalid_request(f"Media {media_id} is not an upload of this user.", id=media_id)
            media.alt_text = text
        return Response.json(200, {"data": {"id": media_id, "associated_metadata": {"alt_text": {"text": text}}}})

    def _initialize(self, request: Request) -> Response:
        with self.lock:
            token = self._api_auth(request, "media.write")
        p = request.json if isinstance(request.json, dict) else request.params
        media_type, total = p.get("media_type"), p.get("total_bytes")
        if not isinstance(media_type, str) or not media_type:
            raise invalid_request("The `media_type` field is required.", media_type=media_type or "")
        try:
            total = int(total) if not isinstance(total, bool) else None
        except (TypeError, ValueError):
            total = None
        if total is None or total < 1:
            raise invalid_request("`total_bytes` must be a positive number of bytes.", total_bytes=p.get("total_bytes"))
        category = _category(p.get("media_category"), media_type)
        if total > LIMITS[category]:
            raise invalid_request(f"total_bytes {total} is over the {LIMITS[category]} bytes a {category} may have.",
                                  total_bytes=total)
        with self.lock:
            now = self.clock.now()
            media = Media(str(next(self._ids)), token.user_id, category, media_type, total, now, now + EXPIRES_AFTER)
            self._media[media.id] = media
        return Response.json(200, {"data": {"id": media.id, "media_key": media.media_key,
                                            "expires_after_secs": int(EXPIRES_AFTER.total_seconds())}})

    def _append(self, request: Request, media_id: str) -> Response:
        with self.lock:
            token = self._api_auth(request, "media.write")
            self._uploading(media_id, token.user_id)
        index = request.params.get("segment_index", "")
        if not index.isdigit() or int(index) not in SEGMENTS:
            raise invalid_request("`segment_index` must be a number from 0 to 999.", segment_index=index)
        chunk = _bytes_of(request)
        if len(chunk) > CHUNK_LIMIT:
            raise invalid_request(f"A chunk may have at most {CHUNK_LIMIT} bytes; this one has {len(chunk)}.",
                                  media=f"{len(chunk)} bytes")
        with self.lock:
            media = self._uploading(media_id, token.user_id)
            media.segments[int(index)] = (len(chunk), chunk[:HEAD_BYTES])  # a segment sent again replaces it [U]
        return Response.json(200, {"data": {"expires_at": int(media.expires_at.timestamp())}})

    def _finalize(self, request: Request, media_id: str) -> Response:
        with self.lock:
            token = self._api_auth(request, "media.write")
            media = self._uploading(media_id, token.user_id)
            if media.size != media.total_bytes:
                raise invalid_request(f"File size mismatch: {media.size} bytes were appended, total_bytes is "
                                      f"{media.total_bytes}.", media_id=media_id)
            kind = sniff(media.segments[0][1]) if 0 in media.segments else None
            if media.category == IMAGE and kind not in FITS[IMAGE]:
                raise invalid_request("Unsupported media type: an image is JPEG, PNG, WEBP or GIF.", media_id=media_id)
            now = self.clock.now()
            media.kind, media.finalized_at, media.expires_at = kind, now, now + EXPIRES_AFTER
            media.ready_at = now + dt.timedelta(seconds=self.processing_seconds.get(media.category, 0.0))
            if media.processed:
                media.error = None if kind in FITS[media.category] else UNSUPPORTED
                if self._forced_media:
                    state, error = self._forced_media.pop(0)
                    media.error = error if state == FAILED else None
                    media.ready_at = media.ready_at if state == FAILED else None
            answer = self._media_answer(media, now)
        return Response.json(200, {"data": answer})

    def _status(self, request: Request) -> Response:
        p = request.params
        with self.lock:
            token = self._api_auth(request, "media.write")
            if p.get("command") != "STATUS":
                raise invalid_request("command must be STATUS.", command=p.get("command", ""))
            media = self._own(p.get("media_id", ""), token.user_id)
            now = self.clock.now()
            if media.finalized_at is None:
                raise invalid_request(f"Media {media.id} has not been finalized.", media_id=media.id)
            if now >= media.expires_at:
                raise invalid_request(f"Media {media.id} has expired.", media_id=media.id)
            info = processing_info(media, now)
        data = {"id": media.id, "media_key": media.media_key}
        return Response.json(200, {"data": {**data, "processing_info": info} if info else data})

    # --- helpers ------------------------------------------------------------------------------

    def _media_answer(self, media: Media, now: dt.datetime) -> dict:
        answer = {"id": media.id, "media_key": media.media_key, "size": media.size,
                  "expires_after_secs": int((media.expires_at - now).total_seconds())}
        info = processing_info(media, now)
        return {**answer, "processing_info": info} if info else answer

    def _own(self, media_id: str, user_id: str) -> Media:
        """The user's upload `media_id`, else 400 [U]. Under the lock."""
        media = self._media.get(media_id)
        if media is None or media.user_id != user_id:
            raise invalid_request(f"Media {media_id or '(none)'} was not uploaded by this user.", media_id=media_id)
        return media

    def _uploading(self, media_id: str, user_id: str) -> Media:
        """The user's upload still taking chunks: initialized, not finalized, not expired."""
        media = self._own(media_id, user_id)
        if media.finalized_at is not None:
            raise invalid_request(f"Media {media_id} has already been finalized.", media_id=media_id)
        if self.clock.now() >= media.expires_at:
            raise invalid_request(f"Media {media_id} has expired.", media_id=media_id)
        return media

    def _attachable(self, media_ids: list[str], user_id: str) -> None:
        """A post's media: at most 4 of the user's, none expired, each processed, and a video or
        GIF alone. Under the lock."""
        if len(media_ids) > 4:
            raise invalid_request("Your Tweet may have a maximum of 4 items in media.media_ids.",
                                  media_ids=",".join(media_ids))
        if len(set(media_ids)) != len(media_ids):
            raise invalid_request("media.media_ids lists the same media twice.", media_ids=",".join(media_ids))
        now = self.clock.now()
        found = []
        for media_id in media_ids:
            media = self._media.get(media_id)
            if media is None or media.user_id != user_id:
                raise invalid_request(f"Your media IDs are invalid: {media_id} is not media this user uploaded.",
                                      media_ids=media_id)
            if now >= media.expires_at:
                raise invalid_request(f"Your media IDs are invalid: media {media_id} has expired.", media_ids=media_id)
            info = processing_info(media, now)
            if media.finalized_at is None or (info is not None and info["state"] != SUCCEEDED):
                state = info["state"] if info else "not finalized"
                raise invalid_request(f"Your media IDs are invalid: media {media_id} is not ready ({state}).",
                                      media_ids=media_id)
            found.append(media)
        if len(found) > 1 and any(m.category != IMAGE for m in found):
            raise invalid_request("A Tweet may carry 1 video or 1 animated GIF alone, or up to 4 images.",
                                  media_ids=",".join(media_ids))
