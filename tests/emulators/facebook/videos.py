"""Videos and Reels of a Page, as the emulator plays them (tests/emulators/README.md#facebook):
`POST /{page-id}/videos` (graph-video.facebook.com) by `file_url`, a multipart `source` or
the chunked phases (start, transfer, finish); `POST /{page-id}/video_reels` start, the
bytes at `rupload.facebook.com/video-upload/...` (a `file_url` header, or `offset`,
`file_size` and the bytes), then finish; the status object on the emulator's clock; the
Reel checks (9:16, at least 540x960, 3 to 90 s) and the Page's 30 Reels in 24 hours."""
from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from typing import Any, Callable

import requests

from .. import media
from ..graph import GraphError, graph_time
from ..wire import Refusal, Request, Response
from .movie import read_movie
from .publishing import loopback
from .state import PageToken, Video, param_error, permission_error

VIDEO_LIMIT = 1024 * 1024 * 1024  # what a file_url may be, read by the emulator [U]
CHUNK = 4 * 1024 * 1024  # what the chunked phases ask for at a time [U]
REEL_WINDOW = dt.timedelta(hours=24)
REEL_SECONDS = (3.0, 90.0)
REEL_LEAST = (540, 960)
VIDEO_STATES = ("PUBLISHED", "DRAFT", "SCHEDULED")
_VERSION = re.compile(r"/(v\d+\.\d+)/")


def download(url: str, limit: int = VIDEO_LIMIT) -> bytes | None:
    """The whole file at `url` (loopback only), or None when it cannot be had whole."""
    if not loopback(url):
        return None
    try:
        with requests.Session() as session:
            session.trust_env = False
            with session.get(url, stream=True, timeout=(5.0, 30.0)) as answer:
                if answer.status_code >= 400:
                    return None
                data = bytearray()
                for chunk in answer.iter_content(64 * 1024):
                    data += chunk
                    if len(data) > limit:
                        return None
                return bytes(data)
    except (requests.RequestException, ValueError):
        return None


def upload_error(message: str, *, retriable: bool = False, status: int = 400) -> Refusal:
    """rupload's refusal: `{"debug_info": {"retriable", "type", "message"}}`."""
    return Refusal(Response.json(status, {"debug_info": {"retriable": retriable, "type": "ProcessingFailedError",
                                                         "message": message}}))


def reel_problem(data: bytes) -> str | None:
    """Why a Reel's bytes are not a Reel Facebook takes, or None."""
    movie = read_movie(data)
    if movie.width is None or movie.height is None:
        return "The video's picture size could not be read; Reels are 9:16 videos"
    if abs(movie.width * 16 - movie.height * 9) > movie.height * 9 * 0.01:
        return f"Reels must have a 9:16 aspect ratio; this video is {movie.width}x{movie.height}"
    if movie.width < REEL_LEAST[0] or movie.height < REEL_LEAST[1]:
        return f"Reels must be at least 540x960; this video is {movie.width}x{movie.height}"
    low, high = REEL_SECONDS
    if movie.seconds is None or not low <= movie.seconds <= high:
        return f"Reels must last 3 to 90 seconds; this video lasts {movie.seconds} s"
    return None


def status_of(video: Video, now: dt.datetime) -> dict:
    """A video's `status`: its uploading, processing and publishing phases at `now`."""
    done = video.file_size is not None and 0 < video.received >= video.file_size
    uploading = {"status": "complete" if done else "in_progress" if video.received else "not_started",
                 "bytes_transferred": video.received}
    if video.finished_at is None:
        return {"video_status": "upload_complete" if done else "uploading", "processing_progress": 0,
                "uploading_phase": uploading, "processing_phase": {"status": "not_started"},
                "publishing_phase": {"status": "not_started"}}
    if now < video.ready_at:
        length = (video.ready_at - video.finished_at).total_seconds() or 1
        progress = int(100 * (now - video.finished_at).total_seconds() / length)
        return {"video_status": "processing", "processing_progress": progress, "uploading_phase": uploading,
                "processing_phase": {"status": "in_progress"}, "publishing_phase": {"status": "not_started"}}
    if video.error is not None:
        return {"video_status": "error", "processing_progress": 100, "uploading_phase": uploading,
                "processing_phase": {"status": "error", "errors": [{"code": 1363008, "message": video.error}]},
                "publishing_phase": {"status": "not_started"}}
    publishing = {"status": "not_started"}
    if video.published:
        publishing = {"status": "complete", "publish_status": "published",
                      "publish_time": int(video.ready_at.timestamp())}
    return {"video_status": "ready", "processing_progress": 100, "uploading_phase": uploading,
            "processing_phase": {"status": "complete"}, "publishing_phase": publishing}


