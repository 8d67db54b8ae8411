"""A Mastodon instance's media API as the emulator keeps it: `POST /api/v2/media`
(multipart `file`, `description`; a still image processed at once, 200 with its `url`;
video and GIFs 202 without one, processed for `video_seconds`), `GET /api/v1/media/:id`
(206 while processing, 200 once done, 422 when processing failed, 404 when not the
caller's or attached), `PUT /api/v1/media/:id` (description) (tests/emulators/README.md#mastodon)."""
from __future__ import annotations

import datetime as dt

from ..media import sniff
from ..wire import Request, Response
from .state import NOT_FOUND, Media, error

# What the bytes are -> (MIME type, Mastodon's media type).
KINDS = {"jpeg": ("image/jpeg", "image"), "png": ("image/png", "image"), "webp": ("image/webp", "image"),
         "gif": ("image/gif", "gifv"), "mp4": ("video/mp4", "video"), "mov": ("video/quicktime", "video"),
         "webm": ("video/webm", "video")}
INVALID_FILE = "Validation failed: File content type is invalid, File is invalid"
PROCESSING_FAILED = "Error processing thumbnail for uploaded media"


class MastodonMedia:
    """Media handlers, on an emulator holding `clock`, `lock`, `domain`, the limits
    (`supported_mime_types`, `image_size_limit`, `video_size_limit`, `description_limit`,
    `video_seconds`), `_media`, `_ids`, `_failures`, and its token check `_caller`."""

    def fail_next_media(self, reason: str = PROCESSING_FAILED) -> None:
        """The next media uploaded fails its processing with `reason` (GET media answers 422)."""
        with self.lock:
            self._failures.append(reason)

    def _upload(self, request: Request) -> Response:
        with self.lock:
            account, _ = self._caller(request, "write:media")
            self._limited(account.id, "media")
            data = request.files.get("file")
            if not data:
                raise error(422, INVALID_FILE)
            kind = sniff(data[:64])
            mime, media_type = KINDS.get(kind, (None, None))
            if mime is None or mime not in self.supported_mime_types:
                raise error(422, INVALID_FILE)
            limit = self.image_size_limit if media_type == "image" else self.video_size_limit
            if len(data) > limit:
                raise error(422, f"Validation failed: File file size must be less than {limit // 1048576} MB")
            description = request.form.get("description") or None
            if description and len(description) > self.description_limit:
                raise error(422, f"Validation failed: Description is too long (maximum is {self.description_limit} "
                                 "characters)")
            now = self.clock.now()
            later = media_type != "image"
            media = Media(self._ids.next(), account.id, media_type, kind, len(data), description, now,
                          now + dt.timedelta(seconds=self.video_seconds if later else 0),
                          self._failures.pop(0) if self._failures else None)
            self._media[media.id] = media
            return Response.json(202 if later else 200, self._media_view(media))

    def _get_media(self, request: Request, media_id: str) -> Response:
        with self.lock:
            account, _ = self._caller(request, "write:media")
            media = self._own_media(account.id, media_id)
            if media.failure and self.clock.now() >= media.ready_at:
                raise error(422, media.failure)
            return Response.json(200 if self._ready(media) else 206, self._media_view(media))

    def _update_media(self, request: Request, media_id: str) -> Response:
        with self.lock:
            account, _ = self._caller(request, "write:media")
            media = self._own_media(account.id, media_id)
            if "description" in request.params:
                media.description = request.params["description"] or None
            return Response.json(200, self._media_view(media))

    def _own_media(self, account_id: str, media_id: str) -> Media:
        media = self._media.get(media_id)
        if media is None or media.account_id != account_id or media.status_id is not None:
            raise error(404, NOT_FOUND)
        return media

    def _ready(self, media: Media) -> bool:
        return media.failure is None and self.clock.now() >= media.ready_at

    def _media_view(self, media: Media) -> dict:
        ready = self._ready(media)
        base = f"https://files.{self.domain}/media_attachments/{media.id}"
        return {"id": media.id, "type": media.type, "url": f"{base}/original.{media.format}" if ready else None,
                "preview_url": f"{base}/small.jpg", "remote_url": None, "text_url": None,
                "meta": {"original": {"size": media.size}}, "description": media.description, "blurhash": None}
