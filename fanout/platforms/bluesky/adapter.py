"""Bluesky (the AT Protocol): signing in with an app password, the session refresh, and
posts written into the account's repository (docs/platforms.md#bluesky).

Identity: a handle is resolved to its DID by `com.atproto.identity.resolveHandle` on the
entryway (bsky.social), the DID to its document on plc.directory, and the document names
the account's PDS; every later call goes to that PDS (`createSession`, `refreshSession`,
blobs, records), which passes sign-ins on to the entryway for the accounts Bluesky hosts.
FANOUT_PLATFORM_HOSTS rewrites the PDS's host like any other. Only `did:plc` accounts are
taken (a `did:web` document lives on a host the account chooses).

A post is published in steps over saved state, part after part (a thread's parts reply
to the first and to the one before):
1. each image is fetched once (fanout/outbound/media_fetch.py checks it as it streams) and
   uploaded to the PDS (`uploadBlob`); a video goes to the video service
   (video.bsky.app, with a service token the PDS makes) and is read back, a scheduled
   step at a time, until its job is done and names its blob;
2. the record, with its facets (links, mentions, hashtags in UTF-8 byte offsets), is
   written by `createRecord` under a record key (a TID) chosen and saved before the call;
3. `external_url` is `https://bsky.app/profile/{did}/post/{rkey}` of the first part.

Never twice: after a call whose outcome is unknown (no answer, a 5xx; the PDS answers a
record key in use with 500) the next step asks `getRecord` for the saved key first: found,
the part is out; RecordNotFound, it is written again under the same key, so a retry makes
the same record or finds it. An answer that breaks the contract (a 200 that is not JSON, a
record's uri that is not the one written: fanout/platforms/contract.py) fails the target at
once; a record's own answer is read back first, in the same step, and never written again.
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ...target_errors import AUTH, CAPTION, MEDIA, RATE, UNKNOWN
from ..base import (
    CREDENTIALS, AccountNotEligible, AuthFailed, Done, Field, Grant, Job, Outcome, Result, SignInRefused, Step,
    Stop, Wait, bearer, failed,
)
from ..contract import UnusableAnswer, document, identifier, may_be_out, member
from ..http import PlatformResponse, PlatformUnreachable
from .. import mapping
from ..mapping import Rule, classify, number, quoted, scrub
from ..polling import next_check
from ..steps import Steps
from .errors import MAPPING
from .rules import RULES
from .text import HANDLE, facets, mentioned

ENTRYWAY, PLC, VIDEO = "bsky.social", "plc.directory", "video.bsky.app"
HOSTS = (ENTRYWAY, PLC, VIDEO)  # and each account's PDS, named by its DID document
SCOPES: tuple[str, ...] = ()  # an app password may do what the account may
UPLOADS_MEDIA = True
CONNECT_STYLE = CREDENTIALS
TITLE = "Bluesky"
fields = (
    Field("identifier", "handle", hint="Your Bluesky handle, such as alice.bsky.social."),
    Field("password", "app password", secret=True,
          hint="Make one in Bluesky's settings, under Privacy and security, App passwords."),
)

POST = "app.bsky.feed.post"
# An access JWT lives 2 hours; its refresh JWT 90 days and is rotated by every refresh.
REFRESH_BEFORE = _dt.timedelta(minutes=15)
ACCESS_LIFETIME = _dt.timedelta(hours=2)  # when a JWT does not say
# A video token may be asked for an hour at most; uploads take well under that.
SERVICE_TOKEN = _dt.timedelta(minutes=30)
VIDEO_CHECK_MOST = _dt.timedelta(seconds=30)
VIDEO_WINDOW = _dt.timedelta(minutes=30)  # a job not done by then fails the target
DID_PLC = re.compile(r"did:plc:[a-z2-7]{24}")
CID = re.compile(r"b[a-z2-7]{8,}")  # CIDv1 in base32, as records are named
DID = re.compile(r"did:[a-z]+:[A-Za-z0-9._:%-]{1,2048}")
JOB_ID = re.compile(r"[A-Za-z0-9._:~-]{1,256}")
TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"


# --- answers ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What Bluesky said, reduced to the signals MAPPING reads."""

    error: str | None = None  # the XRPC error name
    job_error: str | None = None  # a failed video job's failureCode