class FacebookVideos:
    """Videos and Reels, on an emulator holding `lock`, `clock`, `_ids`, `_pages`,
    `_videos`, `processing_seconds` ({"video", "reel"}), `reel_limit`, `_failing` (the
    errors the next videos processed end with) and `_cut` (bytes the next rupload keeps)."""

    # --- controls -------------------------------------------------------------------------

    def fail_next_video(self, message: str = "The video could not be processed.") -> None:
        """The next video or Reel processed ends in `error` with `message`."""
        with self.lock:
            self._failing.append(message)

    def cut_next_upload(self, keep: int) -> None:
        """The next rupload keeps the first `keep` bytes of its body, then the connection is
        closed without an answer (an upload cut short)."""
        with self.lock:
            self._cut = int(keep)
        self.drop("POST", r"/video-upload/")

    # --- the processing of a video -------------------------------------------------------------

    def _finished(self, video: Video) -> None:
        """The video's bytes are all in (its finish, for a Reel): processing starts now, and
        how it ends is decided. Under the lock."""
        now = self.clock.now()
        video.finished_at = now
        video.ready_at = now + dt.timedelta(seconds=self.processing_seconds[video.kind])
        kind = media.sniff(bytes(video.data[:media.HEAD_BYTES]))
        if self._failing:
            video.error = self._failing.pop(0)
        elif not video.data:
            video.error = "The video file could not be downloaded from file_url."
        elif kind not in ("mp4", "mov"):
            video.error = "The video file you selected is in a format that we don't support."
        elif video.kind == "reel":
            video.error = reel_problem(bytes(video.data))

    def _new_video(self, page_id: str, kind: str, how: str, **fields: Any) -> Video:
        video = Video(str(next(self._ids)), page_id, kind, self.clock.now(), how=how, **fields)
        self._videos[video.id] = video
        return video

    def _permalink(self, video: Video) -> str:
        """A path, as Facebook answers it [S]."""
        if video.kind == "reel":
            return f"/reel/{video.id}/"
        return f"/{self._pages[video.page_id].path}/videos/{video.id}/"

    def _video_fields(self, video: Video) -> dict[str, Callable[[], Any]]:
        movie = read_movie(bytes(video.data)) if video.data else None
        return {"id": lambda: video.id, "description": lambda: video.description or None,
                "title": lambda: video.title or None, "created_time": lambda: graph_time(video.created_at),
                "status": lambda: status_of(video, self.clock.now()), "permalink_url": lambda: self._permalink(video),
                "length": lambda: movie.seconds if movie else None, "published": lambda: video.published,
                "from": lambda: {"id": video.page_id, "name": self._pages[video.page_id].name}}

    # --- Page videos ----------------------------------------------------------------------------

    def _create_video(self, request: Request, page_id: str) -> Response:
        p = request.params
        with self.lock:
            self._page_access(request, page_id)
        if p.get("upload_phase"):
            return self._video_phase(request, page_id, p["upload_phase"].lower())
        if p.get("file_url"):
            data, how = download(p["file_url"]), "file_url"
        elif "source" in request.files:
            data, how = request.files["source"], "source"
        else:
            raise param_error("(#100) One of file_url, source or upload_phase is required")
        with self.lock:
            video = self._new_video(page_id, "video", how, description=p.get("description", ""),
                                    title=p.get("title", ""), file_size=len(data or b""), data=bytearray(data or b""),
                                    published=p.get("published", "true").lower() != "false")
            self._finished(video)
        return Response.json(200, {"id": video.id})

    def _video_phase(self, request: Request, page_id: str, phase: str) -> Response:
        p = request.params
        with self.lock:
            if phase == "start":
                try:
                    size = int(p.get("file_size", ""))
                except ValueError:
                    size = 0
                if size <= 0:
                    raise param_error("(#100) Param file_size must be a positive integer")
                video = self._new_video(page_id, "video", "chunked", file_size=size,
                                        session_id=str(secrets.randbelow(10 ** 15)))
                return Response.json(200, {"video_id": video.id, "upload_session_id": video.session_id,
                                           "start_offset": "0", "end_offset": str(min(size, CHUNK))})
            video = next((v for v in self._videos.values() if v.session_id and v.page_id == page_id
                          and v.session_id == p.get("upload_session_id")), None)
            if video is None:
                raise param_error("(#100) Invalid upload_session_id")
            if phase == "transfer":
                chunk = request.files.get("video_file_chunk")
                if chunk is None or p.get("start_offset") != str(video.received):
                    raise param_error(f"(#100) Send video_file_chunk from start_offset {video.received}",
                                      subcode=1363037)
                if video.received + len(chunk) > video.file_size:
                    raise param_error("(#100) The chunk goes past file_size")
                video.data += chunk
                return Response.json(200, {"start_offset": str(video.received),
                                           "end_offset": str(min(video.file_size, video.received + CHUNK))})
            if phase == "finish":
                if video.received != video.file_size:
                    raise param_error(f"(#100) {video.received} of {video.file_size} bytes were received")
                if video.finished_at is None:
                    video.description, video.title = p.get("description", ""), p.get("title", "")
                    self._finished(video)
                return Response.json(200, {"success": True})
        raise param_error("(#100) Param upload_phase must be one of start, transfer, finish")

    def _video_list(self, request: Request, page_id: str, kind: str = "video") -> Response:
        with self.lock:
            self._read_access(request, page_id)
            videos = [v for v in reversed(list(self._videos.values())) if v.page_id == page_id and v.kind == kind]
        return self._listing(request, videos, lambda v: (self._video_fields(v), "Video"), lambda v: v.created_at)

    # --- Reels ----------------------------------------------------------------------------------

    def _reels(self, request: Request, page_id: str) -> Response:
        p = request.params
        phase = (p.get("upload_phase") or "").lower()
        with self.lock:
            self._page_access(request, page_id)
            if phase == "start":
                video = self._new_video(page_id, "reel", "rupload", published=False)
                version = m.group(1) if (m := _VERSION.match(request.path + "/")) else "v25.0"
                return Response.json(200, {"video_id": video.id, "upload_url":
                                           f"https://rupload.facebook.com/video-upload/{version}/{video.id}"})
            if phase != "finish":
                raise param_error("(#100) Param upload_phase must be one of start, finish")
            video = self._videos.get(p.get("video_id", ""))
            if video is None or video.page_id != page_id or video.kind != "reel":
                raise param_error(f"(#100) Param video_id {p.get('video_id')} is not a Reel of this Page")
            state = (p.get("video_state") or "").upper()
            if state not in VIDEO_STATES:
                raise param_error("(#100) Param video_state must be one of PUBLISHED, DRAFT, SCHEDULED")
            if video.finished_at is not None:
                return Response.json(200, {"success": True})  # [U] finished already: nothing changes
            if not video.file_size or video.received < video.file_size:
                raise param_error(f"(#100) The Reel's upload is not complete ({video.received} bytes received)")
            if state == "PUBLISHED" and self._reels_published(page_id) >= self.reel_limit:
                raise GraphError(f"(#32) Page request limit reached: this Page has published {self.reel_limit} "
                                 "Reels through the API in 24 hours", code=32)  # [U] the code
            video.description, video.finish_state, video.published = p.get("description", ""), state, \
                state == "PUBLISHED"
            self._finished(video)
        return Response.json(200, {"success": True})

    def _reels_published(self, page_id: str) -> int:
        now = self.clock.now()
        return sum(1 for v in self._videos.values() if v.page_id == page_id and v.kind == "reel" and v.published
                   and v.finished_at is not None and now - v.finished_at < REEL_WINDOW)

    def _rupload(self, request: Request, video_id: str) -> Response:
        """A Reel's bytes: a hosted file (`file_url` header), or from `offset` (the bytes
        received so far) to `file_size`."""
        with self.lock:
            token = self._token(request)
            video = self._videos.get(video_id)
            if video is None or video.kind != "reel":
                raise upload_error(f"There is no upload session for video {video_id}")
            if not isinstance(token, PageToken) or token.page_id != video.page_id:
                raise permission_error()
            self._page_access(request, video.page_id)
            if video.finished_at is not None:
                raise upload_error("The upload of this video is finished")
        file_url = request.headers.get("file_url")
        if file_url:
            data = download(file_url)
            if data is None:
                raise upload_error("The file at file_url could not be fetched")
            with self.lock:
                video.data, video.file_size, video.how = bytearray(data), len(data), "rupload file_url"
            return Response.json(200, {"success": True})
        try:
            offset, size = int(request.headers.get("offset", "")), int(request.headers.get("file_size", ""))
        except ValueError:
            raise upload_error("The headers offset and file_size are required") from None
        with self.lock:
            if offset != video.received:
                raise upload_error(f"The offset must be the bytes received so far ({video.received})")
            if video.file_size is not None and size != video.file_size:
                raise upload_error(f"file_size must stay {video.file_size}")
            body = request.raw_body
            if self._cut is not None:
                body, self._cut = body[:self._cut], None
            if offset + len(body) > size:
                raise upload_error("The bytes go past file_size")
            video.file_size = size
            video.data += body
        return Response.json(200, {"success": True})

    def _reel_list(self, request: Request, page_id: str) -> Response:
        return self._video_list(request, page_id, "reel")

    def _status_view(self, video: Video) -> dict:
        """A video as tests read it, its status at the emulator's now."""
        return {"id": video.id, "page_id": video.page_id, "kind": video.kind, "how": video.how,
                "description": video.description, "title": video.title, "file_size": video.file_size,
                "received": video.received, "sha256": hashlib.sha256(bytes(video.data)).hexdigest(),
                "finish_state": video.finish_state, "published": video.published,
                "status": status_of(video, self.clock.now()), "created_at": video.created_at,
                "permalink_url": self._permalink(video)}
