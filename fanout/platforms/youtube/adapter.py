"""YouTube (Google OAuth 2.0, the YouTube Data API v3): a channel's videos, uploaded by the
resumable protocol, and a first comment under them (docs/platforms.md#the-youtube-adapter).

Consent on accounts.google.com, the token endpoint on oauth2.googleapis.com (oauth.py),
everything else on www.googleapis.com: the Data API under `/youtube/v3/`, uploads under
`/upload/youtube/v3/` (upload.py); Google's error envelope and the table in errors.py; the
caption (the description), title and tags rules in rules.py and text.py.

A post is published in steps over saved state:
1. the project's uploads of the day are counted (FANOUT_YOUTUBE_DAILY_UPLOADS, from
   midnight Pacific Time, when YouTube's quota resets);
2. the video is fetched once (checked as it streams), a session started with its title,
   description, tags, privacy and made-for-kids (`videos.insert?uploadType=resumable`), its
   URI saved, and the bytes sent in chunks, each from the byte YouTube says it holds; the
   last answers the video: the target is published then (a processing failure later is
   YouTube's to report), with `https://www.youtube.com/watch?v={id}` (or `/shorts/{id}`
   for a vertical video of up to 3 minutes) as `external_url`, and a warning when YouTube
   locked it private (an API project Google has not audited);
3. the first comment, if the post has one (`commentThreads.insert`): a marker saved first,
   and a comment whose answer was lost looked for among the video's before it is sent
   again. A comment YouTube refuses leaves the target published with `first_comment_error`.

Never twice: upload.py.
"""
from __future__ import annotations

import datetime as _dt
import re
from zoneinfo import ZoneInfo

from ..base import Job, Outcome, Result, Step, Stop
from ..contract import identifier
from ..envelope import values
from ..mapping import Rule
from ..steps import ThreadSteps
from .errors import ENVELOPE, MAPPING
from .oauth import API, SCOPES, TITLE, authorize, exchange, refresh, refresh_due
from .rules import RULES
from .upload import VIDEO_ID, ResumableUpload

HOSTS = ("accounts.google.com", "oauth2.googleapis.com", "www.googleapis.com")
UPLOADS_MEDIA = True
PACIFIC = ZoneInfo("America/Los_Angeles")  # where YouTube's quota day begins and ends [C]
COMMENT_ID = re.compile(r"[0-9A-Za-z_.-]{1,128}")
WATCH, SHORTS = "https://www.youtube.com/watch?v=", "https://www.youtube.com/shorts/"


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before YouTube answers: the project's
    uploads of the day, as this service counts them (a preflight)."""
    try:
        _Posting(step, job).check_quota()
    except Stop as stop:
        return [stop.result.outcome]
    return []


def permalink(video_id: str, *, short: bool = False) -> str:
    """A video's page: every video has a watch page; a Short shows under /shorts/ [S]."""
    return f"{SHORTS if short else WATCH}{video_id}"


def quota_day(now: _dt.datetime) -> tuple[_dt.datetime, _dt.datetime]:
    """(start, end) of YouTube's quota day around `now`, as naive UTC: midnight to midnight
    Pacific Time."""
    here = now.replace(tzinfo=_dt.UTC).astimezone(PACIFIC)
    start = here.replace(hour=0, minute=0, second=0, microsecond=0)
    end = start + _dt.timedelta(days=1)  # wall-clock arithmetic: the next midnight, on days of 23 or 25 hours too
    return tuple(t.astimezone(_dt.UTC).replace(tzinfo=None) for t in (start, end))


class _Posting(ResumableUpload, ThreadSteps):
    """One step (fanout/platforms/steps.py): the video as the one part of a thread, then
    the first comment. State keys (all JSON), besides the upload's (upload.py):
    - `thread`: [the video's permalink] once it is uploaded; `video` its id, `warnings`;
    - `commenting`: the comment may be out (its answer not had); `comment`: its thread id.
    """

    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES

    # -- the video

    def publish_part(self) -> None:
        video = self.upload()
        privacy = next(iter(values(video, "status.privacyStatus")), None)
        if privacy == "private" and self.requested_privacy != "private":
            self.state["warnings"] = [
                f"{TITLE} made the video private though {self.requested_privacy} was asked: it locks private every "
                f"video uploaded through an API project Google has not audited; ask Google to audit this app's "
                f"project, then change the video's visibility in YouTube Studio"]
        self.state["video"] = video["id"]
        self.state["thread"].append(permalink(video["id"], short=bool(self.state.get("short"))))
        self.saved()

    def check_quota(self) -> None:
        """The project's uploads since midnight Pacific Time, counted by this workspace's
        published YouTube targets: at FANOUT_YOUTUBE_DAILY_UPLOADS the next fails without a
        call, as YouTube would refuse it (quotaExceeded)."""
        start, end = quota_day(self.now)
        allowed = self.step.settings.of("youtube").daily_uploads
        self.under_cap(start, allowed, lambda made: (
            f"{TITLE}'s quota allows this app's project {allowed} uploads a day (FANOUT_YOUTUBE_DAILY_UPLOADS); this "
            f"workspace's {TITLE} accounts uploaded {made} since midnight Pacific Time (the quota resets at "
            f"{_utc(end)})"), workspace=True)

    # -- the first comment

    def publish_comment(self) -> None:
        if self.state.get("commenting") and (found := self.find_comment()) is not None:
            return self.commented(found)
        self.state["commenting"] = True
        self.saved()
        body = self.call("POST", f"{API}/commentThreads", "the comment", params={"part": "snippet"}, json_body={
            "snippet": {"videoId": self.state["video"],
                        "topLevelComment": {"snippet": {"textOriginal": self.job.first_comment}}}})
        return self.commented(identifier(body, "id", "the comment", COMMENT_ID))

    def find_comment(self) -> str | None:
        """The thread of the first comment, among the video's comments by this channel."""
        body = self.call("GET", f"{API}/commentThreads", "the video's comments",
                         params={"part": "snippet", "videoId": self.state["video"], "maxResults": "100"})
        for thread in values(body, "items[]"):
            said = values(thread, "snippet.topLevelComment.snippet.textOriginal")
            author = values(thread, "snippet.topLevelComment.snippet.authorChannelId.value")
            if said == [self.job.first_comment] and author == [self.job.user_id]:
                return identifier(thread, "id", "the video's comments", COMMENT_ID)
        return None

    def commented(self, thread_id: str) -> None:
        self.state.pop("commenting", None)
        self.state["comment"] = thread_id
        self.saved()

    # -- the target

    def published(self) -> Outcome:
        return Outcome(external_url=self.state["thread"][0], warnings=tuple(self.state.get("warnings") or ()))

    def where(self) -> str:
        return "the video"

    # -- calls (fanout/platforms/steps.py `call`)

    def outcome_of(self, answer) -> tuple[Rule | None, Outcome]:
        """The day's quota spent says when it comes back."""
        rule, outcome = super().outcome_of(answer)
        if answer.reason == "quotaExceeded":
            outcome = Outcome(error_code=outcome.error_code, error_message=(
                f"{TITLE}'s daily quota for this app's project is spent (quotaExceeded); it resets at midnight "
                f"Pacific Time, {_utc(quota_day(self.now)[1])}"))
        return rule, outcome

    def unsent(self) -> None:
        self.state.pop("commenting", None)  # a comment that never left is not out


def _utc(moment: _dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["HOSTS", "SCOPES", "VIDEO_ID", "authorize", "exchange", "foresee", "permalink", "publish", "refresh",
           "refresh_due"]
