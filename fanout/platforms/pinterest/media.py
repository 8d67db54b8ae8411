"""A video Pin's media (docs/platforms.md#pinterest): the file fetched once (checked as it
streams), registered (`POST /v5/media {"media_type": "video"}`), sent to the upload store
Pinterest names (an S3 browser POST: every `upload_parameters` pair as a form field, the
file last [C]), then read back (`GET /v5/media/{id}`), a scheduled step at a time, until
Pinterest has processed it (`succeeded`) [C].

Registering twice makes no Pin, so nothing is saved before it; the media id is saved once
its bytes are in, and the upload's signed parameters never are (they let anyone write to
that upload)."""
from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping

from ...target_errors import MEDIA, UNKNOWN
from ..base import Stop, failed
from ..contract import UnusableAnswer, identifier, member, on_hosts, one_of
from ..mapping import scrub
from ..polling import next_check
from ..steps import Steps
from ..transfer import READ_BLOCK
from .boards import API, TITLE
from .errors import PINTEREST_ID, Answer

UPLOAD_HOSTS = ("pinterest-media-upload.s3-accelerate.amazonaws.com",)
STATUSES = ("registered", "processing", "succeeded", "failed")
# Read again on the schedule of fanout/platforms/polling.py, at most this far apart, for at
# most PROCESSING_WINDOW [U choice: Pinterest states no processing time].
CHECK_MOST = _dt.timedelta(seconds=15)
PROCESSING_WINDOW = _dt.timedelta(minutes=30)


class FormBody:
    """A multipart/form-data body of text `fields` and then one file, streamed from the file
    as requests sends it (a video of 2 GB is never in memory whole); its length is known."""

    def __init__(self, boundary: str, fields: Mapping[str, str], name: str, filename: str, mime: str, file,
                 size: int):
        dash = f"--{boundary}\r\n"
        head = "".join(f'{dash}Content-Disposition: form-data; name="{_quoted(k)}"\r\n\r\n{v}\r\n'
                       for k, v in fields.items())
        head += (f'{dash}Content-Disposition: form-data; name="{_quoted(name)}"; filename="{_quoted(filename)}"\r\n'
                 f"Content-Type: {mime}\r\n\r\n")
        self.content_type = f"multipart/form-data; boundary={boundary}"
        self._pieces = [head.encode("utf-8"), (file, size), f"\r\n--{boundary}--\r\n".encode("ascii")]
        self._length = len(self._pieces[0]) + size + len(self._pieces[2])

    def __len__(self) -> int:
        return self._length

    def read(self, size: int = -1) -> bytes:
        size = READ_BLOCK if size is None or size < 0 else min(size, READ_BLOCK)
        while self._pieces:
            piece = self._pieces[0]
            if isinstance(piece, bytes):
                data, rest = piece[:size], piece[size:]
                self._pieces[0] = rest
            else:
                file, left = piece
                data = file.read(min(size, left)) if left else b""
                self._pieces[0] = (file, left - len(data))
                if left and not data:
                    raise OSError("the fetched video ended before its size")  # our spool, not Pinterest
            if data:
                return data
            self._pieces.pop(0)
        return b""


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


class VideoSteps(Steps):
    """The video of a Pin; its saved form `state["video"]`: {id, since, check_at?, ready?}."""

    def upload_video(self, item: Mapping[str, str]) -> None:
        with self.fetch(item, "media[0]") as media:
            what = "the video's registration"
            body = self.call("POST", f"{API}/media", what, json_body={"media_type": "video"}, accepted=(200, 201))
            media_id = identifier(body, "media_id", what, PINTEREST_ID)
            url = on_hosts(body.get("upload_url"), UPLOAD_HOSTS, what, "an upload URL")
            parameters = member(body, "upload_parameters", what)
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in parameters.items()):
                raise UnusableAnswer(f"{what} with upload_parameters that are not all strings")
            form = FormBody(f"fanout-{self.job.target_id}-{media_id}", parameters, "file",
                            "video." + ("mov" if media.info.format == "mov" else "mp4"), media.info.mime,
                            media.file, media.info.size)
            self.call("POST", url, None, token="", upload=True, accepted=(200, 201, 204), data=form,
                      headers={"Content-Type": form.content_type, "Content-Length": str(len(form))})
        self.state["video"] = {"id": media_id, "since": self.step.now().isoformat()}
        self.saved()

    def until_processed(self) -> _dt.datetime | None:
        """None once Pinterest has processed the video; when to read it again otherwise."""
        video = self.state["video"]
        if video.get("ready"):
            return None
        if video.get("check_at") and _dt.datetime.fromisoformat(video["check_at"]) > self.now:
            return _dt.datetime.fromisoformat(video["check_at"])
        since = _dt.datetime.fromisoformat(video["since"])
        what = "the video's status"
        body = self.call("GET", f"{API}/media/{video['id']}", what)
        status = one_of(body.get("status"), STATUSES, what)
        if status == "succeeded":
            video["ready"], video["check_at"] = True, None
            return None
        if status == "failed":
            answer = Answer(raw=scrub(str(body)), media_status=status, message="the video could not be processed")
            outcome = self.outcome_of(answer)[1]
            raise Stop(failed(outcome.error_code or MEDIA, f"{TITLE} could not process media[0] (its status: failed)"))
        if self.now >= since + PROCESSING_WINDOW:
            raise Stop(failed(UNKNOWN, f"{TITLE} did not finish processing media[0] in 30 minutes (its status: "
                                       f"{status})"))
        video["check_at"] = next_check(since, self.now, most=CHECK_MOST, deadline=since + PROCESSING_WINDOW).isoformat()
        return _dt.datetime.fromisoformat(video["check_at"])


__all__ = ["FormBody", "UPLOAD_HOSTS", "VideoSteps"]
