"""`videos.insert` by Google's resumable protocol (docs/platforms.md#the-youtube-adapter): a
session started with the video's metadata, whose URI (`Location`) is saved before the first
byte; the fetched file sent in chunks of 8 MiB (a multiple of 256 KiB [C]), each PUT with
its `Content-Range` and answered `308` with the bytes YouTube holds (`Range`), the next
chunk starting there; the last answered with the video.

Never a second video: a step that finds a session saved asks it what it holds (a PUT of
`Content-Range: bytes */<size>`) and goes on from the byte it names, or takes the video it
answers when the upload was complete; only a session YouTube no longer knows (404) is
started again [C]. A session started but never saved (its answer lost) has no byte, so it
never makes a video.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from ...target_errors import DOWNLOAD
from ..base import Stop, failed
from ..contract import UnusableAnswer, document, identifier, may_be_out, on_hosts
from ..steps import Steps
from ..transfer import held
from .oauth import TITLE
from .text import title_of

UPLOAD_URL = "https://www.googleapis.com/upload/youtube/v3/videos"
SESSION_HOSTS = ("www.googleapis.com",)
UNIT = 256 * 1024
CHUNK = 32 * UNIT  # 8 MiB
TAKEN = (200, 201, 308)  # a chunk kept (308), the last one (201; 200 when asked again)
SHORT_SECONDS = 180  # a vertical or square video up to 3 minutes is a Short [C]
HASH_BLOCK = 1024 * 1024
VIDEO_ID = re.compile(r"[0-9A-Za-z_-]{11}")  # a video's id: 11 characters [C]


class _Gone(Exception):
    """YouTube no longer knows the upload session (404): it may be started again."""


class ResumableUpload(Steps):
    """The video's upload. State keys: `session` (its URI), `size` and `sha256` of the file it
    was started for, `short` (whether the video is a Short, by what the fetch read)."""

    def upload(self) -> Mapping[str, Any]:
        """The video resource YouTube answered the upload's last byte with, the upload
        started or resumed as the saved state says."""
        found = self.ask() if self.state.get("session") else None
        if isinstance(found, Mapping):
            return found
        with self.fetch(self.job.media[0], "media[0]") as media:
            digest = sha256(media.file)
            if found is not None and (media.info.size, digest) != (self.state["size"], self.state["sha256"]):
                raise Stop(failed(DOWNLOAD, "media[0] is not the file this video's upload was started with (its bytes "
                                            "changed since): the upload cannot be finished; post it again"))
            if found is None:
                self.begin(media, digest)
                found = 0
            try:
                return self.send_file(media, found)
            except _Gone:
                # Only a session YouTube no longer knows is started again: the next step does.
                self.forget()
                raise Stop(self.retry(f"{TITLE} no longer knows the upload session; a new one is started")) from None

    def begin(self, media, digest: str) -> None:
        """Start a session with the video's metadata; its URI saved before any byte goes."""
        self.check_quota()
        response = self.call("POST", UPLOAD_URL, None, params={"uploadType": "resumable", "part": "snippet,status"},
                             json_body=self.metadata(), headers={"X-Upload-Content-Length": str(media.info.size),
                                                                "X-Upload-Content-Type": media.info.mime})
        try:
            session = on_hosts(_header(response, "location"), SESSION_HOSTS, "the upload's start", "a session URI")
        except UnusableAnswer as e:
            raise e.after("no byte was sent to it, so no video was made") from None
        self.state.update(session=session, size=media.info.size, sha256=digest, short=is_short(media.info))
        self.saved()

    def metadata(self) -> dict:
        """The video resource's snippet and status, from the caption and the options
        (openapi.yaml `YoutubeOptions`)."""
        options = self.job.options
        snippet = {"title": title_of(self.job.caption, options), "description": self.job.caption,
                   "categoryId": self.step.settings.of("youtube").category_id}
        if options.get("tags"):
            snippet["tags"] = list(options["tags"])
        return {"snippet": snippet, "status": {"privacyStatus": self.requested_privacy,
                                               "selfDeclaredMadeForKids": bool(options.get("made_for_kids", False))}}

    @property
    def requested_privacy(self) -> str:
        return self.job.options.get("privacy_status") or "public"

    def send_file(self, media, first: int) -> Mapping[str, Any]:
        """The file's bytes from `first` on, chunk after chunk, each from the byte YouTube
        says it wants; the video its last one is answered with."""
        size, start = media.info.size, first

        def next_byte(response) -> int | None:
            nonlocal start
            if response.status != 308:
                return None
            at = self.wanted(response)
            if at <= start:  # YouTube kept nothing of the chunk: ask again later
                raise Stop(self.retry(f"{TITLE} kept none of the bytes from {start} on"))
            start = at
            return at

        response = self.put_resumable(self.state["session"], media.file, size, first, chunk_size=CHUNK,
                                      next_byte=next_byte, mime=media.info.mime, accepted=TAKEN, special=_gone,
                                      token=None)
        try:
            return self.video(response)
        except UnusableAnswer as error:
            return self.read_back(error, self.complete, missing="the upload was not complete, so no video was made")

    def ask(self) -> Mapping[str, Any] | int | None:
        """What the saved session holds: the video (the upload was complete), the next byte
        to send, or None when YouTube no longer knows it (started again)."""
        try:
            response = self.call("PUT", self.state["session"], None, token=None, accepted=TAKEN, special=_gone,
                                 headers={"Content-Range": f"bytes */{self.state['size']}", "Content-Length": "0"})
        except _Gone:
            self.forget()
            return None
        if response.status == 308:
            return self.wanted(response)
        try:
            return self.video(response)
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None

    def complete(self) -> Mapping[str, Any] | None:
        """The video, when the session says the upload was complete (a read-back)."""
        found = self.ask()
        return found if isinstance(found, Mapping) else None

    def forget(self) -> None:
        for key in ("session", "size", "sha256", "short"):
            self.state.pop(key, None)

    def wanted(self, response) -> int:
        """The next byte to send, by the `Range` of a 308."""
        at = held(_header(response, "range"), self.state["size"])
        if at is None or at >= self.state["size"]:
            raise UnusableAnswer(f"a chunk's 308 with Range {_header(response, 'range')!r}, which is not the first "
                                 f"bytes of the {self.state['size']} of an upload still incomplete")
        return at

    def video(self, response) -> Mapping[str, Any]:
        """The video resource of the upload's last answer: its id as YouTube gives them."""
        body = document(response, "the upload's last chunk", self.job.access_token)
        identifier(body, "id", "the upload's last chunk", VIDEO_ID)
        return body

    def accept(self, response, what, token=None):
        """The upload's calls read the answer itself (its headers, a 308); the others its JSON."""
        return response if what is None else super().accept(response, what, token)

    def check_quota(self) -> None:
        """Before a session starts: the project's uploads of the day (the adapter's)."""
        raise NotImplementedError


def is_short(info) -> bool:
    """A vertical or square video up to 3 minutes, as YouTube takes a Short [C], by what the
    fetch read of it (a video whose picture size it does not read is not one)."""
    return bool(info.width and info.height and info.width <= info.height and info.duration is not None
                and info.duration <= SHORT_SECONDS)


def sha256(file) -> str:
    """The file's digest, read from the start; the file is left at its start."""
    digest = hashlib.sha256()
    file.seek(0)
    while block := file.read(HASH_BLOCK):
        digest.update(block)
    file.seek(0)
    return digest.hexdigest()


def _header(response, name: str) -> str | None:
    return next((v for k, v in response.headers.items() if k.lower() == name), None)


def _gone(response, answer) -> None:
    if response.status == 404:
        raise _Gone()
