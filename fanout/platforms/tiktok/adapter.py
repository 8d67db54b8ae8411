"""TikTok (Login Kit v2, Content Posting API, Direct Post): the OAuth flow, creator info,
videos pulled or uploaded, photo posts, the status read back (docs/platforms.md#the-tiktok-adapter).

Authorize on www.tiktok.com, everything else on open.tiktokapis.com under `/v2`; every API
answer is the envelope `{"data", "error": {"code", "message", "log_id"}}`, where only
`error.code == "ok"` is success (whatever the HTTP status); the token endpoint answers flat
OAuth JSON.

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

import datetime as _dt
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from ...target_errors import EXPIRED, OPTION, RATE, UNKNOWN, UNSUPPORTED, UNVERIFIED
from ..base import (
    App, AuthFailed, Authorization, Done, Grant, Job, Outcome, Result, Step, Stop, Wait,
    bearer, expiry, failed,
)
from ..contract import UnusableAnswer, document, identifier, may_be_out, member, on_hosts, one_of
from ..http import PlatformResponse, PlatformUnreachable
from .. import mapping
from ..mapping import Rule, classify, number, quoted, scrub
from ..oauth import TokenEndpoint, read_profile
from .errors import MAPPING
from ..polling import next_check
from ..steps import Steps
from .rules import RULES

HOSTS = ("www.tiktok.com", "open.tiktokapis.com", "open-upload.tiktokapis.com")
SCOPES = ("user.info.basic", "user.info.profile", "video.publish")
UPLOADS_MEDIA = True

AUTHORIZE_URL = "https://www.tiktok.com/v2/auth/authorize/"
API = "https://open.tiktokapis.com/v2"
TITLE = "TikTok"

# Most public first: the default privacy level is the first of these the creator offers.
PRIVACY_ORDER = ("PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY")
# About 15 posts per creator in 24 hours (the number is not published), and per access
# token per minute: 20 creator-info reads, 6 inits, 30 status reads.
DAILY_POSTS, DAY = 15, _dt.timedelta(hours=24)
CREATOR_INFO_PER_MINUTE, INIT_PER_MINUTE, STATUS_PER_MINUTE = 20, 6, 30
# The media transfer rules: one chunk under 5 MB, else chunks of 5 to 64 MB, the last one
# taking the remainder (up to 128 MB). 10 MB keeps a 4 GB video within 1,000 chunks.
MB = 1024 * 1024
CHUNK = 10 * MB
READ_BLOCK = 64 * 1024  # what one read of a chunk's body takes from the file
# Access tokens last 24 hours (2 in newer documentation): refresh half an hour before.
REFRESH_BEFORE = _dt.timedelta(minutes=30)
# The longest waits between two status reads (fanout/platforms/polling.py grows to them):
POLL = _dt.timedelta(seconds=10)  # while TikTok processes the post
MODERATION_POLL = _dt.timedelta(seconds=60)  # while a published post awaits its public id
MODERATION_WAIT = _dt.timedelta(minutes=30)  # then it is settled published without a URL
VIDEO_TYPES = {"mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm"}
# openapi.yaml `TiktokOptions`, sent in `post_info` as TikTok names them (privacy_level
# and the three the creator may have turned off are chosen in `post_info`).
OPTION_FIELDS = ("privacy_level", "disable_comment", "disable_duet", "disable_stitch", "brand_content_toggle",
                 "brand_organic_toggle", "is_aigc", "auto_add_music")
CREATOR_OFF = (("disable_comment", "comment_disabled", "comments"), ("disable_duet", "duet_disabled", "duets"),
               ("disable_stitch", "stitch_disabled", "stitches"))
# What the reference promises: a publish id of at most 64 characters
# (`v_pub_file~v2-1.123456789`), public post ids of digits (int64), and the statuses a
# Direct Post goes through (SEND_TO_USER_INBOX ends an inbox upload, which is never made).
PUBLISH_ID = re.compile(r"[A-Za-z0-9_.~-]{1,64}")
POST_ID = re.compile(r"[0-9]{1,20}")
STATUSES = ("PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD", "PUBLISH_COMPLETE", "FAILED")


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What TikTok said, reduced to the signals MAPPING reads (its rows read `message` as
    TikTok wrote it, and two signals of their own)."""

    code: str | None = None  # error.code
    fail_reason: str | None = None

    def signal(self, name: str):
        if name == "option":  # invalid_param naming one of TiktokOptions' fields
            words = self.message.lower()
            return self.code in ("invalid_param", "invalid_params") and any(
                option in words for option in OPTION_FIELDS) or None
        if name == "length":
            words = self.message.lower()
            return self.code in ("invalid_param", "invalid_params") and (
                "length" in words or "too long" in words or "exceed" in words) and (
                "title" in words or "description" in words) or None
        return getattr(self, name)


