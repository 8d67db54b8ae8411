"""LinkedIn (Share on LinkedIn, the versioned Posts API): the OAuth flow and a member's
posts (docs/platforms.md#linkedin).

Authorize and the token endpoint on www.linkedin.com, everything else on api.linkedin.com:
`/v2/userinfo` (OpenID Connect) for the member, and under `/rest/` the versioned API, each
call naming `LinkedIn-Version` (FANOUT_LINKEDIN_API_VERSION) and Rest.li 2.0.0.

A post is published in steps over saved state:
1. each media file is fetched once (fanout/outbound/media_fetch.py checks it as it
   streams) and uploaded: an image through the Images API (initialize, then one PUT of the
   bytes to the upload URL it names), a video through the Videos API (initialize, a PUT of
   each 4 MiB part keeping its ETag, finalize with the ETags in order);
2. the media is read back (`GET /rest/images/{urn}`, `/rest/videos/{urn}`), a scheduled
   step at a time, until LinkedIn has processed it (AVAILABLE);
3. `POST /rest/posts` with the commentary escaped as little text; 201 names the post in
   `x-restli-id`, and `external_url` is `https://www.linkedin.com/feed/update/{urn}/`.

Never twice: a mark is saved before the post is sent. Reading a member's posts back needs
`r_member_social`, which LinkedIn gives few apps, so a step that finds the mark without the
post's URN sends the same post again: if the first one arrived, LinkedIn refuses the copy
as a duplicate naming the first (422 DUPLICATE_POST), and that URN is the post. An answer
that breaks LinkedIn's contract (a 2xx that is not JSON, an upload URL off its hosts, a URN
of the wrong shape, a media status it does not list: fanout/platforms/contract.py) fails
the target at once; a post answered without its URN is out, and is never sent again.
"""
from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from ...target_errors import MEDIA, RATE, UNKNOWN
from ..base import (
    App, AuthFailed, Authorization, ClientRefused, Done, Grant, Job, Outcome, Result, Step, Stop, Wait, bearer,
    expiry, failed,
)
from ..contract import UnusableAnswer, document, identifier, may_be_out, member, on_hosts, one_of
from ..http import PlatformResponse
from .. import mapping
from ..mapping import Rule, classify, number, quoted, scrub
from ..oauth import TokenEndpoint, answered, in_words_of, read_profile
from ..polling import next_check
from ..steps import Steps
from .errors import MAPPING
from .rules import RULES
from .text import escape

HOSTS = ("www.linkedin.com", "api.linkedin.com")
SCOPES = ("openid", "profile", "w_member_social")
UPLOADS_MEDIA = True
TITLE = "LinkedIn"
# LinkedIn's words for a member who said no at its consent page (connect_flow's `denials`).
DENIED = ("user_cancelled_authorize", "user_cancelled_login")

AUTHORIZE_URL = "https://www.linkedin.com/oauth/v2/authorization"
TOKEN_URL = "https://www.linkedin.com/oauth/v2/accessToken"
INTROSPECT_URL = "https://www.linkedin.com/oauth/v2/introspectToken"
USERINFO_URL = "https://api.linkedin.com/v2/userinfo"
REST = "https://api.linkedin.com/rest"
# Access tokens live 60 days; refreshed (or, without refresh tokens, asked about) an hour
# before they end, so that an account without refresh tokens expires when its token does.
REFRESH_BEFORE = _dt.timedelta(hours=1)
# About 150 posts a day per member, counted from 00:00 UTC [S].
DAILY_POSTS = 150
# Media being processed is read again on the schedule of fanout/platforms/polling.py, at
# most this far apart, for at most MEDIA_WINDOW.
CHECK_MOST = _dt.timedelta(seconds=30)
MEDIA_WINDOW = _dt.timedelta(minutes=30)
# A member token may not be allowed to read its media back (403): posted after this.
UNREADABLE_GRACE = {"image": _dt.timedelta(seconds=5), "video": _dt.timedelta(seconds=60)}
_DUPLICATE_OF = re.compile(r"duplicate of (urn:li:[A-Za-z]+:[0-9A-Za-z_-]+)")
MEDIA_STATUSES = ("WAITING_UPLOAD", "PROCESSING", "AVAILABLE", "PROCESSING_FAILED")


