"""TikTok (Login Kit v2, Content Posting API, Direct Post): the OAuth flow, creator info,
videos pulled or uploaded, photo posts, the status read back (docs/platforms.md#the-tiktok-adapter).

Authorize on www.tiktok.com, everything else on open.tiktokapis.com under `/v2` (the OAuth
flow: oauth.py; the answers, TikTok's envelope where only `error.code == "ok"` is success
whatever the HTTP status: errors.py; what the creator info decides: creator.py; the media,
checked, pulled or uploaded: uploads.py).

A post is published in steps over saved state:
1. the creator's info is read (TikTok requires it before every post): the privacy level
   is chosen from the options it offers, the video's duration checked against its maximum;
2. the post is started (`init`): a video by PULL_FROM_URL from a verified host, else by
   FILE_UPLOAD, whose bytes go right after in chunks with `Content-Range`, streamed from
   the fetched file; photos only by PULL_FROM_URL;
3. the status is read back by scheduled steps until PUBLISH_COMPLETE (the public post id
   may come later: moderation) or FAILED with its `fail_reason`;
4. `external_url` is `https://www.tiktok.com/@{username}/video/{id}`, or `/photo/{id}` for
   a photo post.

Never twice: a marker is saved before `init`, which is what starts a post. An init whose
answer was lost is started again only for FILE_UPLOAD (a post whose bytes never came is
never published); a pulled one cannot be looked up (TikTok lists no pending posts), so the
target fails saying it may have been posted rather than risk posting it twice. An answer
that breaks TikTok's contract (an upload URL off its hosts, a publish id of the wrong
shape, a status it does not list: fanout/platforms/contract.py) fails the target at once,
never starting another post, saying whether the one started may be published.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ...target_errors import RATE, UNKNOWN
from ..base import Done, Job, Outcome, Result, Step, Stop, Wait, failed
from ..contract import UnusableAnswer, identifier, may_be_out, member, on_hosts, one_of
from ..mapping import number, scrub
from ..polling import next_check
from .errors import ENVELOPE, MAPPING, Answer
from .creator import check_duration, post_info
from .oauth import API, SCOPES, TITLE, authorize, exchange, refresh, refresh_due
from .rules import RULES
from .uploads import Uploads, chunk_plan, verified

HOSTS = ("www.tiktok.com", "open.tiktokapis.com", "open-upload.tiktokapis.com")
UPLOADS_MEDIA = True

# About 15 posts per creator in 24 hours (the number is not published), and per access
# token per minute: 20 creator-info reads, 6 inits, 30 status reads.
DAILY_POSTS, DAY = 15, _dt.timedelta(hours=24)
CREATOR_INFO_PER_MINUTE, INIT_PER_MINUTE, STATUS_PER_MINUTE = 20, 6, 30
WINDOWS = {"creator_info": (CREATOR_INFO_PER_MINUTE, "creator-info reads a minute"),
           "init": (INIT_PER_MINUTE, "posts started a minute")}
# The longest waits between two status reads (fanout/platforms/polling.py grows to them):
POLL = _dt.timedelta(seconds=10)  # while TikTok processes the post
MODERATION_POLL = _dt.timedelta(seconds=60)  # while a published post awaits its public id
MODERATION_WAIT = _dt.timedelta(minutes=30)  # then it is settled published without a URL
# What the reference promises: a publish id of at most 64 characters
# (`v_pub_file~v2-1.123456789`), public post ids of digits (int64), and the statuses a
# Direct Post goes through (SEND_TO_USER_INBOX ends an inbox upload, which is never made).
PUBLISH_ID = re.compile(r"[A-Za-z0-9_.~-]{1,64}")
POST_ID = re.compile(r"[0-9]{1,20}")
STATUSES = ("PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD", "PUBLISH_COMPLETE", "FAILED")
JSON = {"Content-Type": "application/json; charset=UTF-8"}


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before TikTok answers: its windows, as
    this service counts them (`step.per_minute` of a preflight counts nothing), and media
    TikTok would pull from a host it has not verified for the app (a preflight)."""
    return _Posting(step, job).foresee()


