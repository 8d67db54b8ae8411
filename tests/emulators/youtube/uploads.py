"""`videos.insert` as the YouTube emulator keeps it (tests/emulators/README.md#youtube): the
resumable protocol (a session started with the video's metadata, its URI in `Location`;
the bytes PUT whole or in chunks with `Content-Range`, each answered `308 Resume Incomplete`
with the `Range` kept until the last, answered with the video; `Content-Range: bytes */N`
asking what is kept), a multipart upload in one request, the metadata's rules, the
processing on the emulator clock, and the controls that stall or cut an upload off.

Strict where the protocol is [C]: every chunk but the last a multiple of 256 KiB, the
total the declared length. Where it is silent [U]: a chunk must start at the byte the
session wants (else 400), and an upload cut off keeps only the whole 256 KiB units that
arrived.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from urllib.parse import parse_qsl, urlsplit

from ..media import mp4_dimensions, mp4_seconds, sniff
from ..wire import Request, Response, parse_request
from .state import UNIT, GoogleError, Put, Session, Video, rfc3339

UPLOAD_PATH = "/upload/youtube/v3/videos"
SESSION_URI = "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id={id}&part={part}"
CONTENT_RANGE = re.compile(r"bytes ([0-9]+)-([0-9]+)/([0-9]+)")
QUERY = re.compile(r"bytes \*/([0-9]+)")
PRIVACY = ("public", "unlisted", "private")
# The categories a video may be given in most regions (videoCategories.list, assignable) [S].
CATEGORIES = frozenset({"1", "2", "10", "15", "17", "19", "20", "22", "23", "24", "25", "26", "27", "28", "29"})
VIDEO_KINDS = ("mp4", "mov", "webm")  # what the sniffer knows of the formats YouTube takes
SHORT_SECONDS = 180  # a vertical or square video up to 3 minutes is a Short [C]
READ_BLOCK = 64 * 1024


@dataclass
class Transfer:
    """What the next upload PUTs meet as their bytes come in: a `stall` stops reading after
    `after_bytes` for `seconds` (real seconds, or until the client gives up); a `cut` closes
    the connection there."""

    kind: str  # stall | cut
    after_bytes: int
    seconds: float = 0.0
    times: int | None = 1


class YouTubeUploads:
    """Upload handlers and controls, on an emulator holding `lock`, `clock`, `audited`,
    `processing_seconds`, `_sessions`, `_videos`, `_transfers`, `_stopping`, and the OAuth
    and quota helpers (`_caller`, `_channel_of`, `_charge`, `_count_upload`)."""

    # --- controls -----------------------------------------------------------------------------

    def stall(self, after_bytes: int, seconds: float, *, times: int | None = 1) -> Transfer:
        """The next `times` upload PUTs stop reading after `after_bytes` bytes of their body
        for `seconds` (real seconds), then read on: a client that gave up meanwhile leaves
        the whole 256 KiB units that arrived."""
        return self._add_transfer(Transfer("stall", int(after_bytes), float(seconds), times))

    def cut(self, after_bytes: int, *, times: int | None = 1) -> Transfer:
        """The next `times` upload PUTs are cut off after `after_bytes` bytes of their body:
        the connection closes unanswered, and the session keeps the whole 256 KiB units of
        them."""
        return self._add_transfer(Transfer("cut", int(after_bytes), times=times))

    def _add_transfer(self, transfer: Transfer) -> Transfer:
        with self.lock:
            self._transfers.append(transfer)
        return transfer

    @property
    def stalls(self) -> list[Transfer]:
        with self.lock:
            return list(self._transfers)

    # --- starting an upload -------------------------------------------------------------------

    def _insert(self, request: Request) -> Response:
        kind = request.query.get("uploadType")
        if kind == "resumable":
            return self._start(request)
        if kind == "multipart":
            return self._multipart(request)
        raise GoogleError(400, "invalidParameter", f"Invalid value for uploadType: {kind or '(none)'}", "global",
                          location="uploadType", locationType="parameter")

    def _start(self, request: Request) -> Response:
        """A resumable session: its metadata now, its bytes later at the session URI."""
        size = request.headers.get("X-Upload-Content-Length", "")
        content_type = request.headers.get("X-Upload-Content-Type", "application/octet-stream")
        with self.lock:
            user = self._caller(request, "upload")
            self._charge("insert")
            channel = self._channel_of(user)
            parts = self._parts(request)
            metadata = self._metadata(request.json)
            if not size.isdigit() or int(size) < 1:
                raise GoogleError(400, "badRequest", "X-Upload-Content-Length must be the video's size in bytes")
            if not (content_type.startswith("video/") or content_type == "application/octet-stream"):
                raise GoogleError(400, "badContent", f"Media type '{content_type}' is not supported.")
            self._count_upload(channel)
            session = Session(secrets.token_urlsafe(36), channel, user.sub, metadata, parts, int(size), content_type,
                              self.clock.now())
            self._sessions[session.id] = session
        return Response(200, b"", {"Location": SESSION_URI.format(id=session.id, part=parts),
                                   "X-GUploader-UploadID": session.id})

    def _multipart(self, request: Request) -> Response:
        """The metadata and the bytes in one `multipart/related` request: the video at once."""
        message = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + request.headers.get("Content-Type", "").encode("latin-1") + b"\r\n\r\n"
            + request.raw_body)
        pieces = list(message.iter_parts()) if message.is_multipart() else []
        with self.lock:
            user = self._caller(request, "upload")
            self._charge("insert")
            channel = self._channel_of(user)
            parts = self._parts(request)
            if len(pieces) != 2:
                raise GoogleError(400, "mediaBodyRequired", "The request does not include the video content.")
            try:
                body = json.loads(pieces[0].get_payload(decode=True) or b"{}")
            except ValueError:
                body = None
            metadata = self._metadata(body)
            self._count_upload(channel)
            video = self._make_video(channel, metadata, pieces[1].get_payload(decode=True) or b"", "multipart")
            return Response.json(200, self._resource(video, parts, owner=True))

    def _parts(self, request: Request) -> str:
        parts = request.query.get("part", "")
        if not parts:
            raise GoogleError(400, "required", "Required parameter: part", "global", location="part",
                              locationType="parameter")
        return parts

    def _metadata(self, body) -> dict:
        """The video resource's snippet and status as YouTube's rules take them [C]."""
        body = body if isinstance(body, dict) else {}
        snippet = body.get("snippet") if isinstance(body.get("snippet"), dict) else {}
        status = body.get("status") if isinstance(body.get("status"), dict) else {}
        title = snippet.get("title")
        if not isinstance(title, str) or not 1 <= len(title) <= 100 or "<" in title or ">" in title:
            raise GoogleError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title.")
        description = snippet.get("description", "")
        if not isinstance(description, str) or len(description.encode("utf-8")) > 5000 \
                or "<" in description or ">" in description:
            raise GoogleError(400, "invalidDescription", "The request metadata specifies an invalid video description.")
        tags = snippet.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags) or tags_length(tags) > 500:
            raise GoogleError(400, "invalidTags", "The request metadata specifies invalid video keywords.")
        category = str(snippet.get("categoryId", "22"))
        if category not in CATEGORIES:
            raise GoogleError(400, "invalidCategoryId", "The snippet.categoryId property specifies an invalid "
                                                        "category ID.")
        privacy = status.get("privacyStatus", "public")
        if privacy not in PRIVACY:
            raise GoogleError(400, "invalidVideoMetadata", "The request metadata is invalid.")
        if status.get("publishAt") is not None and privacy != "private":
            raise GoogleError(400, "invalidPublishAt", "The request metadata specifies an invalid scheduled "
                                                       "publishing time.")
        return {"title": title, "description": description, "tags": tuple(tags), "category_id": category,
                "privacy": privacy, "made_for_kids": status.get("selfDeclaredMadeForKids") is True}

    # --- the session URI ------------------------------------------------------------------------

    def _put(self, request: Request) -> Response:
        with self.lock:
            session = self._sessions.get(request.query.get("upload_id", ""))
            if session is None:
                raise GoogleError(404, "notFound", "The upload session does not exist or has expired.", "global")
            user = self._caller(request)
            if user.sub != session.sub:
                raise GoogleError(403, "forbidden", "The upload session belongs to another user.", "global")
            content_range, data, held = request.headers.get("Content-Range"), request.raw_body, session.held
            try:
                response = self._receive(session, content_range, data)
            except GoogleError as refused:
                session.puts.append(Put(content_range, len(data), 0, status=refused.status))
                raise
            session.puts.append(Put(content_range, len(data), session.held - held, status=response.status))
            return response

    def _receive(self, session: Session, content_range: str | None, data: bytes) -> Response:
        """What the session answers a PUT: the video once complete (201, then 200 to every
        later PUT), else 308 with the bytes kept (the lock held)."""
        if session.video_id is not None:
            return Response.json(200, self._resource(self._videos[session.video_id], session.parts, owner=True))
        query = QUERY.fullmatch(content_range or "")
        if query:
            if int(query.group(1)) != session.size or data:
                raise GoogleError(400, "badRequest", "A status query is Content-Range: bytes */<size> and no body.")
            return _incomplete(session)
        if content_range is None:
            first, last, total = 0, len(data) - 1, len(data)
        else:
            found = CONTENT_RANGE.fullmatch(content_range)
            if not found:
                raise GoogleError(400, "badRequest", f"Content-Range {content_range!r} is not bytes first-last/total.")
            first, last, total = (int(n) for n in found.groups())
        if total != session.size:
            raise GoogleError(400, "badRequest", f"The upload is {session.size} bytes, not {total}.")
        if first != session.held:
            raise GoogleError(400, "badRequest", f"The upload wants byte {session.held} next, not {first}.")
        if last - first + 1 != len(data) or last >= total:
            raise GoogleError(400, "badRequest", f"Content-Range {content_range} does not match the {len(data)} bytes sent.")
        if last + 1 < total and len(data) % UNIT:
            raise GoogleError(400, "badRequest", f"A chunk but the last must be a multiple of {UNIT} bytes.")
        session.data += data
        if session.held < session.size:
            return _incomplete(session)
        video = self._make_video(session.channel_id, session.metadata, bytes(session.data), "resumable")
        session.video_id = video.id
        return Response.json(201, self._resource(video, session.parts, owner=True))

    # --- an upload's body as it comes in (base.py `read_body`) ---------------------------------

    def read_body(self, method: str, target: str, headers, rfile) -> bytes | None:
        """An upload PUT's body read as it arrives, for the stalls and cuts it may meet; cut
        off (by a `cut`, or a client that went away), the session keeps the whole 256 KiB
        units that arrived and the connection closes unanswered."""
        if method != "PUT" or urlsplit(target).path != UPLOAD_PATH:
            return None
        length = int(headers.get("Content-Length") or 0)
        with self.lock:
            transfer = next(iter(self._transfers), None)
            if transfer is not None:
                if transfer.times is not None:
                    transfer.times -= 1
                    if transfer.times <= 0:
                        self._transfers.remove(transfer)
        data = bytearray()
        while len(data) < length:
            if transfer is not None and len(data) >= transfer.after_bytes:
                if transfer.kind == "cut":
                    break
                self._stopping.wait(transfer.seconds)
                transfer = None
            want = min(READ_BLOCK, length - len(data))
            if transfer is not None:
                want = min(want, transfer.after_bytes - len(data))
            try:
                block = rfile.read(want)
            except OSError:
                block = b""
            if not block:
                break
            data += block
        if len(data) < length:
            self._cut_off(target, headers, bytes(data))
            raise ConnectionAbortedError("the upload was cut off")
        return bytes(data)

    def _cut_off(self, target: str, headers, data: bytes) -> None:
        upload_id = dict(parse_qsl(urlsplit(target).query)).get("upload_id", "")
        content_range = headers.get("Content-Range")
        with self.lock:
            session = self._sessions.get(upload_id)
            found = CONTENT_RANGE.fullmatch(content_range or "")
            kept = 0
            if session is not None and session.video_id is None and found and int(found.group(1)) == session.held \
                    and int(found.group(3)) == session.size:
                kept = len(data) // UNIT * UNIT
                session.data += data[:kept]
            if session is not None:
                session.puts.append(Put(content_range, int(headers.get("Content-Length") or 0), kept, interrupted=True))
        self._log(parse_request("PUT", target, headers, b""), None, self.clock.now(), dropped=True)

    # --- videos ---------------------------------------------------------------------------------

    def _make_video(self, channel_id: str, metadata: dict, data: bytes, upload_type: str) -> Video:
        kind = sniff(data[:64])
        seconds = mp4_seconds(data) if kind in ("mp4", "mov") else None
        size = mp4_dimensions(data) if kind in ("mp4", "mov") else None
        short = bool(size and size[0] <= size[1] and seconds is not None and seconds <= SHORT_SECONDS)
        video = Video(secrets.token_urlsafe(8), channel_id, metadata["title"], metadata["description"],
                      metadata["tags"], metadata["category_id"], metadata["privacy"],
                      metadata["privacy"] if self.audited else "private", metadata["made_for_kids"], upload_type,
                      len(data), hashlib.sha256(data).hexdigest(), short, self.clock.now(), kind,
                      None if kind in VIDEO_KINDS else "invalidFile")
        self._videos[video.id] = video
        return video

    def upload_status(self, video: Video) -> str:
        """uploaded while YouTube processes it, then processed (or failed: not a video)."""
        if self.clock.now() < video.published_at + dt.timedelta(seconds=self.processing_seconds):
            return "uploaded"
        return "failed" if video.failure else "processed"

    def _resource(self, video: Video, parts: str, *, owner: bool) -> dict:
        """The video resource with the `parts` asked for (processingDetails for its owner only)."""
        wanted = set(parts.split(","))
        resource = {"kind": "youtube#video", "etag": hashlib.sha1(video.id.encode()).hexdigest()[:27], "id": video.id}
        if "snippet" in wanted:
            resource["snippet"] = {
                "publishedAt": rfc3339(video.published_at), "channelId": video.channel_id, "title": video.title,
                "description": video.description, "thumbnails": {"default": {
                    "url": f"https://i.ytimg.com/vi/{video.id}/default.jpg", "width": 120, "height": 90}},
                "channelTitle": self._channel_title(video.channel_id), "categoryId": video.category_id,
                "liveBroadcastContent": "none", "localized": {"title": video.title, "description": video.description},
                **({"tags": list(video.tags)} if video.tags else {})}
        status = self.upload_status(video)
        if "status" in wanted:
            resource["status"] = {"uploadStatus": status, "privacyStatus": video.privacy_status, "license": "youtube",
                                  "embeddable": True, "publicStatsViewable": True,
                                  "selfDeclaredMadeForKids": video.made_for_kids, "madeForKids": video.made_for_kids}
            if status == "failed":
                resource["status"]["failureReason"] = video.failure
        if "processingDetails" in wanted and owner:
            resource["processingDetails"] = {"processingStatus": {"uploaded": "processing", "processed": "succeeded",
                                                                  "failed": "failed"}[status]}
        return resource


def tags_length(tags) -> int:
    """Tags as YouTube counts them against 500: the commas between them, and a tag with a
    space as if quoted [C]."""
    return sum(len(t) + 2 if " " in t else len(t) for t in tags) + max(len(tags) - 1, 0)


def _incomplete(session: Session) -> Response:
    """308 Resume Incomplete, with the bytes kept (no Range when there are none) [C]."""
    headers = {"Range": f"bytes=0-{session.held - 1}"} if session.held else {}
    return Response(308, b"", headers)
