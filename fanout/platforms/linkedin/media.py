"""LinkedIn's media steps (docs/platforms.md#linkedin): each file fetched once (checked as it
streams) and uploaded, an image through the Images API (initialize, then one PUT of the
bytes to the upload URL it names), a video through the Videos API (initialize, a PUT of
each part keeping its ETag, finalize with the ETags in order); then read back
(`GET /rest/images/{urn}`, `/rest/videos/{urn}`), a scheduled step at a time, until LinkedIn
has processed it (AVAILABLE)."""
from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ...target_errors import MEDIA, UNKNOWN
from ..base import Job, Stop, failed
from ..contract import UnusableAnswer, document, identifier, member, on_hosts, one_of
from ..http import PlatformResponse
from ..mapping import number, scrub
from ..polling import next_check
from ..steps import Steps
from .errors import Answer
from .oauth import TITLE

HOSTS = ("www.linkedin.com", "api.linkedin.com")
REST = "https://api.linkedin.com/rest"
# Media being processed is read again on the schedule of fanout/platforms/polling.py, at
# most this far apart, for at most MEDIA_WINDOW.
CHECK_MOST = _dt.timedelta(seconds=30)
MEDIA_WINDOW = _dt.timedelta(minutes=30)
# A member token may not be allowed to read its media back (403): posted after this.
UNREADABLE_GRACE = {"image": _dt.timedelta(seconds=5), "video": _dt.timedelta(seconds=60)}
MEDIA_STATUSES = ("WAITING_UPLOAD", "PROCESSING", "AVAILABLE", "PROCESSING_FAILED")


def urn(kinds: str) -> re.Pattern:
    """The shape of a URN of one of `kinds` (`share|ugcPost`), as LinkedIn names its entities."""
    return re.compile(rf"urn:li:(?:{kinds}):[0-9A-Za-z_-]{{1,128}}")


def author(job: Job) -> str:
    return f"urn:li:person:{job.user_id}"