def read_answer(response: PlatformResponse, *secrets_: str | None) -> Answer:
    body = response.json()
    raw = quoted(response, *secrets_)
    if not isinstance(body, dict):
        return Answer(raw=raw, http=response.status)
    error, message = body.get("error"), body.get("message")
    strings = [s for s in (error, message) if isinstance(s, str)]
    return Answer(raw=raw, http=response.status, error=error if isinstance(error, str) else None,
                  text=" ".join(strings).lower(), message=scrub(message, *secrets_) if isinstance(message, str) else "")


def outcome_of(answer: Answer) -> tuple[Rule | None, Outcome]:
    """The target's failure for an answer, and the row that decided it (None: unmatched)."""
    rule = classify(MAPPING, answer)
    code = rule.code if rule else UNKNOWN
    if code == UNKNOWN:
        message = f"{TITLE} answered {answer.raw}"
    else:
        said = f"{answer.error}: {answer.message}" if answer.error and answer.message else answer.message or answer.raw
        message = f"{TITLE}: {said}"
    return rule, Outcome(error_code=code, error_message=message)


# --- identity --------------------------------------------------------------------------------

def jwt_claims(token: str) -> dict:
    """A JWT's payload as the server wrote it (read, not verified: it is our own token)."""
    try:
        body = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (IndexError, ValueError):
        return {}
    return claims if isinstance(claims, dict) else {}


def resolve_handle(http, handle: str) -> str | None:
    """The DID of a handle (None: no account has it), asked of the entryway."""
    response = http.get(f"https://{ENTRYWAY}/xrpc/com.atproto.identity.resolveHandle", params={"handle": handle})
    if response.status == 200:
        return identifier(document(response, "a handle's resolution"), "did", "a handle's resolution", DID)
    if response.status == 400:
        return None
    raise PlatformUnreachable(f"{TITLE} could not resolve a handle (HTTP {response.status})", sent=True)


def pds_of(http, did: str) -> str:
    """The PDS (`https://host`) the DID's document names. AccountNotEligible for a DID this
    adapter cannot use; AuthFailed when the directory does not know it; UnusableAnswer when
    its answer is not the JSON document it promises."""
    if not DID_PLC.fullmatch(did):
        raise AccountNotEligible(f"{did} is not a did:plc; other DID methods are not supported")
    response = http.get(f"https://{PLC}/{did}")
    if response.status == 404:
        raise AuthFailed(f"plc.directory does not know {did}")
    if response.status != 200:
        raise PlatformUnreachable(f"plc.directory answered HTTP {response.status}", sent=True)
    document_ = document(response, "the DID document")  # not JSON: the directory's break, not the account's
    services = document_.get("service")
    for service in services if isinstance(services, list) else []:
        if isinstance(service, dict) and str(service.get("id", "")).endswith("#atproto_pds") \
                and service.get("type") == "AtprotoPersonalDataServer":
            return _pds_url(service.get("serviceEndpoint"))
    raise AccountNotEligible(f"the DID document of {did} names no PDS")


def _pds_url(endpoint: Any) -> str:
    """The PDS's base URL, if it is one Fanout will call: https on a DNS name (never an
    address: the document is the account's to write)."""
    parts = urlsplit(endpoint) if isinstance(endpoint, str) else None
    host = (parts.hostname or "") if parts else ""
    if parts is None or parts.scheme != "https" or parts.path not in ("", "/") or parts.query or parts.username \
            or not HANDLE.fullmatch(host) or host == "localhost" or host.endswith(".localhost"):
        raise AccountNotEligible("the account's DID document names a PDS that is not an https host name")
    port = f":{parts.port}" if parts.port else ""
    return f"https://{host}{port}"


