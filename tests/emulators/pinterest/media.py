"""Pinterest's video uploads as the emulator keeps them: `POST /v5/media` registers one and
hands out the upload store's URL with its S3 policy fields, the store takes a browser POST
(every field as handed out, the file last) and answers 204, and `GET /v5/media/{id}`
answers registered, processing (for `video_seconds` on the emulator clock), then
succeeded or failed (tests/emulators/README.md#pinterest)."""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import itertools
import json
import secrets
from email.parser import BytesParser
from email.policy import HTTP

from ..media import mp4_seconds, sniff
from ..wire import Request, Response
from .state import FAILED, MEDIA_NOT_FOUND, PROCESSING, REGISTERED, SUCCEEDED, Media, PinterestError, invalid, s3_error

STORE = "https://pinterest-media-upload.s3-accelerate.amazonaws.com/"
POLICY_TTL = dt.timedelta(hours=1)  # [U]
VIDEO_SECONDS = (4, 15 * 60)  # [S]
VIDEO_MAX_BYTES = 2 * 1024 ** 3  # [S]


def media_ids():
    return itertools.count(5_150_000_000_000_000_001)


class PinterestMedia:
    """Media handlers, on an emulator holding `lock`, `clock`, `_media`, `_media_ids`,
    `_forced_failures`, `video_seconds`."""

    def _register(self, request: Request) -> Response:
        body = request.json
        with self.lock:
            user = self._user(request, "pins:write")
            kind = body.get("media_type") if isinstance(body, dict) else None
            if kind != "video":
                raise invalid(f"{kind!r} is not one of ['video'] - 'media_type'")
            now = self.clock.now()
            media_id = str(next(self._media_ids))
            stamp = now.strftime("%Y%m%dT%H%M%SZ")
            policy = {"expiration": (now + POLICY_TTL).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                      "conditions": [{"bucket": "pinterest-media-upload"}, ["starts-with", "$key", ""]]}
            parameters = {
                "x-amz-date": stamp, "x-amz-signature": secrets.token_hex(32),
                "x-amz-security-token": secrets.token_urlsafe(96), "x-amz-algorithm": "AWS4-HMAC-SHA256",
                "key": f"uploads/{user.id}/{media_id}/{secrets.token_hex(8)}",
                "policy": base64.b64encode(json.dumps(policy).encode()).decode(),
                "x-amz-credential": f"ASIAEMULATOR/{stamp[:8]}/us-east-1/s3/aws4_request",
                "Content-Type": "multipart/form-data"}
            self._media[media_id] = Media(media_id, user.id, now, parameters)
        return Response.json(201, {"media_id": media_id, "media_type": "video", "upload_url": STORE,
                                   "upload_parameters": parameters})

    def _status(self, request: Request, media_id: str) -> Response:
        with self.lock:
            user = self._user(request, "pins:write")
            media = self._media.get(media_id)
            if media is None or media.owner != user.id:
                raise PinterestError(404, MEDIA_NOT_FOUND, "Media not found.")
            return Response.json(200, self.media_view(media))

    def media_view(self, media: Media) -> dict:
        return {"media_id": media.id, "media_type": "video", "status": self.media_status(media)}

    def media_status(self, media: Media) -> str:
        if media.uploaded_at is None:
            return REGISTERED
        if self.clock.now() < media.uploaded_at + dt.timedelta(seconds=self.video_seconds):
            return PROCESSING
        return FAILED if media.failure else SUCCEEDED

    # --- the upload store (S3's browser POST) ---------------------------------------------------

    def _store(self, request: Request) -> Response:
        if request.headers.get_content_type() != "multipart/form-data":
            raise s3_error(412, "PreconditionFailed", "Bucket POST must be of the enclosure-type multipart/form-data")
        parts = form_parts(request)
        names = [name for name, _, _ in parts]
        files = [i for i, (_, _, filename) in enumerate(parts) if filename is not None]
        if len(files) != 1 or names[files[0]] != "file":
            raise s3_error(400, "InvalidArgument", "POST requires exactly one file upload per request.")
        if files[0] != len(parts) - 1:
            raise s3_error(400, "InvalidArgument", "Bucket POST must contain the file as its last field.")
        fields = {name: value.decode("utf-8", "replace") for name, value, filename in parts if filename is None}
        data = parts[-1][1]
        with self.lock:
            media = next((m for m in self._media.values() if m.parameters.get("key") == fields.get("key")), None)
            if media is None or any(fields.get(k) != v for k, v in media.parameters.items()):
                raise s3_error(403, "AccessDenied", "Invalid according to Policy: Policy Condition failed")
            now = self.clock.now()
            if now >= media.created_at + POLICY_TTL:
                raise s3_error(403, "AccessDenied", "Invalid according to Policy: Policy expired.")
            if media.uploaded_at is not None:
                raise s3_error(403, "AccessDenied", "The upload of this media was made already")
            media.uploaded_at, media.size = now, len(data)
            media.kind = sniff(data[:64])
            media.duration = mp4_seconds(data) if media.kind in ("mp4", "mov") else None
            media.failure = self._failure(media)
            self.stored[media.id] = hashlib.sha256(data).hexdigest()
        return Response(204)

    def _failure(self, media: Media) -> str | None:
        """Why processing will fail, decided at upload (the lock held) [U]."""
        if self._forced_failures:
            return self._forced_failures.pop(0)
        if media.kind not in ("mp4", "mov"):
            return "The file is corrupted or is not a video Pinterest takes (MP4, MOV, M4V)"
        if media.size > VIDEO_MAX_BYTES:
            return "The video is larger than 2 GB"
        least, most = VIDEO_SECONDS
        if media.duration is not None and not least <= media.duration <= most:
            return f"The video lasts {media.duration:g} s; Pinterest takes 4 s to 15 minutes"
        return None

    # --- controls -------------------------------------------------------------------------------

    def fail_next_video(self, reason: str = "The file is corrupted") -> None:
        """The next video uploaded ends `failed` (its reason kept for the emulator's view)."""
        with self.lock:
            self._forced_failures.append(reason)


def form_parts(request: Request) -> list[tuple[str, bytes, str | None]]:
    """(name, value, filename) of each part of a multipart body, in the order sent."""
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + request.headers.get("Content-Type", "").encode("latin-1") + b"\r\n\r\n" + request.raw_body)
    if not message.is_multipart():
        return []
    return [(part.get_param("name", header="content-disposition") or "", part.get_payload(decode=True) or b"",
             part.get_filename()) for part in message.iter_parts()]