def read_answer(response: PlatformResponse, *secrets_: str | None) -> Answer:
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    raw = quoted(response, *secrets_)
    if not isinstance(error, dict):
        return Answer(raw=raw, http=response.status)
    return Answer(raw=raw, http=response.status, code=str(error.get("code") or "") or None,
                  message=scrub(str(error.get("message") or ""), *secrets_))


def outcome_of(answer: Answer) -> tuple[Rule | None, Outcome]:
    rule = classify(MAPPING, answer)
    code = rule.code if rule else UNKNOWN
    if code == UNKNOWN:
        message = f"{TITLE} answered {answer.raw}"
    elif answer.fail_reason:
        message = f"{TITLE} could not publish the post: {answer.fail_reason}"
    else:
        message = f"{TITLE}: {answer.code}: {answer.message}" if answer.code else f"{TITLE} answered {answer.raw}"
    return rule, Outcome(error_code=code, error_message=message)


# --- OAuth -------------------------------------------------------------------------------

def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({
        "client_key": app.client_id,
        "response_type": "code",
        "scope": ",".join(SCOPES),
        "redirect_uri": redirect_uri,
        "state": state,
    }, safe=",")
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> access and refresh tokens -> the user's profile (`GET /v2/user/info/`)."""
    answer = TOKEN.request(http, app, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
                    "the code exchange", code)
    token = answer["access_token"]

    def user(body: Any) -> tuple[str, str] | None:
        data = body.get("data") if _ok(body) else None
        found = data.get("user") if isinstance(data, dict) else None
        if not isinstance(found, dict):
            return None
        return found.get("open_id") or answer.get("open_id"), found.get("username") or found.get("display_name")

    user_id, username = read_profile(http, f"{API}/user/info/", token, user, title=TITLE, read_answer=read_answer,
                                     params={"fields": "open_id,display_name,username"})
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=user_id, username=username)


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new pair: the refresh token rotates and the one sent stops working (the engine
    stores the new one first). AuthFailed on `invalid_grant` (expired, revoked or reused)."""
    if not refresh_token:
        raise AuthFailed(f"{TITLE} gave no refresh token: connect the account again")
    answer = TOKEN.request(http, app, {"grant_type": "refresh_token", "refresh_token": refresh_token},
                    "the token refresh", refresh_token, access_token)
    return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


def _refusal(response: PlatformResponse, body: Any, secrets: tuple) -> str:
    """`error: error_description`, TikTok's OAuth error (its API's own errors are objects)."""
    error = body.get("error") if isinstance(body, dict) else None
    words = scrub(str(body.get("error_description") or "") if isinstance(body, dict) else "", *secrets) \
        or read_answer(response, *secrets).raw
    return f"{error or 'error'}: {words}"


def _client_refused(response: PlatformResponse, body: Any) -> bool:
    return isinstance(body, dict) and body.get("error") in ("invalid_client", "unauthorized_client")


# The app's credentials in the form, its id as `client_key`.
TOKEN = TokenEndpoint(f"{API}/oauth/token/", TITLE, "FANOUT_TIKTOK_CLIENT_ID/SECRET", _refusal,
                      client_refused=_client_refused, id_field="client_key")


def _ok(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get("error"), dict) and body["error"].get("code") == "ok"


# --- publishing --------------------------------------------------------------------------

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


def verified(url: str, entries: tuple[str, ...]) -> bool:
    """Whether `url` is under a verified domain (or one of its subdomains) or URL prefix."""
    host = (urlsplit(url).hostname or "").lower()
    for entry in entries:
        if "://" in entry:
            if url.startswith(entry):
                return True
        elif host == entry or host.endswith("." + entry):
            return True
    return False



class _Chunk:
    """`length` bytes of `file` from where it stands, read in small blocks as requests
    sends them: a chunk of tens of MB is never in memory whole."""

    def __init__(self, file, length: int):
        self.file, self.left = file, length

    def __len__(self) -> int:
        return self.left

    def read(self, size: int = -1) -> bytes:
        size = self.left if size is None or size < 0 else min(size, self.left, READ_BLOCK)
        data = self.file.read(size) if size else b""
        self.left -= len(data)
        return data


def chunk_plan(size: int) -> tuple[int, int]:
    """(chunk_size, total_chunk_count) by TikTok's media transfer rules."""
    if size < CHUNK:  # under 5 MB it must be whole; up to 10 MB one chunk is simplest
        return size, 1
    return CHUNK, size // CHUNK


