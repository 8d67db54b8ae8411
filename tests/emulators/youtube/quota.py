"""The YouTube Data API's daily quota as the emulator keeps it: 10,000 units a day per
project, reset at midnight Pacific Time; every request costs at least 1, refused ones too
[C] (tests/emulators/README.md#youtube).

`videos.insert` is where the sources disagree [CONFLICT]: the long-standing cost table says
1,600 units of the 10,000 (`quota_model="units"`); the newer page gives it a bucket of its own
of 100 calls a day (`quota_model="buckets"`, the default). A channel's own daily upload cap
is `400 uploadLimitExceeded`.
"""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from .state import GoogleError

PACIFIC = ZoneInfo("America/Los_Angeles")
COSTS = {"list": 1, "comment": 50, "insert": 1600}
QUOTA_MESSAGE = ('The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started'
                 '#quota">quota</a>.')


def pacific_day(now: dt.datetime) -> dt.date:
    return now.astimezone(PACIFIC).date()


class Quota:
    """The quota handlers' helpers and controls, on an emulator holding `clock`, `lock`,
    `quota_model`, `daily_units`, `daily_inserts`, `daily_uploads` (per channel), `_spent`
    ({"day", "units", "inserts"}) and `_uploads_today` ({channel: count})."""

    def _today(self) -> dict:
        day = pacific_day(self.clock.now())
        if self._spent.get("day") != day:
            self._spent.update(day=day, units=0, inserts=0)
            self._uploads_today.clear()
        return self._spent

    def _charge(self, kind: str) -> None:
        """One call of `kind` (list, comment, insert) paid for, or 403 quotaExceeded (the lock held)."""
        spent = self._today()
        if kind == "insert" and self.quota_model == "buckets":
            if spent["inserts"] >= self.daily_inserts:
                raise GoogleError(403, "quotaExceeded", QUOTA_MESSAGE, "youtube.quota")
            spent["inserts"] += 1
            return
        cost = COSTS[kind]
        if spent["units"] + cost > self.daily_units:
            spent["units"] = min(self.daily_units, spent["units"] + 1)  # a refused call costs too
            raise GoogleError(403, "quotaExceeded", QUOTA_MESSAGE, "youtube.quota")
        spent["units"] += cost

    def _count_upload(self, channel_id: str) -> None:
        """A channel's upload of the day, or 400 uploadLimitExceeded (the lock held)."""
        self._today()
        made = self._uploads_today.get(channel_id, 0)
        if made >= self.daily_uploads:
            raise GoogleError(400, "uploadLimitExceeded", "The user has exceeded the number of videos they may upload.")
        self._uploads_today[channel_id] = made + 1

    # --- controls -----------------------------------------------------------------------------

    def exhaust(self, what: str = "quota", sub: str | None = None) -> None:
        """The day's quota is spent (`quota`: every unit and every insert), or the channel of
        `sub` (default: the consenting user's) has made the day's uploads (`uploads`)."""
        with self.lock:
            spent = self._today()
            if what == "quota":
                spent.update(units=self.daily_units, inserts=self.daily_inserts)
            elif what == "uploads":
                self._uploads_today[self._users[sub or self._consenting].channel_id] = self.daily_uploads
            else:
                raise ValueError("what is quota or uploads")

    def reset_quota(self) -> None:
        with self.lock:
            self._spent.clear()
            self._uploads_today.clear()

    @property
    def quota(self) -> dict:
        """What the day has spent: units, inserts (in the buckets model), uploads by channel."""
        with self.lock:
            spent = self._today()
            return {"day": spent["day"].isoformat(), "model": self.quota_model, "units": spent["units"],
                    "daily_units": self.daily_units, "inserts": spent["inserts"], "daily_inserts": self.daily_inserts,
                    "uploads": dict(self._uploads_today)}