class MediaSteps(Steps):
    """The post's media; each item's saved form: {kind, urn?, upload?, parts?, token?, etags,
    uploaded?, since?, check_at?, ready?, unreadable?} (`upload` an image's URL, `parts` a
    video's [url, first byte, last byte], `etags` those of the parts sent)."""

    def upload(self, index: int, item: dict) -> None:
        with self.fetch(self.job.media[index], f"media[{index}]") as media:
            if item["kind"] == "video":
                self.upload_video(item, media)
            else:
                self.upload_image(item, media)
        item["uploaded"], item["since"] = True, self.now.isoformat()
        self.saved()

    def upload_image(self, item: dict, media) -> None:
        if not item.get("urn"):
            what = "the image upload's initialize"
            value = self.initialize("images", {"owner": author(self.job)}, what)
            item["urn"] = identifier(value, "image", what, urn("image"))
            item["upload"] = on_hosts(value.get("uploadUrl"), HOSTS, what, "an upload URL")
            self.saved()
        self.put(item["upload"], media.file.read(), media.info.mime)

    def upload_video(self, item: dict, media) -> None:
        if not item.get("urn"):
            what = "the video upload's initialize"
            value = self.initialize("videos", {"owner": author(self.job), "fileSizeBytes": media.info.size,
                                               "uploadCaptions": False, "uploadThumbnail": False}, what)
            item["urn"] = identifier(value, "video", what, urn("video"))
            item["token"] = value.get("uploadToken") or ""
            item["parts"] = self.parts(value.get("uploadInstructions"), media.info.size, what)
            self.saved()
        for url, first, last in item["parts"][len(item["etags"]):]:
            media.file.seek(first)
            response = self.put(url, media.file.read(last - first + 1), "application/octet-stream")
            etag = {k.lower(): v for k, v in response.headers.items()}.get("etag")
            if not etag:
                raise UnusableAnswer("a part of the video without its ETag")
            item["etags"].append(etag)
            self.saved()
        self.call("POST", f"{REST}/videos", params={"action": "finalizeUpload"}, upload=True, json_body={
            "finalizeUploadRequest": {"video": item["urn"], "uploadToken": item["token"],
                                      "uploadedPartIds": item["etags"]}})

    def initialize(self, kind: str, request: dict, what: str) -> Mapping[str, Any]:
        response = self.call("POST", f"{REST}/{kind}", params={"action": "initializeUpload"}, upload=True,
                             json_body={"initializeUploadRequest": request})
        return member(document(response, what, self.job.access_token), "value", what)

    @staticmethod
    def parts(instructions: Any, size: int, what: str) -> list:
        """[url, first byte, last byte] of each part LinkedIn asks for: on its hosts, in order,
        covering the file from its first byte to its last."""
        if not isinstance(instructions, list) or not instructions:
            raise UnusableAnswer(f"{what} without its uploadInstructions")
        parts, expected = [], 0
        for instruction in instructions:
            instruction = instruction if isinstance(instruction, Mapping) else {}
            first, last = number(instruction.get("firstByte")), number(instruction.get("lastByte"))
            if first != expected or last is None or last < first or last >= size:
                raise UnusableAnswer(f"{what} with parts that do not cover the video's {size} bytes in order")
            parts.append([on_hosts(instruction.get("uploadUrl"), HOSTS, what, "an upload URL"), first, last])
            expected = last + 1
        if expected != size:
            raise UnusableAnswer(f"{what} with parts that do not cover the video's {size} bytes in order")
        return parts

    def put(self, url: Any, data: bytes, content_type: str) -> PlatformResponse:
        """A PUT of bytes to an upload URL LinkedIn named, which must be one of its hosts."""
        url = on_hosts(url, HOSTS, "the upload's initialize", "an upload URL")
        return self.call("PUT", url, upload=True, data=data, headers={"Content-Type": content_type})

    def until_ready(self, item: dict) -> _dt.datetime | None:
        """None once LinkedIn has processed the item; when to read it again otherwise."""
        if item.get("ready"):
            return None
        since = _dt.datetime.fromisoformat(item["since"])
        if item.get("check_at") and _dt.datetime.fromisoformat(item["check_at"]) > self.now:
            return _dt.datetime.fromisoformat(item["check_at"])
        if item.get("unreadable"):
            item["ready"] = True  # its grace is over
            return None
        kind = "images" if item["kind"] != "video" else "videos"
        response = self.call("GET", f"{REST}/{kind}/{quote(item['urn'], safe='')}", special=_unreadable)
        if response.status == 403:
            # This member's token may not read its media back: LinkedIn processes an image
            # in seconds; post after a grace.
            item["unreadable"] = True
            item["check_at"] = (since + UNREADABLE_GRACE[item["kind"]]).isoformat()
            return max(_dt.datetime.fromisoformat(item["check_at"]), self.now)
        what = f"the status of media[{self.index(item)}]"
        body = document(response, what, self.job.access_token)
        status = one_of(body.get("status"), MEDIA_STATUSES, what)
        if status == "AVAILABLE":
            item["ready"], item["check_at"] = True, None
            return None
        if status == "PROCESSING_FAILED":
            reason = body.get("processingFailureReason") or "processing failed"
            answer = Answer(raw=scrub(str(body)), media_status=status, message=scrub(str(reason)))
            outcome = self.outcome_of(answer)[1]
            raise Stop(failed(outcome.error_code or MEDIA, f"{TITLE} could not process media[{self.index(item)}]: "
                                                          f"{answer.message}"))
        if self.now >= since + MEDIA_WINDOW:
            raise Stop(failed(UNKNOWN, f"{TITLE} did not finish processing media[{self.index(item)}] in 30 minutes "
                                       f"(its status: {status})"))
        item["check_at"] = next_check(since, self.now, most=CHECK_MOST, deadline=since + MEDIA_WINDOW).isoformat()
        return _dt.datetime.fromisoformat(item["check_at"])

    def index(self, item: dict) -> int:
        return self.state["media"].index(item)


def _unreadable(response: PlatformResponse, answer) -> PlatformResponse | None:
    """A 403 to a read of media back: this token may not read it (not a refusal)."""
    return response if response.status == 403 else None
