"""LinkedIn's Images API and Videos API as the emulator keeps them: initialize an upload,
PUT the bytes to the upload URLs it gives (one for an image, one a 4 MiB part for a video,
each part answering its ETag), finalize a video with the ETags in order, and the media's
processing on the emulator clock (tests/emulators/README.md#linkedin)."""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from ..media import mp4_seconds, sniff
from ..wire import Request, Response
from .state import AVAILABLE, PROCESSING, PROCESSING_FAILED, WAITING_UPLOAD, Image, RestError, Video

PART = 4_194_304
UPLOAD_URL_TTL = dt.timedelta(hours=1)  # [U]
IMAGE_FORMATS = ("jpeg", "png", "gif")
IMAGE_PIXELS = 36_152_320
UPLOADS = "https://www.linkedin.com/dms-uploads/"


class LinkedInMedia:
    """Upload and media handlers, on an emulator holding `lock`, `clock`, `_images`,
    `_videos`, `_uploads`, `image_processing_seconds`, `video_processing_seconds`,
    `video_min_bytes`, `video_max_bytes`, `member_media_reads`."""

    # --- images -------------------------------------------------------------------------------

    def _images_action(self, request: Request) -> Response:
        if request.query.get("action") != "initializeUpload":
            raise RestError(400, "Unsupported action")
        with self.lock:
            member = self._rest(request, "w_member_social")
            owner = self._owner(request.json, member)
            now = self.clock.now()
            image = Image(f"urn:li:image:C4E10AQ{secrets.token_urlsafe(12)}", owner, secrets.token_urlsafe(24),
                          now + UPLOAD_URL_TTL, now)
            self._images[image.urn] = image
            self._uploads[image.upload_id] = ("image", image.urn, 0)
        return Response.json(200, {"value": {"uploadUrlExpiresAt": _ms(image.upload_expires_at),
                                             "uploadUrl": UPLOADS + image.upload_id, "image": image.urn}})

    def _image(self, request: Request, urn: str) -> Response:
        with self.lock:
            member = self._rest(request, "w_member_social")
            image = self._images.get(urn)
            if image is None:
                raise RestError(404, f"Image {urn} does not exist")
            if image.owner != member.urn or not self.member_media_reads:
                raise RestError(403, f"Not enough permissions to access: images.GET.{urn}", "ACCESS_DENIED", 100)
            return Response.json(200, self._image_view(image))

    def _image_view(self, image: Image) -> dict:
        view: dict[str, Any] = {"id": image.urn, "owner": image.owner, "status": self.image_status(image)}
        if view["status"] == AVAILABLE:
            view["downloadUrl"] = f"https://media.licdn.invalid/{image.urn.rsplit(':', 1)[-1]}"
        return view

    def image_status(self, image: Image) -> str:
        if image.uploaded_at is None:
            return WAITING_UPLOAD
        if self.clock.now() < image.uploaded_at + dt.timedelta(seconds=self.image_processing_seconds):
            return PROCESSING
        return PROCESSING_FAILED if image.failure else AVAILABLE

    # --- videos -------------------------------------------------------------------------------

    def _videos_action(self, request: Request) -> Response:
        action = request.query.get("action")
        with self.lock:
            member = self._rest(request, "w_member_social")
            if action == "initializeUpload":
                return self._initialize_video(request.json, member)
            if action == "finalizeUpload":
                return self._finalize_video(request.json, member)
        raise RestError(400, "Unsupported action")

    def _initialize_video(self, body: Any, member) -> Response:
        owner = self._owner(body, member)
        size = body["initializeUploadRequest"].get("fileSizeBytes")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise RestError(400, "/initializeUploadRequest/fileSizeBytes is required: a whole number of bytes")
        if not self.video_min_bytes <= size <= self.video_max_bytes:
            raise RestError(400, f"File size {size} is outside the allowed range [{self.video_min_bytes}, "
                                 f"{self.video_max_bytes}] bytes")
        now = self.clock.now()
        parts = []
        for first in range(0, size, PART):
            upload_id = secrets.token_urlsafe(24)
            parts.append((upload_id, first, min(first + PART, size) - 1))
        video = Video(f"urn:li:video:C5F10AQ{secrets.token_urlsafe(12)}", owner, size, "", parts,
                      now + UPLOAD_URL_TTL, now)
        self._videos[video.urn] = video
        for index, (upload_id, _, _) in enumerate(parts):
            self._uploads[upload_id] = ("video", video.urn, index)
        return Response.json(200, {"value": {
            "uploadUrlsExpireAt": _ms(video.upload_expires_at), "video": video.urn,
            "uploadInstructions": [{"uploadUrl": UPLOADS + u, "firstByte": f, "lastByte": last} for u, f, last in parts],
            "uploadToken": video.upload_token}})

    def _finalize_video(self, body: Any, member) -> Response:
        request = body.get("finalizeUploadRequest") if isinstance(body, dict) else None
        if not isinstance(request, dict):
            raise RestError(400, "/finalizeUploadRequest is required")
        video = self._videos.get(request.get("video"))
        if video is None:
            raise RestError(404, f"Video {request.get('video')} does not exist")
        if video.owner != member.urn:
            raise RestError(403, "Accessing this video resource is forbidden for the requesting member")
        if request.get("uploadToken", "") != video.upload_token:
            raise RestError(400, "/finalizeUploadRequest/uploadToken does not match the upload")
        if video.finalized_at is not None:
            return Response(200)
        expected = [video.received[i][0] if i in video.received else None for i in range(len(video.parts))]
        if None in expected:
            raise RestError(400, f"Part {expected.index(None) + 1} of {len(video.parts)} was never uploaded")
        if request.get("uploadedPartIds") != expected:
            raise RestError(400, "/finalizeUploadRequest/uploadedPartIds must list every part's ETag in order")
        data = b"".join(video.received[i][1] for i in range(len(video.parts)))
        video.finalized_at = self.clock.now()
        video.sha256 = hashlib.sha256(data).hexdigest()
        video.duration = mp4_seconds(data) if sniff(data[:64]) in ("mp4", "mov") else None
        if self._forced_failures:
            video.failure = self._forced_failures.pop(0)
        elif sniff(data[:64]) != "mp4":
            video.failure = "The uploaded file is not an MP4 video"
        elif video.duration is not None and not 3 <= video.duration <= 30 * 60:
            video.failure = f"Video duration {video.duration:g} s is outside 3 s to 30 min"
        return Response(200)

    def _video(self, request: Request, urn: str) -> Response:
        with self.lock:
            member = self._rest(request, "w_member_social")
            video = self._videos.get(urn)
            if video is None:
                raise RestError(404, f"Video {urn} does not exist")
            if video.owner != member.urn:
                raise RestError(403, "Accessing this video resource is forbidden for the requesting member")
            if not self.member_media_reads:
                raise RestError(403, f"Not enough permissions to access: videos.GET.{urn}", "ACCESS_DENIED", 100)
            return Response.json(200, self._video_view(video))

    def _video_view(self, video: Video) -> dict:
        view: dict[str, Any] = {"id": video.urn, "owner": video.owner, "status": self.video_status(video)}
        if view["status"] == PROCESSING_FAILED:
            view["processingFailureReason"] = video.failure
        if video.duration is not None and view["status"] == AVAILABLE:
            view["duration"] = int(video.duration * 1000)
        return view

    def video_status(self, video: Video) -> str:
        if video.finalized_at is None:
            return WAITING_UPLOAD
        if self.clock.now() < video.finalized_at + dt.timedelta(seconds=self.video_processing_seconds):
            return PROCESSING
        return PROCESSING_FAILED if video.failure else AVAILABLE

    # --- the upload URLs ----------------------------------------------------------------------

    def _put_upload(self, request: Request, upload_id: str) -> Response:
        data = request.raw_body
        with self.lock:
            found = self._uploads.get(upload_id)
            if found is None:
                raise RestError(404, "Upload URL not found")
            kind, urn, index = found
            now = self.clock.now()
            if kind == "image":
                image = self._images[urn]
                if now >= image.upload_expires_at:
                    raise RestError(400, "The upload URL has expired")
                if image.uploaded_at is not None:
                    if image.sha256 == hashlib.sha256(data).hexdigest():
                        return Response(201)  # [U] the same bytes again: nothing changes
                    raise RestError(400, "The image was uploaded already")
                image.uploaded_at, image.size = now, len(data)
                image.kind, image.sha256 = sniff(data[:64]), hashlib.sha256(data).hexdigest()
                image.failure = None if image.kind in IMAGE_FORMATS else "The uploaded file is not a JPG, PNG or GIF"
                return Response(201)
            video = self._videos[urn]
            if now >= video.upload_expires_at:
                raise RestError(400, "The upload URL has expired")
            if video.finalized_at is not None:
                raise RestError(400, "The video upload was finalized already")
            _, first, last = video.parts[index]
            if len(data) != last - first + 1:
                raise RestError(400, f"Part {index + 1} must be bytes {first}-{last}: {last - first + 1} bytes, "
                                     f"not {len(data)}")
            etag = "/" + hashlib.new("md5", data).hexdigest()
            video.received[index] = (etag, data)
        return Response(200, b"", {"ETag": etag})

    # --- controls -----------------------------------------------------------------------------

    def fail_next_video(self, reason: str = "Video processing failed") -> None:
        """The next video finalized ends PROCESSING_FAILED with this processingFailureReason."""
        with self.lock:
            self._forced_failures.append(reason)

    def _owner(self, body: Any, member) -> str:
        request = body.get("initializeUploadRequest") if isinstance(body, dict) else None
        owner = request.get("owner") if isinstance(request, dict) else None
        if not isinstance(owner, str) or not owner:
            raise RestError(400, "/initializeUploadRequest/owner is required")
        if owner != member.urn:
            raise RestError(403, f"Not enough permissions to upload media for {owner}", "ACCESS_DENIED", 100)
        return owner


def _ms(instant: dt.datetime) -> int:
    return int(instant.timestamp() * 1000)