class _Posting(Steps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `creating`: "init" while a post may be starting, with `mode` (file, pull or photo);
    - `publish_id`: TikTok's id of the post being published; `size`, `uploaded`: the
      video's bytes, all sent (FILE_UPLOAD);
    - `username`: the creator's, for the permalink; `since`: when TikTok began processing
      the post (its init answered, or its last byte went in); `completed_at`: when TikTok
      said PUBLISH_COMPLETE without the public id yet.
    """

    title = TITLE

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
        found = []
        for check in (self.check_daily, self.check_windows):
            try:
                check()
            except Stop as stop:
                found.append(stop.result.outcome)
                break  # one rate limit is enough to say
        unverified = self.unverified_pull()
        if unverified is not None:
            found.append(unverified)
        return found

    def check_windows(self) -> None:
        """The per-minute windows a post starts in: creator-info reads, then inits."""
        for kind, limit, what in (("creator_info", CREATOR_INFO_PER_MINUTE, "creator-info reads a minute"),
                                  ("init", INIT_PER_MINUTE, "posts started a minute")):
            if not self.step.per_minute(f"tiktok:{kind}:{self.token_key}", limit):
                raise Stop(failed(RATE, f"{TITLE} allows {limit} {what} per account, and they are used up"))

    def unverified_pull(self) -> Outcome | None:
        """url_ownership_unverified for the first item TikTok would pull (photos always, a
        video by `pull`, or by `auto` from a verified host) from a host not verified."""
        ours = self.settings.of("tiktok")
        photos = [item for item in self.job.media if item.get("type") == "image"]
        pulled = photos or (list(self.job.media) if ours.upload_method == "pull" else [])
        for index, item in enumerate(pulled):
            if not verified(item["url"], ours.verified_domains):
                host = urlsplit(item["url"]).hostname or item["url"]
                return Outcome(error_code=UNVERIFIED, error_message=(
                    f"{TITLE} pulls media[{index}] from {host}, which is not a verified domain or URL prefix of this "
                    "app (FANOUT_TIKTOK_VERIFIED_DOMAINS); verify it with TikTok, or post videos by upload "
                    "(FANOUT_TIKTOK_UPLOAD_METHOD)"))
        return None

    def check_daily(self) -> None:
        recent = self.step.published(self.now - DAY)
        if recent >= DAILY_POSTS:
            raise Stop(failed(RATE, f"{TITLE} allows about {DAILY_POSTS} posts in 24 hours per creator; this "
                                     f"account published {recent}"))

    def start(self) -> Result:
        photos = [item for item in self.job.media if item.get("type") == "image"]
        if photos:
            return self.start_photos(photos)
        [video] = self.job.media
        method = self.settings.of("tiktok").upload_method
        if method == "pull" or (method == "auto" and verified(video["url"], self.settings.of("tiktok").verified_domains)):
            info = self.inspect(video, 0)
            creator = self.creator_info()
            self.check_duration(info, creator)
            return self.init("pull", "video/init/", {
                "post_info": self.post_info(creator, title=True),
                "source_info": {"source": "PULL_FROM_URL", "video_url": video["url"]}})
        return self.upload(video, self.creator_info)

    def start_photos(self, photos: list[Mapping[str, str]]) -> Result:
        for index, item in enumerate(photos):
            self.inspect(item, index)
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

    def upload(self, video: Mapping[str, str], creator_info) -> Result:
        # Imported here: Pillow and mutagen load only in the processes that publish.
        from ...outbound.media_fetch import MediaProblem, fetch

        try:
            media = fetch(self.step.outbound, video["url"], RULES.media_limits, "video", label="media[0]")
        except MediaProblem as e:
            raise Stop(failed(e.code, e.message)) from None
        with media:
            creator = creator_info()
            self.check_duration(media.info, creator)
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
            mime = VIDEO_TYPES.get(media.info.format, "video/mp4")
            for index in range(count):
                first = index * chunk_size
                length = size - first if index == count - 1 else chunk_size
                self.put(upload_url, _Chunk(media.file, length), first, length, size, mime)
        self.state["uploaded"] = True
        self.state["since"] = self.step.now().isoformat()
        self.saved()
        return self.read_status()

    def put(self, url: str, body: _Chunk, first: int, length: int, size: int, mime: str) -> None:
        # Unanswered, the last chunk may still have arrived: the next step reads the status,
        # and starts again if the post is not complete.
        response = self.send("PUT", url, data=body, headers={
            "Content-Type": mime, "Content-Length": str(length),
            "Content-Range": f"bytes {first}-{first + length - 1}/{size}"})
        if response.status in (200, 201, 206):
            return
        answer = read_answer(response)
        rule, outcome = outcome_of(answer)
        if rule is not None and rule.transient:
            self.state.pop("publish_id", None)
            raise Stop(self.retry(outcome.error_message or answer.raw))
        if response.status in (403, 404, 410):
            raise Stop(failed(EXPIRED, f"{TITLE} no longer takes this upload (its URL lasts an hour): "
                                        f"{answer.message or answer.raw}"))
        raise Stop(Done(outcome))

    def inspect(self, item: Mapping[str, str], index: int):
        """The media TikTok will pull, checked as fetched (type, size, duration)."""
        from ...outbound.media_fetch import MediaProblem, inspect

        try:
            return inspect(self.step.outbound, item["url"], RULES.media_limits, item["type"],
                           label=f"media[{index}]")
        except MediaProblem as e:
            raise Stop(failed(e.code, e.message)) from None

    def creator_info(self) -> Mapping[str, Any]:
        """TikTok requires it before every post: the privacy levels offered, the creator's
        settings and maximum video duration."""
        if not self.step.per_minute(f"tiktok:creator_info:{self.token_key}", CREATOR_INFO_PER_MINUTE):
            raise Stop(failed(RATE, f"{TITLE} allows {CREATOR_INFO_PER_MINUTE} creator-info reads a minute per "
                                     "account, and they are used up"))
        data = self.call("post/publish/creator_info/query/", {}, "the creator info")
        if not isinstance(data.get("privacy_level_options"), list):
            raise UnusableAnswer("the creator info without its privacy_level_options list")
        if data.get("creator_username"):
            self.state["username"] = str(data["creator_username"])
        return data

    def post_info(self, creator: Mapping[str, Any], *, title: bool) -> dict:
        """The post's `post_info`: the privacy level (the post's option, else the server's
        setting, else the most public the creator is offered), the creator's settings with
        the post's options, the title."""
        options = [o for o in creator.get("privacy_level_options") or [] if isinstance(o, str)]
        offered = ", ".join(options) or "no level"
        chosen = self.job.options.get("privacy_level")
        if chosen is not None and chosen not in options:
            raise Stop(failed(OPTION, f"options.privacy_level is {chosen}, which TikTok does not offer this creator; "
                                      f"it offers {offered}"))
        wanted = chosen or self.settings.of("tiktok").privacy_level
        if wanted is not None and wanted not in options:
            raise Stop(failed(UNKNOWN, f"FANOUT_TIKTOK_PRIVACY_LEVEL is {wanted}, which this creator does not "
                                        f"offer; TikTok offers {offered}"))
        level = wanted or next((o for o in PRIVACY_ORDER if o in options), options[0] if options else None)
        if level is None:
            raise Stop(failed(UNKNOWN, f"{TITLE} offers this creator no privacy level to post with"))
        info: dict[str, Any] = {"privacy_level": level}
        for option, setting, noun in CREATOR_OFF:
            # A setting the creator turned off stays off (TikTok's content sharing guidelines).
            off, asked = bool(creator.get(setting)), self.job.options.get(option)
            if off and asked is False:
                raise Stop(failed(OPTION, f"options.{option} is false, but this creator turned {noun} off on "
                                          f"{TITLE}, where they stay off"))
            info[option] = off or bool(asked)
        for option in ("brand_content_toggle", "brand_organic_toggle", "is_aigc"):
            if option in self.job.options:
                info[option] = bool(self.job.options[option])
        if title and self.job.caption:
            info["title"] = self.job.caption
        return info

    def check_duration(self, info, creator: Mapping[str, Any]) -> None:
        longest = number(creator.get("max_video_post_duration_sec"))
        if longest and info.duration is not None and info.duration > longest:
            raise Stop(failed(UNSUPPORTED,
                               f"media[0]: the video lasts {info.duration:.1f} s; this TikTok creator may post "
                               f"videos of {longest} s at most"))

    def init(self, mode: str, path: str, payload: dict, *, settle: bool = True):
        """Start the post: the marker first, then the call that may publish it."""
        if not self.step.per_minute(f"tiktok:init:{self.token_key}", INIT_PER_MINUTE):
            raise Stop(failed(RATE, f"{TITLE} allows {INIT_PER_MINUTE} posts started a minute per account, and "
                                     "they are used up"))
        self.state.update(creating="init", mode=mode)
        self.state.pop("uploaded", None)
        self.saved()
        what = "the photo post's init" if mode == "photo" else "the video's init"
        try:
            data = self.call(f"post/publish/{path}", payload, what, creating=True)
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
            data = self.call("post/publish/status/fetch/", {"publish_id": self.state["publish_id"]},
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
            return Done(outcome_of(answer)[1])
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

    # -- calls

    def call(self, path: str, payload: dict, what: str, *, creating: bool = False) -> Mapping[str, Any]:
        """One Content Posting call (POST, JSON) answering its `data`: a clear failure ends
        the step, an answer out of the envelope the reference promises (`what`) breaks the
        contract."""
        try:
            response = self.step.http.post(f"{API}/{path}", json_body=payload, headers={
                **bearer(self.job.access_token), "Content-Type": "application/json; charset=UTF-8"})
        except PlatformUnreachable as e:
            if creating and not e.sent:
                self.state.pop("creating", None)  # it never left: nothing to reconcile
            raise Stop(self.retry(e.message)) from None
        if 200 <= response.status < 300:
            # Success or not, a 2xx answers the envelope; only error.code "ok" is success.
            body = document(response, what, self.job.access_token)
            error = member(body, "error", what)
            if error.get("code") == "ok":
                return member(body, "data", what)
        answer = read_answer(response, self.job.access_token)
        rule, outcome = outcome_of(answer)
        if creating:
            self.state.pop("creating", None)  # a clear refusal: nothing was started
        raise self.refusal(rule, outcome, answer)
