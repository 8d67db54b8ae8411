"""Bluesky's media steps (docs/platforms.md#bluesky): each image fetched once (checked as it
streams) and uploaded to the PDS (`uploadBlob`); a video sent to the video service
(video.bsky.app, with a service token the PDS makes) and its job read back, a scheduled step
at a time, until it is done and names its blob. The part's embed is saved once made."""
from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ...target_errors import UNKNOWN
from ..base import Outcome, Result, Wait
from ..contract import UnusableAnswer, identifier, member
from ..mapping import scrub
from ..polling import next_check
from ..steps import Steps
from .errors import Answer
from .identity import TITLE

VIDEO = "video.bsky.app"
# A video token may be asked for an hour at most; uploads take well under that.
SERVICE_TOKEN = _dt.timedelta(minutes=30)
VIDEO_CHECK_MOST = _dt.timedelta(seconds=30)
VIDEO_WINDOW = _dt.timedelta(minutes=30)  # a job not done by then fails the target
JOB_ID = re.compile(r"[A-Za-z0-9._:~-]{1,256}")


class MediaSteps(Steps):
    """The embed of the part being written (`index`; fanout/platforms/bluesky/adapter.py has
    the sequence): in the part's state, `embed` once made, `video`: {job, since, aspect?}
    while the video service works on it."""

    index = 0

    def embed(self, part: dict, media: tuple) -> Result | None:
        """The part's embed in its state, uploaded now; a Wait while a video is processed."""
        if media[0].get("type") == "video":
            return self.video(part, media[0])
        images = []
        for number_, item in enumerate(media):
            with self.fetch(item, self.label(number_)) as fetched:
                blob = self.upload_image(fetched)
                info = fetched.info
            image = {"image": blob, "alt": self.rules.alt_text_of(item) or ""}
            if info.width and info.height:
                image["aspectRatio"] = {"width": info.width, "height": info.height}
            images.append(image)
        part["embed"] = {"$type": "app.bsky.embed.images", "images": images}
        self.saved()
        return None

    def label(self, number_: int) -> str:
        return f"media[{number_}]" if self.index == 0 else f"thread part {self.index + 1} media[{number_}]"

    def upload_image(self, media) -> dict:
        body = self.call("POST", "/xrpc/com.atproto.repo.uploadBlob", "the image's upload",
                         data=media.file.read(), headers={"Content-Type": media.info.mime})
        blob = member(body, "blob", "the image's upload")
        if blob.get("$type") != "blob":
            raise UnusableAnswer("the image's upload with a blob whose $type is not blob")
        return dict(blob)

    def video(self, part: dict, item: Mapping[str, str]) -> Result | None:
        """Send the video to the video service once, then read its job until it names the blob."""
        video = part.get("video")
        if video is None:
            with self.fetch(item, self.label(0)) as media:
                status, aspect = self.upload_video(media), None
                if media.info.width and media.info.height:
                    aspect = {"width": media.info.width, "height": media.info.height}
            video = part["video"] = {"job": status.get("jobId"), "since": self.now.isoformat()}
            if aspect:
                video["aspect"] = aspect
            self.saved()
        else:
            status = self.job_status(video["job"])
        if status.get("state") == "JOB_STATE_FAILED" or (status.get("error") and not status.get("blob")):
            answer = Answer(raw=scrub(json.dumps(status)), error=status.get("error"), job_error=status.get("error"),
                            message=scrub(str(status.get("message") or "")), text=str(status.get("message")).lower())
            raise self.fail(self.outcome_of(answer)[1])
        blob = status.get("blob")
        if isinstance(blob, dict):
            embed = {"$type": "app.bsky.embed.video", "video": blob, "alt": self.rules.alt_text_of(item) or ""}
            if video.get("aspect"):
                embed["aspectRatio"] = video["aspect"]
            part["embed"] = embed
            part.pop("video", None)
            self.saved()
            return None
        since = _dt.datetime.fromisoformat(video["since"])
        if self.now >= since + VIDEO_WINDOW:
            raise self.fail(Outcome(error_code=UNKNOWN, error_message=f"{TITLE}'s video service did not finish "
                                                                       f"the video in 30 minutes"))
        return Wait(until=next_check(since, self.now, most=VIDEO_CHECK_MOST, deadline=since + VIDEO_WINDOW),
                    state=self.snapshot())

    def upload_video(self, media) -> dict:
        pds_host = urlsplit(self.state["pds"]).hostname
        what = "the service token"
        token = self.call("GET", "/xrpc/com.atproto.server.getServiceAuth", what, params={
            "aud": f"did:web:{pds_host}", "lxm": "com.atproto.repo.uploadBlob",
            "exp": str(int((self.now + SERVICE_TOKEN).replace(tzinfo=_dt.timezone.utc).timestamp()))}).get("token")
        if not isinstance(token, str) or not token:
            raise UnusableAnswer(f"{what} without its token")
        what = "the video's upload"
        body = self.call("POST", f"https://{VIDEO}/xrpc/app.bsky.video.uploadVideo", what,
                         params={"did": self.job.user_id, "name": f"{self.job.target_id}-{self.index}.mp4"},
                         data=media.file, headers={"Content-Type": "video/mp4"}, token=token, special=_already_had)
        # The Lexicon wraps the job in `jobStatus`; the service has answered it flat too.
        status = body.get("jobStatus") if isinstance(body.get("jobStatus"), dict) else body
        if not isinstance(status.get("blob"), dict):
            identifier(status, "jobId", what, JOB_ID)
        return dict(status)

    def job_status(self, job_id: str) -> dict:
        what = "the video's job status"
        body = self.call("GET", f"https://{VIDEO}/xrpc/app.bsky.video.getJobStatus", what,
                         params={"jobId": job_id}, token="")
        # Its states are not checked: the Lexicon says an unknown one is still in progress.
        return dict(member(body, "jobStatus", what))

    def fail(self, outcome: Outcome) -> Exception:
        """How a failure of the part ends the step (the sequence names the part)."""
        raise NotImplementedError


def _already_had(response, answer) -> Any:
    """The video service has this video already: its 409 names the blob."""
    body = response.json()
    return body if response.status == 409 and isinstance(body, dict) and isinstance(body.get("blob"), dict) else None