def urn(kinds: str) -> re.Pattern:
    """The shape of a URN of one of `kinds` (`share|ugcPost`), as LinkedIn names its entities."""
    return re.compile(rf"urn:li:(?:{kinds}):[0-9A-Za-z_-]{{1,128}}")


# --- answers ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What LinkedIn said, reduced to the signals MAPPING reads."""

    code: str | None = None  # the REST code (EXPIRED_ACCESS_TOKEN...)
    service: int | None = None  # serviceErrorCode
    input: str | None = None  # the first input error's code (DUPLICATE_POST...)
    media_status: str | None = None  # a media's status read back


def read_answer(response: PlatformResponse, *secrets_: str | None) -> Answer:
    body = response.json()
    raw = quoted(response, *secrets_)
    if not isinstance(body, dict):
        return Answer(raw=raw, http=response.status)
    details = body.get("errorDetails") if isinstance(body.get("errorDetails"), dict) else {}
    inputs = [e for e in details.get("inputErrors") or [] if isinstance(e, dict)]
    message = body.get("message") or body.get("error_description") or ""
    strings = [s for s in (message, body.get("code"), body.get("error"),
                           *(e.get("description") for e in inputs)) if isinstance(s, str)]
    return Answer(raw=raw, http=response.status, code=body.get("code") if isinstance(body.get("code"), str) else None,
                  service=number(body.get("serviceErrorCode")),
                  input=inputs[0].get("code") if inputs and isinstance(inputs[0].get("code"), str) else None,
                  text=" ".join(strings).lower(), message=scrub(str(message), *secrets_))


def outcome_of(answer: Answer) -> tuple[Rule | None, Outcome]:
    """The target's failure for an answer, and the row that decided it (None: unmatched)."""
    rule = classify(MAPPING, answer)
    code = rule.code if rule else UNKNOWN
    if answer.http == 426:
        message = (f"{TITLE} no longer serves (or does not serve yet) the API version this server names: set "
                   f"FANOUT_LINKEDIN_API_VERSION to a recent month ({answer.message or answer.raw})")
    elif code == UNKNOWN and not (rule and answer.message):
        message = f"{TITLE} answered {answer.raw}"
    else:
        message = f"{TITLE}: {answer.message or answer.raw}"
    return rule, Outcome(error_code=code, error_message=message)


# --- OAuth 2.0 ---------------------------------------------------------------------------------

def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({"response_type": "code", "client_id": app.client_id, "redirect_uri": redirect_uri,
                       "state": state, "scope": " ".join(SCOPES)}, quote_via=quote)
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> an access token of 60 days (and a refresh token, for apps LinkedIn gives them
    to) -> the member from `userinfo`.

    AuthFailed when LinkedIn refuses (or grants no `w_member_social`); PlatformUnreachable
    when it cannot be asked."""
    answer = TOKEN.request(http, app, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
                    "the code exchange", code)
    granted = set(str(answer.get("scope") or "").replace(",", " ").split())
    if granted and "w_member_social" not in granted:
        raise AuthFailed(f"{TITLE} granted no w_member_social, which posting needs")
    token = answer["access_token"]
    user_id, username = read_profile(http, USERINFO_URL, token, _member, title=TITLE, what="the member",
                                     read_answer=read_answer)
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=user_id, username=username)


def _member(body: Any) -> tuple[str, str] | None:
    """OpenID Connect's `sub`, and the member's name (the `sub` when it has none)."""
    if not isinstance(body, dict) or not isinstance(body.get("sub"), str):
        return None
    name = body.get("name") or " ".join(filter(None, (body.get("given_name"), body.get("family_name"))))
    return body["sub"], str(name or body["sub"])


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new access token from the refresh token, for apps LinkedIn gives refresh tokens
    to (the refresh token itself lives a year from the first consent and is kept). Without
    one, LinkedIn's introspection says whether the access token still lives: it does, the
    same token is kept with its end; it does not, AuthFailed: the member connects again."""
    if refresh_token:
        answer = TOKEN.request(http, app, {"grant_type": "refresh_token", "refresh_token": refresh_token},
                        "the token refresh", refresh_token, access_token)
        return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                     expires_at=expiry(now, answer))
    response = answered(http.post(INTROSPECT_URL, data={"client_id": app.client_id, "client_secret": app.client_secret,
                                                        "token": access_token}), TITLE, "the token introspection")
    if response.status == 401:
        raise ClientRefused(f"{TITLE} refused this server's app credentials (FANOUT_LINKEDIN_CLIENT_ID/SECRET)")
    body = response.json()
    ends = number(body.get("expires_at")) if isinstance(body, dict) else None
    end = _dt.datetime.fromtimestamp(ends, _dt.UTC).replace(tzinfo=None) if ends else None
    if response.status == 200 and body.get("active") is True and end is not None and end > now:
        return Grant(access_token=access_token, expires_at=end)
    status = body.get("status") if isinstance(body, dict) and body.get("status") else "ended"
    raise AuthFailed(f"the {TITLE} token has {'expired' if status == 'expired' else status}, and {TITLE} gives this "
                     f"app no refresh tokens: connect the account again")


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


