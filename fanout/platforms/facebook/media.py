"""Facebook's media steps (docs/platforms.md#facebook): photos made unpublished, to be
attached to one feed post; a video fetched once to read which it is (video.py), then a
Page video (`POST /{page-id}/videos` by `file_url`, on graph-video.facebook.com) or a Reel
(`video_reels` start, its bytes to the rupload URL, finish); either read back
(`GET /{video-id}?fields=status`) on the usual schedule until Facebook has published it.

Never twice (docs/architecture.md#never-twice): each creating call is preceded by a saved
marker (`creating`, with `sent_at`). An unpublished photo, or a Reel started and never
finished, is never shown on the Page: one whose answer was lost is simply made again. A
Page video whose answer was lost is looked for among the Page's videos before it is sent
again; a Reel's finish, in the Reel's status. A Reel's upload cut short goes on from the
bytes Facebook says it has (`uploading_phase.bytes_transferred`), never from the start.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from ...target_errors import MEDIA, RATE, UNKNOWN
from ..base import Done, Outcome, Result, Stop, Wait, failed
from ..contract import UnusableAnswer, identifier, may_be_out, member, on_hosts, one_of
from ..graph_errors import GRAPH_ID
from ..graph_lookup import platform_time
from ..mapping import number, scrub
from ..polling import next_check
from ..steps import ThreadSteps
from ..transfer import Stream
from .errors import Answer
from .lookup import find_video, listed
from .oauth import HOSTS, TITLE
from .rules import RULES
from .video import frame, is_reel

VIDEO_STATUSES = ("uploading", "upload_complete", "processing", "ready", "error", "expired")
# A video being processed is read again at most this far apart, for at most PROCESSING.
POLL = _dt.timedelta(seconds=30)
PROCESSING = _dt.timedelta(hours=1)
# "30 API-published Reels per Page per moving 24 hours" [C].
REELS_A_DAY, DAY = 30, _dt.timedelta(hours=24)


def on_facebook(permalink: Any) -> str | None:
    """A `permalink_url` Facebook answered as a URL of www.facebook.com (a video's is a path
    [S]); None when it is not one."""
    if isinstance(permalink, str) and permalink.startswith("/") and not permalink.startswith("//"):
        return f"https://www.facebook.com{permalink}"
    if isinstance(permalink, str) and permalink.startswith("https://www.facebook.com/"):
        return permalink
    return None


def phase(status: Mapping[str, Any], name: str) -> Any:
    """The `status` of one phase of a video's status (`processing_phase`...), None if unsaid."""
    found = status.get(name)
    return found.get("status") if isinstance(found, Mapping) else None


def finished(status: Mapping[str, Any]) -> bool:
    """Whether a Reel's status says its finish went through (processing or publishing begun)."""
    return status.get("video_status") in ("processing", "ready", "error") or any(
        phase(status, name) not in (None, "not_started") for name in ("processing_phase", "publishing_phase"))


def counted(reel: Mapping[str, Any]) -> bool:
    """Whether a Reel listed counts against the day's: one finished and not failed."""
    status = reel.get("status")
    if not isinstance(status, Mapping):
        return True
    return status.get("video_status") != "error" and finished(status)


