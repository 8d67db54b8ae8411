"""Mastodon's media steps (docs/platforms.md#mastodon): each file fetched once (checked as
it streams, against the instance's limits) and uploaded by `POST /api/v2/media` with its
alt text as `description`; what the instance processes in the background (video, GIFs,
large files: a 202 without `url`) read back by `GET /api/v1/media/:id`, a scheduled step
at a time, until it has its `url` (206 while processing) [C]."""
from __future__ import annotations

import datetime as _dt
import re

from ...target_errors import UNKNOWN
from ..base import Stop, failed
from ..contract import document, identifier
from ..polling import next_check
from ..steps import ThreadSteps
from .instance import TITLE

# Mastodon's ids are digits; forks use other alphabets (Pleroma's flake ids).
MEDIA_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
# Media being processed is read again on the schedule of fanout/platforms/polling.py, at
# most this far apart, for at most MEDIA_WINDOW.
CHECK_MOST = _dt.timedelta(seconds=30)
MEDIA_WINDOW = _dt.timedelta(minutes=30)


class MediaSteps(ThreadSteps):
    """The media of the part being posted (`index`, fanout/platforms/steps.py
    `ThreadSteps`); each item's saved form: {id, ready, since, check_at?}. Subclasses say
    where the instance's API is (`api`)."""

    api = ""

    def label(self, number: int) -> str:
        """How messages name a media item: the first part's `media[0]`, a later part's
        `thread[0].media[0]` (as the request names it)."""
        return f"thread[{self.index - 1}].media[{number}]" if self.index else f"media[{number}]"

    def upload(self, number: int, item) -> dict:
        """Fetch the item and upload it with its alt text; its saved form."""
        what = f"the upload of {self.label(number)}"
        with self.fetch(item, self.label(number)) as media:
            alt = self.rules.alt_text_of(item)
            body = self.call("POST", f"{self.api}/api/v2/media", what, upload=True,
                             files={"file": (f"media-{number}.{media.info.format}", media.file, media.info.mime)},
                             data={"description": alt} if alt else None)
        return {"id": identifier(body, "id", what, MEDIA_ID), "ready": bool(body.get("url")),
                "since": self.now.isoformat()}

    def until_ready(self, number: int, item: dict) -> _dt.datetime | None:
        """None once the instance has processed the item; when to read it again otherwise."""
        if item["ready"]:
            return None
        if item.get("check_at") and _dt.datetime.fromisoformat(item["check_at"]) > self.now:
            return _dt.datetime.fromisoformat(item["check_at"])
        what = f"the state of {self.label(number)}"
        response = self.call("GET", f"{self.api}/api/v1/media/{item['id']}", accepted=(), special=_processed)
        if response.status == 200 and document(response, what, self.job.access_token).get("url"):
            item["ready"], item["check_at"] = True, None
            return None
        since = _dt.datetime.fromisoformat(item["since"])
        if self.now >= since + MEDIA_WINDOW:
            raise Stop(failed(UNKNOWN, f"{TITLE} did not finish processing {self.label(number)} in 30 minutes"))
        item["check_at"] = next_check(since, self.now, most=CHECK_MOST, deadline=since + MEDIA_WINDOW).isoformat()
        return _dt.datetime.fromisoformat(item["check_at"])


def _processed(response, answer):
    """GET media: 200 once processed, 206 while it is; any other status is the table's."""
    return response if response.status in (200, 206) else None