def _grant(body: Mapping[str, Any], now: _dt.datetime) -> Grant:
    """The tokens of a createSession or refreshSession answer; the access JWT's own
    lifetime (`exp` - `iat`) counted on the engine's clock."""
    access, refresh = body.get("accessJwt"), body.get("refreshJwt")
    if not isinstance(access, str) or not isinstance(refresh, str) or not isinstance(body.get("did"), str):
        raise AuthFailed(f"{TITLE} answered a session without its tokens")
    claims = jwt_claims(access)
    issued, ends = number(claims.get("iat")), number(claims.get("exp"))
    lifetime = ends - issued if issued is not None and ends is not None else 0
    expires = now + (_dt.timedelta(seconds=lifetime) if lifetime > 0 else ACCESS_LIFETIME)
    return Grant(access_token=access, refresh_token=refresh, expires_at=expires, user_id=body["did"],
                 username=str(body.get("handle") or body["did"]))


def _session_refused(response: PlatformResponse, what: str, *secrets_: str | None) -> Exception:
    answer = read_answer(response, *secrets_)
    if response.status >= 500:
        return PlatformUnreachable(f"{TITLE} failed {what} (HTTP {response.status})", sent=True)
    if response.status == 429:
        return PlatformUnreachable(f"{TITLE} limits {what}: {answer.message or answer.raw}", sent=True)
    return AuthFailed(f"{TITLE} refused {what}: {answer.error or answer.raw}"
                      f"{': ' + answer.message if answer.message else ''}")


# --- connect: the credentials style ------------------------------------------------------------

def sign_in(http, identifier: str, password: str, *, now: _dt.datetime, settings=None) -> Grant:
    """Handle (or DID) -> DID -> PDS -> `createSession` there with the app password.

    SignInRefused for an unknown handle or a wrong password (the form is shown again),
    AccountNotEligible for an account Fanout cannot post for, PlatformUnreachable when
    Bluesky cannot be asked."""
    wanted = identifier.strip().removeprefix("@").lower()
    if wanted.startswith("did:"):
        did = wanted
    elif HANDLE.fullmatch(wanted):
        try:
            did = resolve_handle(http, wanted)
        except UnusableAnswer as e:
            raise AuthFailed(f"{TITLE} answered {e.what}") from None
        if did is None:
            raise SignInRefused(f"no {TITLE} account has the handle {wanted}")
    else:
        raise SignInRefused(f"{identifier!r} is not a Bluesky handle")
    try:
        pds = pds_of(http, did)
    except UnusableAnswer as e:
        raise AuthFailed(f"{TITLE} answered {e.what}") from None
    response = http.post(f"{pds}/xrpc/com.atproto.server.createSession",
                         json_body={"identifier": did, "password": password})
    body = response.json()
    if response.status != 200 or not isinstance(body, dict):
        refusal = _session_refused(response, "the sign-in", password)
        if isinstance(refusal, AuthFailed) and response.status in (400, 401):
            answer = read_answer(response, password)
            if answer.error == "AccountTakedown":
                raise AccountNotEligible(f"{TITLE} has taken this account down")
            raise SignInRefused(refusal.reason)
        raise refusal
    if body.get("did") != did:
        raise AuthFailed(f"{TITLE} signed in {body.get('did')}, not {did}")
    if body.get("active") is False or body.get("status"):
        raise AccountNotEligible(f"the {TITLE} account is {body.get('status') or 'not active'}")
    return _grant(body, now)