class MediaSteps(ThreadSteps):
    """The post's media (see the module's docstring). State keys (all JSON): `photos`: the
    unpublished photos made, in the media's order; `video`: {kind ("reel" or "video"),
    size, id, upload_url, sending (bytes may be in flight), uploaded, finished, since (when
    processing began)}. The adapter (adapter.py) offers `get`, `post`, `creating`, `page`,
    `video_api` and `out`."""

    rules = RULES
    page: str
    video_api: str
    get: Callable[..., Mapping[str, Any]]
    post: Callable[..., Mapping[str, Any]]
    creating: Callable[..., Mapping[str, Any]]

    # -- photos

    def unpublished_photos(self) -> list[str]:
        """The post's photos, made unpublished (each fetched first: checked before Facebook
        fetches it)."""
        photos = self.state.setdefault("photos", [])
        if str(self.state.get("creating", "")).startswith("photo:"):
            del self.state["creating"]  # never shown on the Page: made again
        for index in range(len(photos), len(self.part.media)):
            item = self.part.media[index]
            self.fetch(item, f"media[{index}]", whole=False)
            alt = RULES.alt_text_of(item)
            params = {"url": item["url"], "published": "false", **({"alt_text_custom": alt} if alt else {})}
            body = self.creating(f"photo:{index}", lambda: self.post(f"{self.page}/photos", "the photo", params,
                                                                     upload=True))
            photos.append(identifier(body, "id", "the photo", GRAPH_ID))
            self.saved()
        return photos

    # -- a video: which, then a Page video or a Reel

    def video_part(self) -> Result | None:
        video = self.state.get("video")
        if video is None:
            with self.fetch(self.part.media[0], "media[0]") as media:
                kind = "reel" if is_reel(media.info, frame(media.file)) else "video"
                video = self.state["video"] = {"kind": kind, "size": media.info.size}
                if kind == "reel":
                    self.start_reel(video)
                    self.upload_reel(video, media)
            return self.finish_reel(video) if kind == "reel" else self.page_video(video)
        return self.reel(video) if video["kind"] == "reel" else self.page_video(video)

    def page_video(self, video: dict) -> Result | None:
        if video.get("id"):
            return self.until_published(video)
        what, description = "the video", self.part.caption
        if self.state.get("creating") == "video":
            found = find_video(self.get, self.page, self.sent_at, description)
            if found is not None:
                return self.processing(video, found["id"])
            del self.state["creating"]  # not among the Page's videos: it was never made
        try:
            body = self.creating("video", lambda: self.post(f"{self.page}/videos", what, {
                "file_url": self.part.media[0]["url"], "description": description, "published": "true"},
                url=self.video_api, upload=True))
            video_id = identifier(body, "id", what, GRAPH_ID)
        except UnusableAnswer as e:
            video_id = self.read_back(e, lambda: (find_video(self.get, self.page, self.sent_at, description)
                                                  or {}).get("id"))
        return self.processing(video, video_id)

    def processing(self, video: dict, video_id: str) -> Result | None:
        self.state.pop("creating", None)
        video["id"], video["since"] = video_id, self.step.now().isoformat()
        self.saved()
        return self.until_published(video)

    def reel(self, video: dict) -> Result | None:
        if video.get("finished"):
            return self.until_published(video)
        creating = self.state.get("creating")
        if creating == "reel_finish":
            status = self.status(video)
            if finished(status):
                return self.reel_finished(video)
            del self.state["creating"]  # not finished: finish it now
        elif creating == "reel_start":
            del self.state["creating"]  # never finished, never shown: started again
        if not video.get("id") or not video.get("uploaded"):
            with self.fetch(self.part.media[0], "media[0]") as media:
                if media.info.size != video["size"]:
                    raise Stop(failed(UNKNOWN, f"media[0] changed while it was being uploaded to {TITLE} "
                                               f"({video['size']} bytes, now {media.info.size}): post it again"))
                if not video.get("id"):
                    self.start_reel(video)
                self.upload_reel(video, media)
        return self.finish_reel(video)

    def start_reel(self, video: dict) -> None:
        self.check_reels()
        what = "the Reel's start"
        body = self.creating("reel_start", lambda: self.post(f"{self.page}/video_reels", what,
                                                            {"upload_phase": "start"}))
        video["id"] = identifier(body, "video_id", what, GRAPH_ID)
        video["upload_url"] = on_hosts(body.get("upload_url"), HOSTS, what, "an upload URL")
        video.pop("uploaded", None)
        self.saved()

    def upload_reel(self, video: dict, media) -> None:
        """The Reel's bytes, from those Facebook has (after a cut) to the last."""
        size = video["size"]
        offset = self.received(video) if video.get("sending") else 0
        if offset < size:
            video["sending"] = True
            self.saved()
            media.file.seek(offset)
            body = self.call("POST", video["upload_url"], "the Reel's upload", token="", upload=True,
                             special=self.upload_refused, data=Stream(media.file, size - offset), headers={
                                 "Authorization": f"OAuth {self.job.access_token}", "offset": str(offset),
                                 "file_size": str(size), "Content-Type": "application/octet-stream",
                                 "Content-Length": str(size - offset)})
            if body.get("success") is not True:
                raise UnusableAnswer("the Reel's upload without success true")
        video.pop("sending", None)
        video["uploaded"] = True
        self.saved()

    def upload_refused(self, response, answer) -> None:
        """rupload's refusal in its own words (`{"debug_info": {"retriable", "message"}}`):
        one it says is retriable is tried again, from the bytes Facebook has; another is the
        file's."""
        body = response.json()
        info = body.get("debug_info") if isinstance(body, dict) else None
        if not isinstance(info, dict):
            return
        words = scrub(str(info.get("message") or answer.raw), self.job.access_token)
        if info.get("retriable") is True:
            raise Stop(self.retry(f"{TITLE} asks for the Reel's upload again: {words}"))
        raise Stop(failed(MEDIA, f"{TITLE} refused media[0]'s upload: {words}"))

    def received(self, video: dict) -> int:
        """The bytes of the Reel Facebook has."""
        what = "the Reel's status"
        uploading = self.status(video).get("uploading_phase")
        count = number(uploading.get("bytes_transferred")) if isinstance(uploading, Mapping) else None
        if count is None or count < 0:
            raise UnusableAnswer(f"{what} without its uploading_phase.bytes_transferred")
        return min(count, video["size"])

    def finish_reel(self, video: dict) -> Result | None:
        what = "the Reel's finish"
        params = {"upload_phase": "finish", "video_id": video["id"], "video_state": "PUBLISHED",
                  **({"description": self.part.caption} if self.part.caption else {})}
        try:
            body = self.creating("reel_finish", lambda: self.post(f"{self.page}/video_reels", what, params))
            if body.get("success") is not True:
                raise UnusableAnswer(f"{what} without success true")
        except UnusableAnswer as e:
            self.read_back(e, lambda: finished(self.status(video)) or None,
                           missing="its status says it was not finished, so nothing was published")
        return self.reel_finished(video)

    def reel_finished(self, video: dict) -> Result | None:
        self.state.pop("creating", None)
        video["finished"], video["since"] = True, self.step.now().isoformat()
        self.saved()
        return self.until_published(video)

    def check_reels(self) -> None:
        """Stops with platform_rate_limited when the Page has published its day's Reels, as
        the Page's Reels listed say (a failed read says nothing: Facebook counts too)."""
        since = self.now - DAY
        try:
            reels = listed(self.get, f"{self.page}/video_reels", "the Page's Reels", since, "id,created_time,status")
        except (Stop, UnusableAnswer):
            return
        made = sum(1 for reel in reels
                   if (platform_time(reel.get("created_time")) or self.now) > since and counted(reel))
        if made >= REELS_A_DAY:
            raise Stop(failed(RATE, f"{TITLE} publishes at most {REELS_A_DAY} Reels per Page in 24 hours through its "
                                    f"API, and this Page published {made}"))

    # -- until Facebook has published it

    def status(self, video: dict) -> Mapping[str, Any]:
        body = self.get(quote(video["id"], safe=""), "the video's status", fields="status")
        return member(body, "status", "the video's status")

    def until_published(self, video: dict) -> Result | None:
        what = "the video's status"
        try:
            body = self.get(quote(video["id"], safe=""), what, fields="status,permalink_url")
        except Stop as stop:
            if not isinstance(stop.result, Done):
                raise  # read again later
            # Facebook took the video: refused now, whatever the reason, it may be out.
            raise Stop(failed(UNKNOWN, f"{TITLE} took media[0] but refused to say how it went "
                                       f"({stop.result.outcome.error_message}); {may_be_out(TITLE)}")) from None
        status = member(body, "status", what)
        state = one_of(status.get("video_status"), VIDEO_STATUSES, what, "video_status")
        phases = {name: phase(status, name) for name in ("processing_phase", "publishing_phase")}
        if state in ("error", "expired") or "error" in phases.values():
            raise Stop(self.refused_video(video, status, state))
        if state == "ready" and phases["publishing_phase"] in (None, "complete"):
            return self.out(video["id"], self.video_permalink(video, body.get("permalink_url")))
        since = _dt.datetime.fromisoformat(video["since"])
        deadline = since + PROCESSING
        if self.now >= deadline:
            raise Stop(failed(UNKNOWN, f"{TITLE} did not finish processing media[0] within an hour (its status: "
                                       f"{state}); {may_be_out(TITLE)}"))
        return Wait(until=next_check(since, self.now, most=POLL, deadline=deadline), state=self.snapshot())

    def refused_video(self, video: dict, status: Mapping[str, Any], state: str) -> Done:
        processing = status.get("processing_phase") if isinstance(status.get("processing_phase"), Mapping) else {}
        errors = [e.get("message") for e in processing.get("errors") or () if isinstance(e, Mapping)]
        words = "; ".join(w for w in errors if isinstance(w, str)) or f"video_status {state}"
        answer = Answer(raw=scrub(f"video {video['id']}: video_status {state}, {words}"), video_status=state,
                        message=scrub(words))
        outcome = self.outcome_of(answer)[1]
        if outcome.error_code == MEDIA:
            outcome = Outcome(error_code=MEDIA, error_message=f"{TITLE} could not use media[0]: {answer.message}")
        return Done(outcome)

    def video_permalink(self, video: dict, permalink: Any) -> str:
        """Facebook's `permalink_url`, or the URL of its kind."""
        if found := on_facebook(permalink):
            return found
        if video["kind"] == "reel":
            return f"https://www.facebook.com/reel/{video['id']}"
        return f"https://www.facebook.com/{self.job.user_id}/videos/{video['id']}/"

    def out(self, object_id: str, permalink: str) -> Result | None:
        raise NotImplementedError

    @property
    def sent_at(self) -> _dt.datetime:
        return _dt.datetime.fromisoformat(self.state.get("sent_at") or self.now.isoformat())