def permalink(username: str, post_id: str, *, photo: bool = False) -> str:
    """A video's page, or a photo post's: TikTok shows them under /video/ and /photo/."""
    kind = "photo" if photo else "video"
    return f"https://www.tiktok.com/@{quote(username, safe='')}/{kind}/{quote(post_id, safe='')}"


class _Posting(Uploads):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `creating`: "init" while a post may be starting, with `mode` (file, pull or photo);
    - `publish_id`: TikTok's id of the post being published; `size`, `uploaded`: the
      video's bytes, all sent (FILE_UPLOAD);
    - `username`: the creator's, for the permalink; `since`: when TikTok began processing
      the post (its init answered, or its last byte went in); `completed_at`: when TikTok
      said PUBLISH_COMPLETE without the public id yet.
    """

    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES

    def __init__(self, step: Step, job: Job):
        super().__init__(step, job)
        self.settings = step.settings

    def next(self) -> Result:
        if self.state.get("creating") == "init":
            return self.reconcile()
        if self.state.get("publish_id") and self.state.get("mode") == "file" and not self.state.get("uploaded"):
            return self.resume_upload()
        if self.state.get("publish_id"):
            return self.read_status()
        self.check_daily()
        return self.start()

    # -- starting a post

    def foresee(self) -> list[Outcome]:
        found = self.foreseen(self.check_daily, self.check_windows)  # one rate limit is enough to say
        unverified = self.unverified_pull()
        if unverified is not None:
            found.append(unverified)
        return found

    def check_windows(self) -> None:
        """The per-minute windows a post starts in: creator-info reads, then inits."""
        for kind in WINDOWS:
            self.window(kind)

    def window(self, kind: str) -> None:
        """One more call of `kind` within its per-minute window, or the step ends."""
        limit, what = WINDOWS[kind]
        if not self.step.per_minute(f"tiktok:{kind}:{self.token_key}", limit):
            raise Stop(failed(RATE, f"{TITLE} allows {limit} {what} per account, and they are used up"))

    def check_daily(self) -> None:
        self.under_cap(self.now - DAY, DAILY_POSTS, lambda made: f"{TITLE} allows about {DAILY_POSTS} posts in 24 "
                                                                  f"hours per creator; this account published {made}")

    def start(self) -> Result:
        photos = [item for item in self.job.media if item.get("type") == "image"]
        if photos:
            return self.start_photos(photos)
        [video] = self.job.media
        method = self.settings.of("tiktok").upload_method
        if method == "pull" or (method == "auto" and verified(video["url"], self.settings.of("tiktok").verified_domains)):
            info = self.checked(video, 0, whole=False)
            creator = self.creator_info()
            check_duration(info, creator)
            return self.init("pull", "video/init/", {
                "post_info": self.post_info(creator, title=True),
                "source_info": {"source": "PULL_FROM_URL", "video_url": video["url"]}})
        return self.upload(video)

    def start_photos(self, photos: list[Mapping[str, str]]) -> Result:
        for index, item in enumerate(photos):
            self.checked(item, index, whole=False)
        creator = self.creator_info()
        info = {k: v for k, v in self.post_info(creator, title=False).items() if k not in ("disable_duet",
                                                                                         "disable_stitch")}
        if self.job.caption:
            info["description"] = self.job.caption
        if self.job.options.get("title"):
            info["title"] = self.job.options["title"]
        return self.init("photo", "content/init/", {
            "post_info": {**info, "auto_add_music": self.job.options.get("auto_add_music", True)},
            # 0-based: the first photo is the cover.
            "source_info": {"source": "PULL_FROM_URL", "photo_cover_index": 0,
                            "photo_images": [item["url"] for item in photos]},
            "post_mode": "DIRECT_POST", "media_type": "PHOTO"})

    def upload(self, video: Mapping[str, str]) -> Result:
        """FILE_UPLOAD: the video fetched, the post started, then its bytes sent."""
        with self.checked(video, 0, whole=True) as media:
            creator = self.creator_info()
            check_duration(media.info, creator)
            size = media.info.size
            chunk_size, count = chunk_plan(size)
            self.state["size"] = size
            data = self.init("file", "video/init/", {
                "post_info": self.post_info(creator, title=True),
                "source_info": {"source": "FILE_UPLOAD", "video_size": size, "chunk_size": chunk_size,
                                "total_chunk_count": count}}, settle=False)
            try:
                # The chunks go where TikTok says, and nowhere else.
                upload_url = on_hosts(data.get("upload_url"), HOSTS, "the video's init", "an upload URL")
            except UnusableAnswer as e:
                raise e.after(self.standing()) from None
            self.send_chunks(upload_url, media, chunk_size, count)
        self.state["uploaded"] = True
        self.state["since"] = self.step.now().isoformat()
        self.saved()
        return self.read_status()

    def creator_info(self) -> Mapping[str, Any]:
        """TikTok requires it before every post: the privacy levels offered, the creator's
        settings and maximum video duration."""
        self.window("creator_info")
        data = self.post("post/publish/creator_info/query/", {}, "the creator info")
        if not isinstance(data.get("privacy_level_options"), list):
            raise UnusableAnswer("the creator info without its privacy_level_options list")
        if data.get("creator_username"):
            self.state["username"] = str(data["creator_username"])
        return data

    def post_info(self, creator: Mapping[str, Any], *, title: bool) -> dict:
        return post_info(creator, self.job, self.settings.of("tiktok").privacy_level, title=title)

    def init(self, mode: str, path: str, payload: dict, *, settle: bool = True):
        """Start the post: the marker first, then the call that may publish it."""
        self.window("init")
        self.state.update(creating="init", mode=mode)
        self.state.pop("uploaded", None)
        self.saved()
        what = "the photo post's init" if mode == "photo" else "the video's init"
        try:
            data = self.post(f"post/publish/{path}", payload, what)
            publish_id = identifier(data, "publish_id", what, PUBLISH_ID)
        except UnusableAnswer as e:
            raise e.after(self.standing()) from None
        del self.state["creating"]
        self.state["publish_id"] = publish_id
        self.state["since"] = self.step.now().isoformat()
        self.saved()
        return self.read_status() if settle else data

    def standing(self) -> str:
        """What a broken answer leaves on TikTok once a post may have been started: a pulled
        post publishes on its own, an uploaded one once its last byte is in."""
        if self.state.get("mode") == "file" and not self.state.get("uploaded"):
            return f"no video was uploaded to the post {TITLE} started, so it never publishes"
        return may_be_out(TITLE)

    # -- never twice

    def resume_upload(self) -> Result:
        """An upload cut short (a worker died, a chunk's answer was lost): if TikTok has
        every byte the post goes on; else it never publishes, and the post starts again."""
        data = self.status()
        if data is not None and (data.get("status") != "PROCESSING_UPLOAD"
                                 or (number(data.get("uploaded_bytes")) or 0) >= self.state.get("size", 0)):
            self.state["uploaded"] = True
            return self.settle_status(data)
        self.state.pop("publish_id", None)
        self.check_daily()
        return self.start()

    def reconcile(self) -> Result:
        """An init whose answer never came: TikTok may have started the post."""
        if self.state.get("mode") == "file":
            # Without our bytes that post never publishes: starting again is safe.
            del self.state["creating"]
            self.check_daily()
            return self.start()
        return failed(UNKNOWN, f"{TITLE}'s answer to starting this post was lost, and TikTok offers no way to "
                               "look the post up: it may have been published. Check the account before posting "
                               "it again.")

    # -- the status, read back

    def status(self) -> Mapping[str, Any] | None:
        """The post's status as TikTok reads it; None when the per-minute reads are used up."""
        if not self.step.per_minute(f"tiktok:status:{self.token_key}", STATUS_PER_MINUTE):
            return None
        try:
            data = self.post("post/publish/status/fetch/", {"publish_id": self.state["publish_id"]},
                             "the post's status")
            one_of(data.get("status"), STATUSES, "the post's status")
            ids = data.get("publicaly_available_post_id")
            if data["status"] == "PUBLISH_COMPLETE" and ids is not None:
                if not isinstance(ids, list):
                    raise UnusableAnswer("the post's status with a publicaly_available_post_id that is not a list")
                for public in ids:
                    identifier({"publicaly_available_post_id": public}, "publicaly_available_post_id",
                               "the post's status", POST_ID)
        except UnusableAnswer as e:
            raise e.after(self.standing()) from None
        return data

    def read_status(self) -> Result:
        return self.settle_status(self.status())

    def settle_status(self, data: Mapping[str, Any] | None) -> Result:
        if data is None:  # our own pacing, not a failure: read it a little later
            return Wait(until=self.now + POLL, state=self.snapshot())
        status = data.get("status")
        if status == "FAILED":
            reason = str(data.get("fail_reason") or "")
            answer = Answer(raw=scrub(f"status FAILED, fail_reason {reason or '(none)'}"), fail_reason=reason or None)
            return Done(self.outcome_of(answer)[1])
        if status == "PUBLISH_COMPLETE":
            ids = [i for i in data.get("publicaly_available_post_id") or [] if i not in (None, "")]
            if ids:
                return Done(Outcome(external_url=permalink(self.username, str(ids[0]),
                                                           photo=self.state.get("mode") == "photo")))
            # Published, awaiting moderation before it is public: its id comes later.
            completed = _dt.datetime.fromisoformat(self.state.setdefault("completed_at", self.now.isoformat()))
            if self.now - completed >= MODERATION_WAIT:
                return Done(Outcome())
            until = next_check(completed, self.now, most=MODERATION_POLL, deadline=completed + MODERATION_WAIT)
            return Wait(until=until, state=self.snapshot())
        since = _dt.datetime.fromisoformat(self.state.setdefault("since", self.now.isoformat()))
        return Wait(until=next_check(since, self.now, most=POLL), state=self.snapshot())

    @property
    def token_key(self) -> str:
        """The access token, as TikTok counts its per-minute limits, hashed for a limiter key."""
        return hashlib.sha256(self.job.access_token.encode()).hexdigest()[:32]

    @property
    def username(self) -> str:
        return self.state.get("username") or self.job.username

    # -- calls (fanout/platforms/steps.py `call`)

    def post(self, path: str, payload: dict, what: str) -> Mapping[str, Any]:
        """One Content Posting call (POST, JSON) answering its `data` (`what`)."""
        return self.call("POST", f"{API}/{path}", what, json_body=payload, headers=JSON)

    def accept(self, response, what, token=None):
        """An API call's answer is the envelope, whatever its 2xx: its `data` when error.code
        is "ok", else a refusal (a chunk's answer is its status: uploads.py)."""
        if what is None:
            return {}
        body = super().accept(response, what, token)
        return member(body, "data", what) if member(body, "error", what).get("code") == "ok" else None

    def outcome_of(self, answer: Answer):
        """A FAILED status's outcome says its `fail_reason`."""
        rule, outcome_ = super().outcome_of(answer)
        if answer.fail_reason and outcome_.error_code != UNKNOWN:
            outcome_ = dataclasses.replace(outcome_, error_message=f"{TITLE} could not publish the post: "
                                                                   f"{answer.fail_reason}")
        return rule, outcome_

    def unsent(self) -> None:
        self.state.pop("creating", None)  # an init that never left started nothing

    def refused(self, response, answer, rule, outcome_, *, upload=False) -> Stop:
        self.state.pop("creating", None)  # a clear refusal: nothing was started
        return super().refused(response, answer, rule, outcome_, upload=upload)


__all__ = ["HOSTS", "SCOPES", "authorize", "chunk_plan", "exchange", "foresee", "permalink", "publish", "refresh",
           "refresh_due", "verified"]