def refresh(http, app, access_token: str, refresh_token: str | None = None, *, now: _dt.datetime) -> Grant:
    """A new pair from `refreshSession` at the account's PDS (the refresh JWT names the
    account; the old one stops working once used). AuthFailed when the PDS refuses it
    (expired, revoked with the app password): the account must sign in again."""
    did = jwt_claims(refresh_token or "").get("sub")
    if not refresh_token or not isinstance(did, str):
        raise AuthFailed(f"{TITLE} session has no refresh token: sign in again")
    pds = pds_of(http, did)
    response = http.post(f"{pds}/xrpc/com.atproto.server.refreshSession", headers=bearer(refresh_token))
    body = response.json()
    if response.status != 200 or not isinstance(body, dict):
        raise _session_refused(response, "the session refresh", refresh_token, access_token)
    return _grant(body, now)


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


# --- record keys and links ------------------------------------------------------------------

def tid(moment: _dt.datetime, clock_id: int) -> str:
    """A record key of type `tid`: microseconds since the epoch and a 10-bit clock id, in
    base32-sortable (13 characters)."""
    micros = int(moment.replace(tzinfo=_dt.timezone.utc).timestamp() * 1_000_000)
    number_ = (micros << 10) | (clock_id & 0x3FF)
    out = ""
    for _ in range(13):
        number_, digit = divmod(number_, 32)
        out = TID_ALPHABET[digit] + out
    return out


def permalink(did: str, rkey: str) -> str:
    return f"https://bsky.app/profile/{did}/post/{rkey}"