# The app's credentials in the form [C].
TOKEN = TokenEndpoint(TOKEN_URL, TITLE, "FANOUT_LINKEDIN_CLIENT_ID/SECRET", in_words_of(read_answer))


# --- publishing --------------------------------------------------------------------------------

def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def permalink(urn: str) -> str:
    return f"https://www.linkedin.com/feed/update/{urn}/"


def author(job: Job) -> str:
    return f"urn:li:person:{job.user_id}"


class _Posting(Steps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `media`: per item, in the post's order: {kind, urn?, upload?, parts?, token?, etags,
      uploaded?, since?, check_at?, ready?} (`upload` an image's URL, `parts` a video's
      [url, first byte, last byte], `etags` those of the parts sent);
    - `sending`: the post may be out (its answer not had); `post`: its URN.
    """

    title = TITLE

    def next(self) -> Result:
        if self.state.get("post"):
            return Done(Outcome(external_url=permalink(self.state["post"])))
        if self.state.get("sending"):
            return self.post(again=True)
        self.check_limits()
        items = self.state.setdefault("media", [])
        for index, item in enumerate(self.job.media):
            if index == len(items):
                items.append({"kind": item["type"], "etags": []})
            if not items[index].get("uploaded"):
                self.upload(index, items[index])
        waiting = [w for w in (self.until_ready(item) for item in items) if w is not None]
        if waiting:
            return Wait(until=min(waiting), state=self.snapshot())
        return self.post()

    def check_limits(self) -> None:
        today = self.now.replace(hour=0, minute=0, second=0, microsecond=0)
        made = self.step.published(today)
        if made >= DAILY_POSTS:
            raise Stop(failed(RATE, f"{TITLE} allows about {DAILY_POSTS} posts a day per member; this account "
                                     f"published {made} since 00:00 UTC"))

    # -- media

    def upload(self, index: int, item: dict) -> None:
        # Imported here: Pillow and mutagen load only in the processes that publish.
        from ...outbound.media_fetch import MediaProblem, fetch

        self.saved()  # renews the lease (and stops here if it was lost) before a long upload
        try:
            media = fetch(self.step.outbound, self.job.media[index]["url"], RULES.media_limits,
                          self.job.media[index]["type"], label=f"media[{index}]")
        except MediaProblem as e:
            raise Stop(failed(e.code, e.message)) from None
        with media:
            if item["kind"] == "video":
                self.upload_video(item, media)
            else:
                self.upload_image(item, media)
        item["uploaded"], item["since"] = True, self.now.isoformat()
        self.saved()

    def upload_image(self, item: dict, media) -> None:
        if not item.get("urn"):
            what = "the image upload's initialize"
            value = self.initialize("images", {"owner": author(self.job)}, what)
            item["urn"] = identifier(value, "image", what, urn("image"))
            item["upload"] = on_hosts(value.get("uploadUrl"), HOSTS, what, "an upload URL")
            self.saved()
        self.put(item["upload"], media.file.read(), media.info.mime)

    def upload_video(self, item: dict, media) -> None:
        if not item.get("urn"):
            what = "the video upload's initialize"
            value = self.initialize("videos", {"owner": author(self.job), "fileSizeBytes": media.info.size,
                                               "uploadCaptions": False, "uploadThumbnail": False}, what)
            item["urn"] = identifier(value, "video", what, urn("video"))
            item["token"] = value.get("uploadToken") or ""
            item["parts"] = self.parts(value.get("uploadInstructions"), media.info.size, what)
            self.saved()
        for url, first, last in item["parts"][len(item["etags"]):]:
            media.file.seek(first)
            response = self.put(url, media.file.read(last - first + 1), "application/octet-stream")
            etag = {k.lower(): v for k, v in response.headers.items()}.get("etag")
            if not etag:
                raise UnusableAnswer("a part of the video without its ETag")
            item["etags"].append(etag)
            self.saved()
        self.call("POST", f"{REST}/videos", params={"action": "finalizeUpload"}, upload=True, json_body={
            "finalizeUploadRequest": {"video": item["urn"], "uploadToken": item["token"],
                                      "uploadedPartIds": item["etags"]}})

    def initialize(self, kind: str, request: dict, what: str) -> Mapping[str, Any]:
        response = self.call("POST", f"{REST}/{kind}", params={"action": "initializeUpload"}, upload=True,
                             json_body={"initializeUploadRequest": request})
        return member(document(response, what, self.job.access_token), "value", what)

    @staticmethod
    def parts(instructions: Any, size: int, what: str) -> list:
        """[url, first byte, last byte] of each part LinkedIn asks for: on its hosts, in order,
        covering the file from its first byte to its last."""
        if not isinstance(instructions, list) or not instructions:
            raise UnusableAnswer(f"{what} without its uploadInstructions")
        parts, expected = [], 0
        for instruction in instructions:
            instruction = instruction if isinstance(instruction, Mapping) else {}
            first, last = number(instruction.get("firstByte")), number(instruction.get("lastByte"))
            if first != expected or last is None or last < first or last >= size:
                raise UnusableAnswer(f"{what} with parts that do not cover the video's {size} bytes in order")
            parts.append([on_hosts(instruction.get("uploadUrl"), HOSTS, what, "an upload URL"), first, last])
            expected = last + 1
        if expected != size:
            raise UnusableAnswer(f"{what} with parts that do not cover the video's {size} bytes in order")
        return parts

    def put(self, url: Any, data: bytes, content_type: str) -> PlatformResponse:
        """A PUT of bytes to an upload URL LinkedIn named, which must be one of its hosts."""
        url = on_hosts(url, HOSTS, "the upload's initialize", "an upload URL")
        return self.call("PUT", url, upload=True, data=data, headers={"Content-Type": content_type})

    def until_ready(self, item: dict) -> _dt.datetime | None:
        """None once LinkedIn has processed the item; when to read it again otherwise."""
        if item.get("ready"):
            return None
        since = _dt.datetime.fromisoformat(item["since"])
        if item.get("check_at") and _dt.datetime.fromisoformat(item["check_at"]) > self.now:
            return _dt.datetime.fromisoformat(item["check_at"])
        if item.get("unreadable"):
            item["ready"] = True  # its grace is over
            return None
        kind = "images" if item["kind"] != "video" else "videos"
        response = self.call("GET", f"{REST}/{kind}/{quote(item['urn'], safe='')}", readable=True)
        if response.status == 403:
            # This member's token may not read its media back: LinkedIn processes an image
            # in seconds; post after a grace.
            item["unreadable"] = True
            item["check_at"] = (since + UNREADABLE_GRACE[item["kind"]]).isoformat()
            return max(_dt.datetime.fromisoformat(item["check_at"]), self.now)
        what = f"the status of media[{self.index(item)}]"
        body = document(response, what, self.job.access_token)
        status = one_of(body.get("status"), MEDIA_STATUSES, what)
        if status == "AVAILABLE":
            item["ready"], item["check_at"] = True, None
            return None
        if status == "PROCESSING_FAILED":
            reason = body.get("processingFailureReason") or "processing failed"
            answer = Answer(raw=scrub(str(body)), media_status=status, message=scrub(str(reason)))
            outcome = outcome_of(answer)[1]
            raise Stop(failed(outcome.error_code or MEDIA, f"{TITLE} could not process media[{self.index(item)}]: "
                                                          f"{answer.message}"))
        if self.now >= since + MEDIA_WINDOW:
            raise Stop(failed(UNKNOWN, f"{TITLE} did not finish processing media[{self.index(item)}] in 30 minutes "
                                       f"(its status: {status})"))
        item["check_at"] = next_check(since, self.now, most=CHECK_MOST, deadline=since + MEDIA_WINDOW).isoformat()
        return _dt.datetime.fromisoformat(item["check_at"])

    def index(self, item: dict) -> int:
        return self.state["media"].index(item)

    # -- the post

    def body(self) -> dict:
        body: dict[str, Any] = {
            "author": author(self.job), "commentary": escape(self.job.caption), "visibility": "PUBLIC",
            "distribution": {"feedDistribution": "MAIN_FEED", "targetEntities": [], "thirdPartyDistributionChannels": []},
            "lifecycleState": "PUBLISHED", "isReshareDisabledByAuthor": False,
        }
        items = self.state.get("media") or []
        alts = [RULES.alt_text_of(m) for m in self.job.media]
        if len(items) == 1:
            media = {"id": items[0]["urn"]}
            if alts[0]:
                media["altText"] = alts[0]
            body["content"] = {"media": media}
        elif items:
            body["content"] = {"multiImage": {"images": [
                {"id": item["urn"], **({"altText": alt} if alt else {})} for item, alt in zip(items, alts)]}}
        return body

    def post(self, *, again: bool = False) -> Result:
        """Send the post; `again` after a send whose answer was not had (the same body, so
        that LinkedIn refuses it as a duplicate if the first arrived)."""
        if not again:
            self.check_limits()
            self.state["sending"] = True
            self.saved()
        try:
            response = self.call("POST", f"{REST}/posts", json_body=self.body(), duplicate=again)
        except _Duplicate as duplicate:
            return self.settle(duplicate.urn)
        headers = {k.lower(): v for k, v in response.headers.items()}
        try:
            post = identifier(headers, "x-restli-id", "the post", urn("share|ugcPost"))
        except UnusableAnswer as e:
            # Created (a 2xx): sent again it could be a second post if LinkedIn took it for new.
            raise e.after(may_be_out(TITLE)) from None
        return self.settle(post)

    def settle(self, urn: str) -> Done:
        self.state.pop("sending", None)
        self.state["post"] = urn
        self.saved()
        return Done(Outcome(external_url=permalink(urn)))

    # -- calls

    def call(self, method: str, url: str, *, upload: bool = False, duplicate: bool = False, readable: bool = False,
             **kwargs) -> PlatformResponse:
        """One API call with the account's token (and, on /rest/, the version headers); a
        clear failure ends the step (Stop)."""
        headers = {**(kwargs.pop("headers", None) or {}), **bearer(self.job.access_token)}
        if url.startswith(REST):
            headers.update({"LinkedIn-Version": self.step.settings.of("linkedin").api_version,
                            "X-Restli-Protocol-Version": "2.0.0"})
        response = self.send(method, url, headers=headers, **kwargs)
        if 200 <= response.status < 300 or (readable and response.status == 403):
            return response
        answer = read_answer(response, self.job.access_token)
        if duplicate and answer.input == "DUPLICATE_POST" and (found := _DUPLICATE_OF.search(answer.message)):
            raise _Duplicate(found.group(1))
        rule, outcome = outcome_of(answer)
        if rule is None and upload and 400 <= response.status < 500 and response.status != 404:
            # LinkedIn refused the file itself (its size or type): the media's fault.
            outcome = Outcome(error_code=MEDIA, error_message=f"{TITLE} refused the media: "
                                                              f"{answer.message or answer.raw}")
        raise self.refusal(rule, outcome, answer)


class _Duplicate(Exception):
    """LinkedIn refused a post sent again as a duplicate of `urn`: the first one went out."""

    def __init__(self, urn: str):
        super().__init__(urn)
        self.urn = urn
