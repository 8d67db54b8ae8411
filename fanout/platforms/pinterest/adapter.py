"""Pinterest (API v5): the OAuth flow (oauth.py) and a user's Pins (docs/platforms.md#pinterest).

A Pin is published in steps over saved state:
1. its board: `options.board_id`, or the account's one board (`GET /v5/boards`); an
   account with several boards, or none, fails `platform_option_rejected` (the upload
   refuses that at once when the account's stored boards show it: boards.py);
2. its media: an image is checked (fetched once, fanout/outbound/media_fetch.py) and
   Pinterest fetches it by its URL (`image_url`); a video is fetched, registered, sent to
   the upload store and read back until processed (media.py);
3. `POST /v5/pins` with the caption as the description, `options.title`, `options.link`,
   the media's alt text, and for a video its cover (`options.cover_at_ms`, a frame in whole
   seconds; the first frame by default); `external_url` is
   `https://www.pinterest.com/pin/{id}/`.

Never twice: Pinterest takes no idempotency key, so a marker (when the create was sent) is
saved before it. A step that finds the marker reads the board's Pins back (lookup.py)
before sending anything: found, it is the Pin; not there, the create never arrived and is
sent again. A create answered with what the contract does not promise is read back in the
same step and never sent again; a read back Pinterest refuses or breaks fails the target
saying the Pin may be out.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import Any

from ...target_errors import OPTION
from ..base import Done, Job, Outcome, Result, Step, Stop, Wait, failed
from ..contract import UnusableAnswer, identifier, may_be_out
from .boards import API, TITLE
from .errors import ENVELOPE, MAPPING, PINTEREST_ID
from .lookup import found, wanted
from .media import UPLOAD_HOSTS, VideoSteps
from .oauth import SCOPES, authorize, exchange, refresh, refresh_due
from .rules import RULES

HOSTS = ("www.pinterest.com", "api.pinterest.com", *UPLOAD_HOSTS)
UPLOADS_MEDIA = True


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Pinning(step, job).run()


def permalink(pin_id: str) -> str:
    return f"https://www.pinterest.com/pin/{pin_id}/"


class _Pinning(VideoSteps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `board`: the board's id; `video`: a video's upload (media.py);
    - `sending`: when the create was sent (its answer not had); `pin`: the Pin's id.
    """

    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES
    creating = False  # while the create is being sent

    def next(self) -> Result:
        if self.state.get("pin"):
            return Done(Outcome(external_url=permalink(self.state["pin"])))
        if self.state.get("sending"):
            return self.reconcile()
        if "board" not in self.state:
            self.state["board"] = self.board()
        [item] = self.job.media
        if item["type"] == "video":
            if "video" not in self.state:
                self.upload_video(item)
            until = self.until_processed()
            if until is not None:
                return Wait(until=until, state=self.snapshot())
        else:
            self.fetch(item, "media[0]", whole=False)  # Pinterest fetches it: checked first
        return self.create()

    def board(self) -> str:
        """`options.board_id`, or the account's one board."""
        if self.job.options.get("board_id"):
            return self.job.options["board_id"]
        what = "the account's boards"
        body = self.call("GET", f"{API}/boards", what, params={"page_size": "2"})
        items = body.get("items") if isinstance(body.get("items"), list) else []
        if len(items) == 1:
            return identifier(items[0], "id", what, PINTEREST_ID)
        if not items:
            raise Stop(failed(OPTION, f"{TITLE} shows no board on this account to pin to: make one on Pinterest, or "
                                      "give overrides.pinterest.options.board_id"))
        raise Stop(failed(OPTION, f"this {TITLE} account has several boards: give the one to pin to as "
                                  "overrides.pinterest.options.board_id"))

    # -- the Pin

    def body(self) -> dict:
        [item] = self.job.media
        if item["type"] == "video":
            source = {"source_type": "video_id", "media_id": self.state["video"]["id"],
                      "cover_image_key_frame_time": int(self.job.options.get("cover_at_ms", 0)) // 1000}
        else:
            source = {"source_type": "image_url", "url": item["url"]}
        body: dict[str, Any] = {"board_id": self.state["board"], "media_source": source}
        if self.job.caption:
            body["description"] = self.job.caption
        body.update({k: self.job.options[k] for k in ("title", "link") if self.job.options.get(k)})
        if alt := RULES.alt_text_of(item):
            body["alt_text"] = alt
        return body

    def create(self) -> Result:
        self.state["sending"] = self.now.isoformat()
        self.saved()
        try:
            self.creating = True
            try:
                answer = self.call("POST", f"{API}/pins", "the Pin", json_body=self.body(), accepted=(200, 201))
            finally:
                self.creating = False
            pin_id = identifier(answer, "id", "the Pin", PINTEREST_ID)
        except UnusableAnswer as e:
            # The Pin may be out: looked for now on its board, never sent again.
            return self.settle(self.read_back(e, self.find, missing=(
                f"{TITLE} shows no such Pin on the board, so nothing was published")))
        return self.settle(pin_id)

    def find(self) -> str | None:
        since = _dt.datetime.fromisoformat(self.state["sending"])
        return found(self.call, self.state["board"], wanted(self.body()), since)

    def reconcile(self) -> Result:
        """The create may have arrived: the board's Pins read back before anything is sent."""
        try:
            pin_id = self.find()
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None
        except Stop as stop:
            result = stop.result
            if isinstance(result, Done) and not result.outcome.published:
                # Without the read, sending again could pin twice. An auth failure keeps its
                # code: the engine refreshes the token once and this reads again.
                outcome = result.outcome
                raise Stop(Done(dataclasses.replace(outcome, error_message=(
                    f"{outcome.error_message}; reading the board's Pins back failed, so {may_be_out(TITLE)}"))))
            raise
        if pin_id is not None:
            return self.settle(pin_id)
        return self.create()  # it never arrived

    def settle(self, pin_id: str) -> Done:
        self.state.pop("sending", None)
        self.state["pin"] = pin_id
        self.saved()
        return Done(Outcome(external_url=permalink(pin_id)))

    def unsent(self) -> None:
        if self.creating:
            self.state.pop("sending", None)  # the create never left: nothing to read back


__all__ = ["HOSTS", "SCOPES", "UPLOADS_MEDIA", "authorize", "exchange", "permalink", "publish", "refresh",
           "refresh_due"]
