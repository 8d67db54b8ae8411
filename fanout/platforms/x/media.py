"""X's media steps: each file fetched once and uploaded (an image in one request, a video or
an animated GIF in chunks: initialize, append, finalize), then what X processes read back
(`STATUS`) until it succeeded, a scheduled step at a time (docs/platforms.md#the-x-adapter).
Uploads may be repeated: media nobody posts expires."""
from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ...target_errors import EXPIRED, MEDIA
from ..base import Stop, failed
from ..contract import identifier, member, one_of
from ..http import PlatformResponse
from ..mapping import number
from ..polling import next_check
from ..steps import ThreadSteps
from .errors import ENVELOPE, X_ID
from .oauth import API, TITLE

# X's own samples append 1 MB chunks; the largest X accepts is not documented.
CHUNK = 1024 * 1024
# The longest wait between two reads of media X is processing: its `check_after_secs` is
# taken within this, and without one the checks grow to it (fanout/platforms/polling.py).
CHECK_MOST = _dt.timedelta(seconds=60)
PROCESSING_STATES = ("pending", "in_progress", "failed", "succeeded")


class MediaSteps(ThreadSteps):
    """The media of the part being posted (fanout/platforms/x/adapter.py has the sequence);
    each item's saved form is {id, expires_at, ready, since?, check_at?} (`since`: when X
    took it and began processing it)."""

    def upload(self, index: int) -> dict:
        """Fetch item `index` (checked as it streams) and upload it; its saved form."""
        item = self.part.media[index]
        where = f"thread[{self.index - 1}]." if self.index else ""
        with self.fetch(item, f"{where}media[{index}]") as media:
            info = media.info
            if info.kind == "image" and not info.animated:
                what = "the media upload"
                body = self.call("POST", f"{API}/media/upload", what, upload=True,
                                 files={"media": ("media", media.file, info.mime)},
                                 data={"media_category": "tweet_image", "media_type": info.mime})
            else:
                what = "the upload's finalize"
                body = self.chunked(media.file, info, "tweet_gif" if info.kind == "image" else "tweet_video")
        data = member(body, "data", what)
        media_id = identifier(data, "id", what, X_ID)
        if alt := self.rules.alt_text_of(item):
            # Before the item is saved: a step stopped in between uploads it (and sets its
            # alt text) again, and X lets the unused upload expire.
            self.call("POST", f"{API}/media/metadata", None, upload=True,
                      json_body={"id": media_id, "metadata": {"alt_text": {"text": alt}}})
        expires = number(data.get("expires_after_secs")) or 86400
        saved = {"id": media_id, "expires_at": (self.now + _dt.timedelta(seconds=expires)).isoformat(),
                 "ready": not data.get("processing_info")}
        if not saved["ready"]:
            saved["since"] = self.step.now().isoformat()
            saved["check_at"] = self.check_at(saved, member(data, "processing_info", what)).isoformat()
        return saved

    def chunked(self, file, info, category: str) -> Mapping[str, Any]:
        what = "the upload's initialize"
        body = self.call("POST", f"{API}/media/upload/initialize", what, upload=True, json_body={
            "media_type": info.mime, "total_bytes": info.size, "media_category": category})
        media_id = quote(identifier(member(body, "data", what), "id", what, X_ID), safe="")
        for segment, chunk in self.chunks(file, CHUNK):
            # Its answer is not read (X's older API answered an append with no body at all).
            self.call("POST", f"{API}/media/upload/{media_id}/append", None, upload=True,
                      files={"media": ("chunk", chunk, "application/octet-stream")},
                      data={"segment_index": str(segment)})
        return self.call("POST", f"{API}/media/upload/{media_id}/finalize", "the upload's finalize", upload=True)

    def until_ready(self, item: dict) -> _dt.datetime | None:
        """None once X processed the item; when to read its status again otherwise."""
        if item.get("ready"):
            return None
        if _dt.datetime.fromisoformat(item["expires_at"]) <= self.now:
            raise Stop(failed(EXPIRED, f"{TITLE} let media {item['id']} expire before it was processed"))
        if item.get("check_at") and _dt.datetime.fromisoformat(item["check_at"]) > self.now:
            return _dt.datetime.fromisoformat(item["check_at"])
        what = "the media's status"
        body = self.call("GET", f"{API}/media/upload", what, params={"command": "STATUS", "media_id": item["id"]})
        data = member(body, "data", what)
        info = member(data, "processing_info", what) if data.get("processing_info") is not None else {}
        state = one_of(info.get("state"), PROCESSING_STATES, what, "processing_info.state") if info else None
        if state in (None, "succeeded"):
            item["ready"], item["check_at"] = True, None
            return None
        if state == "failed":
            answer = ENVELOPE.read(PlatformResponse(200, {}, json.dumps(info).encode()), self.job.access_token)
            reason = (info.get("error") or {}).get("message") if isinstance(info.get("error"), dict) else None
            raise Stop(failed(MEDIA, f"{TITLE} could not process the media: {reason or answer.raw}"))
        item["check_at"] = self.check_at(item, info).isoformat()
        return _dt.datetime.fromisoformat(item["check_at"])

    def check_at(self, item: dict, processing_info: Mapping[str, Any]) -> _dt.datetime:
        """X's `check_after_secs` when it gives one, else the schedule; within the media's life."""
        since = _dt.datetime.fromisoformat(item.setdefault("since", self.now.isoformat()))
        return next_check(since, self.now, most=CHECK_MOST, deadline=_dt.datetime.fromisoformat(item["expires_at"]),
                          hint=number(processing_info.get("check_after_secs")))