def _time(moment: _dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


# --- publishing ------------------------------------------------------------------------------

def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def parts(job: Job) -> list[tuple[str, tuple]]:
    """(caption, media) of the post and of each further part of its thread, in order."""
    return [(part.caption, tuple(part.media)) for part in job.parts]


class _Posting(Steps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `pds`: the account's PDS, from its DID document;
    - `parts`: per part written or being written, in order: {rkey, created_at, embed?,
      video?: {job, since}, ref?: {uri, cid}} (`ref` once the record is known to exist).
    """

    title = TITLE
    index = 0  # the part being written

    def unusable(self, error: UnusableAnswer) -> Done:
        done = super().unusable(error)
        return Done(dataclasses.replace(done.outcome, error_message=self.where(self.index,
                                                                             done.outcome.error_message or "")))

    def next(self) -> Result:
        todo = parts(self.job)
        done = self.state.get("parts", [])
        if len(done) == len(todo) and all(p.get("ref") for p in done):
            return self.finish()
        if not self.state:
            self.check(todo)
        if "pds" not in self.state:
            self.state["pds"] = self.pds()
            self.state["parts"] = []
        for index, (caption, media) in enumerate(todo):
            self.index = index
            if index == len(self.state["parts"]):
                self.state["parts"].append({"rkey": self.rkey(index)})
            part = self.state["parts"][index]
            if part.get("ref"):
                continue
            if "embed" not in part and media:
                waiting = self.embed(index, part, media)
                if waiting is not None:
                    return waiting
            self.write(index, part, caption)
        return self.finish()

    def finish(self) -> Done:
        first = self.state["parts"][0]
        return Done(Outcome(external_url=permalink(self.job.user_id, first["rkey"])))

    def check(self, todo: list) -> None:
        """Each further part meets the rules before anything is sent (the engine checked the first)."""
        for index, (caption, media) in enumerate(todo[1:], start=2):
            problem = RULES.caption_problem(caption)
            if problem:
                raise Stop(failed(CAPTION, f"thread part {index}: {problem}"))
            problem = RULES.media_problem([dict(m) for m in media])
            if problem:
                raise Stop(failed(MEDIA, f"thread part {index}: {problem}"))

    def pds(self) -> str:
        try:
            return pds_of(self.step.http, self.job.user_id)
        except PlatformUnreachable as e:
            raise Stop(self.retry(e.message)) from None
        except AuthFailed as e:
            raise Stop(failed(AUTH, f"{TITLE}: {e.reason}")) from None

    def rkey(self, index: int) -> str:
        """A TID of now, the part's index added in microseconds, and a clock id of the
        target's: saved before the record is written."""
        clock_id = int(hashlib.sha256(self.job.target_id.encode()).hexdigest(), 16) % 1024
        return tid(self.now + _dt.timedelta(microseconds=index), clock_id)

    def parts_out(self) -> tuple[str, ...]:
        out = []
        for part in self.state.get("parts", []):
            if not part.get("ref"):
                break  # the parts are written in order: the one without a ref is being written
            out.append(permalink(self.job.user_id, part["rkey"]))
        return tuple(out)

    def where(self, index: int, text: str) -> str:
        """How a failure names the part of a thread it happened to."""
        if len(parts(self.job)) == 1:
            return text
        out = [permalink(self.job.user_id, p["rkey"]) for p in self.state.get("parts", []) if p.get("ref")]
        published = f" (published already: {', '.join(out)})" if out else ""
        return f"thread part {index + 1}: {text}{published}"

    def fail(self, index: int, outcome: Outcome) -> Stop:
        return Stop(failed(outcome.error_code or UNKNOWN, self.where(index, outcome.error_message or "")))

    # -- media

    def embed(self, index: int, part: dict, media: tuple) -> Result | None:
        """The part's embed in its state, uploaded now; a Wait while a video is processed."""
        if media[0].get("type") == "video":
            return self.video(index, part, media[0])
        images = []
        for number_, item in enumerate(media):
            blob, info = self.upload_image(index, number_, item)
            image = {"image": blob, "alt": RULES.alt_text_of(item) or ""}
            if info.width and info.height:
                image["aspectRatio"] = {"width": info.width, "height": info.height}
            images.append(image)
        part["embed"] = {"$type": "app.bsky.embed.images", "images": images}
        self.saved()
        return None

    def fetched(self, index: int, number_: int, item: Mapping[str, str]):
        # Imported here: Pillow and mutagen load only in the processes that publish.
        from ...outbound.media_fetch import MediaProblem, fetch

        self.saved()  # renews the lease (and stops here if it was lost) before a long upload
        label = f"media[{number_}]" if index == 0 else f"thread part {index + 1} media[{number_}]"
        try:
            return fetch(self.step.outbound, item["url"], RULES.media_limits, item["type"], label=label)
        except MediaProblem as e:
            raise Stop(failed(e.code, e.message)) from None

    def upload_image(self, index: int, number_: int, item: Mapping[str, str]) -> tuple[dict, Any]:
        with self.fetched(index, number_, item) as media:
            body = self.call(index, "POST", "/xrpc/com.atproto.repo.uploadBlob", "the image's upload",
                             data=media.file.read(), headers={"Content-Type": media.info.mime})
            info = media.info
        blob = member(body, "blob", "the image's upload")
        if blob.get("$type") != "blob":
            raise UnusableAnswer("the image's upload with a blob whose $type is not blob")
        return dict(blob), info

    def video(self, index: int, part: dict, item: Mapping[str, str]) -> Result | None:
        """Send the video to the video service once, then read its job until it names the blob."""
        video = part.get("video")
        if video is None:
            with self.fetched(index, 0, item) as media:
                status, aspect = self.upload_video(index, media), None
                if media.info.width and media.info.height:
                    aspect = {"width": media.info.width, "height": media.info.height}
            video = part["video"] = {"job": status.get("jobId"), "since": self.now.isoformat()}
            if aspect:
                video["aspect"] = aspect
            self.saved()
        else:
            status = self.job_status(index, video["job"])
        if status.get("state") == "JOB_STATE_FAILED" or (status.get("error") and not status.get("blob")):
            answer = Answer(raw=scrub(json.dumps(status)), error=status.get("error"), job_error=status.get("error"),
                            message=scrub(str(status.get("message") or "")), text=str(status.get("message")).lower())
            raise self.fail(index, outcome_of(answer)[1])
        blob = status.get("blob")
        if isinstance(blob, dict):
            embed = {"$type": "app.bsky.embed.video", "video": blob, "alt": RULES.alt_text_of(item) or ""}
            if video.get("aspect"):
                embed["aspectRatio"] = video["aspect"]
            part["embed"] = embed
            part.pop("video", None)
            self.saved()
            return None
        since = _dt.datetime.fromisoformat(video["since"])
        if self.now >= since + VIDEO_WINDOW:
            raise self.fail(index, Outcome(error_code=UNKNOWN, error_message=f"{TITLE}'s video service did not "
                                                                              f"finish the video in 30 minutes"))
        return Wait(until=next_check(since, self.now, most=VIDEO_CHECK_MOST, deadline=since + VIDEO_WINDOW),
                    state=self.snapshot())

    def upload_video(self, index: int, media) -> dict:
        pds_host = urlsplit(self.state["pds"]).hostname
        what = "the service token"
        token = self.call(index, "GET", "/xrpc/com.atproto.server.getServiceAuth", what, params={
            "aud": f"did:web:{pds_host}", "lxm": "com.atproto.repo.uploadBlob",
            "exp": str(int((self.now + SERVICE_TOKEN).replace(tzinfo=_dt.timezone.utc).timestamp()))}).get("token")
        if not isinstance(token, str) or not token:
            raise UnusableAnswer(f"{what} without its token")
        what = "the video's upload"
        body = self.call(index, "POST", f"https://{VIDEO}/xrpc/app.bsky.video.uploadVideo", what,
                         params={"did": self.job.user_id, "name": f"{self.job.target_id}-{index}.mp4"},
                         data=media.file, headers={"Content-Type": "video/mp4"}, token=token, already_ok=True)
        # The Lexicon wraps the job in `jobStatus`; the service has answered it flat too.
        status = body.get("jobStatus") if isinstance(body.get("jobStatus"), dict) else body
        if not isinstance(status.get("blob"), dict):
            identifier(status, "jobId", what, JOB_ID)
        return dict(status)

    def job_status(self, index: int, job_id: str) -> dict:
        what = "the video's job status"
        body = self.call(index, "GET", f"https://{VIDEO}/xrpc/app.bsky.video.getJobStatus", what,
                         params={"jobId": job_id}, token="")
        # Its states are not checked: the Lexicon says an unknown one is still in progress.
        return dict(member(body, "jobStatus", what))

    # -- the record

    def write(self, index: int, part: dict, caption: str) -> None:
        """Write the part's record under its saved key; or find it, when an earlier step may
        have written it."""
        if part.get("sent"):
            found = self.find(index, part["rkey"])
            if found is not None:
                self.settle(part, found)
                return
        record: dict[str, Any] = {"$type": POST, "text": caption,
                                  "createdAt": part.setdefault("created_at", _time(self.now))}
        found_facets = facets(caption, self.resolve_mentions(index, caption))
        if found_facets:
            record["facets"] = found_facets
        if part.get("embed"):
            record["embed"] = part["embed"]
        if index > 0:
            done = self.state["parts"]
            record["reply"] = {"root": done[0]["ref"], "parent": done[index - 1]["ref"]}
        part["sent"] = True
        self.saved()
        what = "the post's record"
        try:
            body = self.call(index, "POST", "/xrpc/com.atproto.repo.createRecord", what, json_body={
                "repo": self.job.user_id, "collection": POST, "rkey": part["rkey"], "record": record}, creating=part)
            self.settle(part, self.reference(body, part["rkey"], what))
        except _LostBlob:
            part.pop("embed", None)
            part.pop("sent", None)
            raise Stop(self.retry(f"{TITLE} no longer had an uploaded file; uploading it again")) from None
        except UnusableAnswer as e:
            self.read_back(index, part, e)

    def read_back(self, index: int, part: dict, error: UnusableAnswer) -> None:
        """The record's answer broke the contract, so it may be written: `getRecord` on its
        key says, now, and it is never written again. There, the part is out; not there, or
        unreadable, the target fails with the break."""
        try:
            found = self.find(index, part["rkey"])
        except (Stop, UnusableAnswer):
            raise error.after(may_be_out(TITLE)) from None
        if found is None:
            raise error.after("its record is not there, so nothing was published")
        self.settle(part, found)

    def reference(self, body: Mapping[str, Any], rkey: str, what: str) -> dict:
        """{uri, cid} of the record written under `rkey`, as the PDS names it: the uri must be
        the one written."""
        uri = identifier(body, "uri", what, re.compile(re.escape(f"at://{self.job.user_id}/{POST}/{rkey}")))
        return {"uri": uri, "cid": identifier(body, "cid", what, CID)}

    def settle(self, part: dict, ref: dict) -> None:
        part["ref"] = ref
        part.pop("sent", None)
        part.pop("embed", None)  # written: the blobs are the record's now
        self.saved()

    def find(self, index: int, rkey: str) -> dict | None:
        """The record under `rkey` if the PDS has it ({uri, cid}), else None."""
        response = self.send("GET", f"{self.state['pds']}/xrpc/com.atproto.repo.getRecord",
                             params={"repo": self.job.user_id, "collection": POST, "rkey": rkey})
        if response.status == 200:
            what = "the post's record read back"
            try:
                body = document(response, what, self.job.access_token)
                return self.reference({"uri": f"at://{self.job.user_id}/{POST}/{rkey}", **body}, rkey, what)
            except UnusableAnswer as e:
                raise e.after(may_be_out(TITLE)) from None
        body = response.json()
        if response.status == 400 and isinstance(body, dict) and body.get("error") == "RecordNotFound":
            return None
        raise Stop(self.retry(f"{TITLE} could not say whether the post exists: {read_answer(response).raw}"))

    def resolve_mentions(self, index: int, caption: str) -> dict[str, str]:
        """handle -> DID for each handle the caption mentions that has an account."""
        dids = {}
        for handle in mentioned(caption):
            try:
                did = resolve_handle(self.step.http, handle)
            except PlatformUnreachable as e:
                raise Stop(self.retry(e.message)) from None
            if did is not None:
                dids[handle] = did
        return dids

    # -- calls

    def call(self, index: int, method: str, path: str, what: str, *, token: str | None = None,
             creating: dict | None = None, already_ok: bool = False, **kwargs) -> Mapping[str, Any]:
        """One call (to the PDS when `path` is a path) with the account's token (or `token`;
        "" for none) answering `what`'s JSON object; a clear failure ends the step (Stop).
        `creating`: the part whose record this call writes, settled by reading back after an
        unknown outcome."""
        url = path if path.startswith("https://") else f"{self.state['pds']}{path}"
        token = self.job.access_token if token is None else token
        headers = {**(kwargs.pop("headers", None) or {}), **(bearer(token) if token else {})}
        response = self.send(method, url, headers=headers, **kwargs)
        if response.status == 200:
            return document(response, what, self.job.access_token, token)
        body = response.json()
        if already_ok and response.status == 409 and isinstance(body, dict) and isinstance(body.get("blob"), dict):
            return body  # the video service has this video already: its answer names the blob
        answer = read_answer(response, self.job.access_token, token)
        if creating is not None and answer.error == "BlobNotFound":
            raise _LostBlob()
        rule, outcome = outcome_of(answer)
        if rule is not None and rule.transient:
            raise Stop(self.retry(outcome.error_message or answer.raw))
        if outcome.error_code == RATE:
            outcome = Outcome(error_code=RATE, error_message=_rate_message(response, outcome.error_message))
        raise self.fail(index, outcome)


class _LostBlob(Exception):
    """The PDS no longer has a blob the record names (unreferenced blobs are swept)."""


def _rate_message(response: PlatformResponse, message: str | None) -> str:
    headers = {k.lower(): v for k, v in response.headers.items()}
    moment = number(headers.get("ratelimit-reset"))
    if moment is None:
        return message or f"{TITLE}'s rate limit is reached"
    when = _dt.datetime.fromtimestamp(moment, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{message} (the limit resets at {when})"


__all__ = ["HOSTS", "permalink", "publish", "refresh", "refresh_due", "sign_in", "tid"]
