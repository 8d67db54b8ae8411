"""X (API v2, OAuth 2.0 with PKCE): the OAuth flow, media uploads and posts
(docs/platforms.md#the-x-adapter).

Authorize on x.com, everything else on api.x.com under `/2`; errors are problem+json
(`type`, `title`, `detail`), the token endpoint's OAuth's own (`error`, `error_description`).

A post is published in steps over saved state:
1. each media file is fetched once (fanout/outbound/media_fetch.py checks it as it streams) and
   uploaded: an image in one request, a video or an animated GIF in chunks (initialize,
   append, finalize);
2. media X processes (videos, GIFs) is read back (`STATUS`) until it succeeded, a
   scheduled step at a time;
3. `POST /2/tweets` with the text and up to 4 media ids (and the post's options, on the
   first post); `external_url` is `https://x.com/{username}/status/{id}`.
A thread's further parts follow the same steps, each a reply to the part before it
(`reply.in_reply_to_tweet_id`), then the first comment, a reply to the first post; the
target is published, with the first post's permalink, once every part is out.

Never twice: the post is the one call that must not be repeated blindly, for each part and
the comment. A marker is saved before it; a step that finds the marker without the post's
id reads the account's recent posts for the same text (and parent) first, and sends again only when it is not there (X itself then
refuses a duplicate, which is taken as the sign that the first one went out). Uploads may
be repeated: media nobody posts expires. An answer that breaks X's contract (a 2xx that is
not JSON, an id that is not digits, a processing state X does not list:
fanout/platforms/contract.py) fails the target at once; the post's own answer is first
read back in the same step, among the recent posts, and the post is never sent again.
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import hashlib
import html
import json
import re
import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from ...target_errors import AUTH, EXPIRED, MEDIA, RATE, UNKNOWN
from ..base import (
    App, AuthFailed, Authorization, Done, Grant, Job, Outcome, Result, Step, Stop, Wait,
    bearer, expiry, failed,
)
from ..contract import UnusableAnswer, document, identifier, may_be_out, member, one_of
from ..http import PlatformResponse
from .. import mapping
from ..mapping import Rule, classify, number, quoted, scrub
from ..oauth import TokenEndpoint, in_words_of, read_profile
from .errors import MAPPING
from ..polling import next_check
from ..steps import ThreadSteps
from .rules import RULES

HOSTS = ("x.com", "api.x.com")
SCOPES = ("tweet.read", "tweet.write", "users.read", "media.write", "offline.access")
UPLOADS_MEDIA = True

AUTHORIZE_URL = "https://x.com/i/oauth2/authorize"
API = "https://api.x.com/2"
TITLE = "X"

# Per account, 100 posts in 15 minutes; per app 10,000 in 24 hours, which Fanout holds each
# workspace's X accounts to (docs/platforms.md#the-x-adapter).
ACCOUNT_POSTS, ACCOUNT_WINDOW = 100, _dt.timedelta(minutes=15)
WORKSPACE_POSTS, WORKSPACE_WINDOW = 10_000, _dt.timedelta(hours=24)
# Access tokens last 2 hours; refresh tokens rotate on every refresh.
REFRESH_BEFORE = _dt.timedelta(minutes=10)
# X's own samples append 1 MB chunks; the largest X accepts is not documented.
CHUNK = 1024 * 1024
SAVE_EVERY = 8  # chunks between two saves of the state (each renews the lease)
# The longest wait between two reads of media X is processing: its `check_after_secs` is
# taken within this, and without one the checks grow to it (fanout/platforms/polling.py).
CHECK_MOST = _dt.timedelta(seconds=60)
LOOKUPS = 3  # reads of the recent posts before a lost post is settled published without a URL
CLOCK_SKEW = _dt.timedelta(minutes=10)
# A read of the recent posts goes back to the lost post's time, page after page of
# RECENT_PAGE (X's largest), at most RECENT_PAGES of them: the account may have posted
# many since.
RECENT_PAGE, RECENT_PAGES = 100, 5
# openapi.yaml `XOptions`: sent as X names them, on the first post of a thread.
OPTIONS = ("reply_settings", "quote_tweet_id")
# Scopes without which an account cannot publish: connecting it fails at once.
NEEDED = ("tweet.write", "users.read", "media.write")
# Post and media ids are strings of digits; media X processes is in one of these states.
X_ID = re.compile(r"[0-9]{1,20}")
PROCESSING_STATES = ("pending", "in_progress", "failed", "succeeded")


@dataclass(frozen=True)
class Answer(mapping.Answer):
    """What X said, reduced to the signals MAPPING reads."""

    type: str | None = None  # the problem type's last segment (`usage-capped`), or about:blank


def read_answer(response: PlatformResponse, *secrets_: str | None) -> Answer:
    body = response.json()
    raw = quoted(response, *secrets_)
    if not isinstance(body, dict):
        return Answer(raw=raw, http=response.status)
    problem_type = body.get("type")
    strings = [body.get(k) for k in ("title", "detail", "error", "error_description")]
    errors = body.get("errors") if isinstance(body.get("errors"), list) else []
    strings += [e.get("message") for e in errors if isinstance(e, dict)]
    strings = [s for s in strings if isinstance(s, str) and s]
    message = body.get("detail") or next((e.get("message") for e in errors if isinstance(e, dict)), None) \
        or body.get("title") or ""
    if isinstance(body.get("error"), dict):  # media processing: {"code", "name", "message"}
        strings += [str(v) for v in body["error"].values()]
        message = message or str(body["error"].get("message") or "")
    return Answer(raw=raw, http=response.status,
                  type=problem_type.rsplit("/", 1)[-1] if isinstance(problem_type, str) else None,
                  text=" ".join(strings).lower(), message=scrub(str(message), *secrets_))


def outcome_of(answer: Answer) -> tuple[Rule | None, Outcome]:
    """The target's failure for an answer, and the row that decided it (None: unmatched)."""
    rule = classify(MAPPING, answer)
    code = rule.code if rule else UNKNOWN
    if code == UNKNOWN and not (rule and answer.message):
        message = f"{TITLE} answered {answer.raw}"
    else:
        message = f"{TITLE}: {answer.message or answer.raw}"
    return rule, Outcome(error_code=code, error_message=message)


# --- OAuth 2.0 with PKCE -----------------------------------------------------------------

def authorize(app: App, redirect_uri: str, state: str, *, randbytes=secrets.token_bytes) -> Authorization:
    """The consent URL, with an S256 challenge of a fresh verifier; the verifier stays on
    the server (the connect session keeps it encrypted) for the code exchange."""
    verifier = _b64(randbytes(32))  # 43 characters, within PKCE's 43..128
    query = urlencode({
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": redirect_uri,
        "scope": " ".join(SCOPES),
        "state": state,
        "code_challenge": _b64(hashlib.sha256(verifier.encode("ascii")).digest()),
        "code_challenge_method": "S256",
    }, quote_via=quote)
    return Authorization(f"{AUTHORIZE_URL}?{query}", verifier)


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code + verifier -> access and refresh tokens -> `GET /2/users/me`.

    AuthFailed when X refuses (or leaves out a scope publishing needs); PlatformUnreachable
    when it cannot be asked.
    """
    if not verifier:
        raise AuthFailed("the connect session has no PKCE verifier")
    answer = TOKEN.request(http, app, {
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
        "code_verifier": verifier, "client_id": app.client_id,
    }, "the code exchange", code, verifier)
    granted = set(str(answer.get("scope") or "").split())
    missing = [s for s in NEEDED if granted and s not in granted]
    if missing:
        raise AuthFailed(f"{TITLE} granted no {', '.join(missing)}, which publishing needs")
    token = answer["access_token"]
    user_id, username = read_profile(http, f"{API}/users/me", token, _user, title=TITLE, read_answer=read_answer)
    return Grant(access_token=token, refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer), user_id=user_id, username=username)


def _user(body: Any) -> tuple[str, str] | None:
    user = body.get("data") if isinstance(body, dict) else None
    return (user.get("id"), user.get("username")) if isinstance(user, dict) else None


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new pair: X rotates the refresh token on every refresh, and the old one stops
    working at once (the engine stores the new one before anything else). AuthFailed when X
    refuses it (expired, revoked or already used): the account must connect again."""
    if not refresh_token:
        raise AuthFailed(f"{TITLE} gave no refresh token (offline.access): connect the account again")
    answer = TOKEN.request(http, app, {
        "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": app.client_id,
    }, "the token refresh", refresh_token, access_token)
    return Grant(access_token=answer["access_token"], refresh_token=answer.get("refresh_token") or None,
                 expires_at=expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


# A confidential client: the app's credentials as HTTP Basic.
TOKEN = TokenEndpoint(f"{API}/oauth2/token", TITLE, "FANOUT_X_CLIENT_ID/SECRET", in_words_of(read_answer), basic=True)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")



# --- publishing --------------------------------------------------------------------------

def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before calling X: its windows, as this
    service counts them (a preflight)."""
    try:
        _Posting(step, job).check_limits()
    except Stop as stop:
        return [stop.result.outcome]
    return []


def permalink(username: str, post_id: str) -> str:
    return f"https://x.com/{quote(username, safe='')}/status/{quote(post_id, safe='')}"



_URL = re.compile(r"https?://\S+", re.IGNORECASE)


_MENTIONS = re.compile(r"^(?:@\w+\s+)+")


def same_text(sent: str, stored: str, *, reply: bool = False) -> bool:
    """Whether a post X lists is the one we sent: X shortens every link (t.co), escapes
    &, < and >, may end a post with its media's link, and may start a reply with the
    handles it answers."""
    def norm(text: str) -> str:
        return " ".join(_URL.sub("\u2060", unicodedata.normalize("NFC", text)).split())
    ours, theirs = norm(sent), norm(html.unescape(stored))
    if reply and not ours.startswith("@"):
        theirs = _MENTIONS.sub("", theirs)
    return theirs == ours or (theirs.startswith(ours) and not theirs[len(ours):].replace("\u2060", "").strip())


class _Posting(ThreadSteps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `thread`: the ids of the parts posted so far, in order (the first post first);
    - for the post being made (the next part, or the first comment once every part is out):
      `media`: per item, in its order: {id, expires_at, ready, since?, check_at?}
      (`since`: when X took it and began processing it); `creating`: "tweet" while the
      post may be in flight, with `tweet_at`; `resent`: it is being sent again after it
      was not found (a duplicate refusal then means the first one went out); `lookups`:
      how often recent posts were searched for it; `post`: its id (a state saved before
      the thread existed);
    - `comment`: the first comment's id, once posted.
    """

    PART_KEYS = ("media", "creating", "tweet_at", "resent", "lookups", "post")
    title = TITLE

    def __init__(self, step: Step, job: Job):
        super().__init__(step, job)
        self.index = 0  # the part being posted; len(job.parts) for the first comment

    # -- the sequence: the parts in order, each a reply to the one before, then the comment

    @property
    def reply_to(self) -> str | None:
        """The post this one replies to: the part before it; the first post for the comment."""
        posted = self.state["thread"]
        if self.commenting:
            return posted[0]
        return posted[self.index - 1] if self.index else None

    def resume(self) -> None:
        if self.state.get("post") and not self.state["thread"]:  # the first post, saved before threads
            self.settle(self.state["post"])

    def published(self) -> Outcome:
        return Outcome(external_url=permalink(self.job.username, self.state["thread"][0]))

    def parts_out(self) -> tuple[str, ...]:
        return tuple(permalink(self.job.username, i) for i in self.state.get("thread", []))

    def where(self) -> str:
        """The part being posted and the permalinks of those already out, for messages."""
        out = ", ".join(permalink(self.job.username, i) for i in self.state["thread"])
        return (f"part {self.index + 1} of {len(self.job.parts)} (thread[{self.index - 1}]) was not posted; "
                f"already published: {out}")

    def publish_part(self) -> Result | None:
        if self.state.get("creating") == "tweet":
            return self.reconcile()
        self.check_limits()
        items = self.state.setdefault("media", [])
        for index in range(len(items), len(self.part.media)):
            items.append(self.upload(index))
            self.saved()
        waiting = [w for w in (self.until_ready(item) for item in items) if w is not None]
        if waiting:
            return Wait(until=min(waiting), state=self.snapshot())
        self.check_limits()
        return self.post()

    # -- limits

    def check_limits(self) -> None:
        """X's caps, counted here so that the excess fails without a call."""
        recent = self.step.published(self.now - ACCOUNT_WINDOW)
        if recent >= ACCOUNT_POSTS:
            raise Stop(failed(RATE, f"{TITLE} allows {ACCOUNT_POSTS} posts in 15 minutes per account; this "
                                     f"account published {recent}"))
        daily = self.step.published(self.now - WORKSPACE_WINDOW, workspace=True)
        if daily >= WORKSPACE_POSTS:
            raise Stop(failed(RATE, f"{TITLE} allows {WORKSPACE_POSTS} posts in 24 hours per app; this workspace's "
                                     f"{TITLE} accounts published {daily}"))

    # -- media

    def upload(self, index: int) -> dict:
        """Fetch item `index` (checked as it streams) and upload it; its saved form."""
        # Imported here: Pillow and mutagen load only in the processes that publish.
        from ...outbound.media_fetch import MediaProblem, fetch

        item = self.part.media[index]
        self.saved()  # renews the lease (and stops here if it was lost) before a long upload
        where = f"thread[{self.index - 1}]." if self.index else ""
        try:
            media = fetch(self.step.outbound, item["url"], RULES.media_limits, item["type"],
                          label=f"{where}media[{index}]")
        except MediaProblem as e:
            raise Stop(failed(e.code, e.message)) from None
        with media:
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
        if alt := RULES.alt_text_of(item):
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
        media_id = identifier(member(body, "data", what), "id", what, X_ID)
        segment = 0
        while chunk := file.read(CHUNK):
            if segment and segment % SAVE_EVERY == 0:
                self.saved()
            # Its answer is not read (X's older API answered an append with no body at all).
            self.call("POST", f"{API}/media/upload/{quote(media_id, safe='')}/append", None, upload=True,
                      files={"media": ("chunk", chunk, "application/octet-stream")},
                      data={"segment_index": str(segment)})
            segment += 1
        return self.call("POST", f"{API}/media/upload/{quote(media_id, safe='')}/finalize", "the upload's finalize",
                         upload=True)

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
            answer = read_answer(PlatformResponse(200, {}, json.dumps(info).encode()), self.job.access_token)
            reason = (info.get("error") or {}).get("message") if isinstance(info.get("error"), dict) else None
            raise Stop(failed(MEDIA, f"{TITLE} could not process the media: {reason or answer.raw}"))
        item["check_at"] = self.check_at(item, info).isoformat()
        return _dt.datetime.fromisoformat(item["check_at"])

    def check_at(self, item: dict, processing_info: Mapping[str, Any]) -> _dt.datetime:
        """X's `check_after_secs` when it gives one, else the schedule; within the media's life."""
        since = _dt.datetime.fromisoformat(item.setdefault("since", self.now.isoformat()))
        return next_check(since, self.now, most=CHECK_MOST, deadline=_dt.datetime.fromisoformat(item["expires_at"]),
                          hint=number(processing_info.get("check_after_secs")))

    # -- the post

    def post(self) -> Result | None:
        payload: dict[str, Any] = {}
        if self.part.caption:
            payload["text"] = self.part.caption
        if self.state["media"]:
            payload["media"] = {"media_ids": [item["id"] for item in self.state["media"]]}
        if self.reply_to:
            payload["reply"] = {"in_reply_to_tweet_id": self.reply_to}
        elif self.index == 0:
            payload.update({k: v for k, v in self.job.options.items() if k in OPTIONS})
        self.state["creating"], self.state["tweet_at"] = "tweet", self.now.isoformat()
        self.saved()
        try:
            body = self.call("POST", f"{API}/tweets", "the post", json_body=payload, duplicate_is_sent=True)
            post_id = identifier(member(body, "data", "the post"), "id", "the post", X_ID)
        except _Duplicate:
            return self.look_again(f"{TITLE} says the post already exists, but it is not among the recent ones yet")
        except UnusableAnswer as e:
            return self.read_back(e)
        return self.settle(post_id)

    def read_back(self, error: UnusableAnswer) -> Result | None:
        """X answered the post with what its contract does not promise, so the post may be
        out: it is looked for now among the recent posts, never sent again. Found, the part is
        out; not found (or the list unreadable), the target fails saying it may be out."""
        since = _dt.datetime.fromisoformat(self.state["tweet_at"]) - CLOCK_SKEW
        try:
            found = self.posted(self.recent_posts(since), since)
        except (Stop, UnusableAnswer):
            found = None
        if found is None:
            raise error.after(may_be_out(TITLE))
        return self.settle(found)

    def settle(self, post_id: str) -> None:
        """The current post is out: its id joins the thread (or is the comment's), saved."""
        for key in self.PART_KEYS:
            self.state.pop(key, None)
        if self.commenting:
            self.state["comment"] = post_id
        else:
            self.state["thread"].append(post_id)
        self.saved()
        return None

    def reconcile(self) -> Result | None:
        """A post may or may not have gone out: look for it before sending anything."""
        since = _dt.datetime.fromisoformat(self.state["tweet_at"]) - CLOCK_SKEW
        try:
            recent = self.recent_posts(since)
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None  # without the list, sending again could post twice
        except Stop as stop:
            failure = stop.result.outcome.error_code if isinstance(stop.result, Done) else None
            if failure is None or failure == AUTH:
                raise  # a retry, or the token (refreshed once by the engine, then this again)
            # X would not list the posts: go on as if it is not there. A text post sent
            # again is refused as a duplicate if the first went out.
            recent = []
        try:
            found = self.posted(recent, since)
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None
        if found is not None:
            return self.settle(found)
        # Not there: the post never arrived. Sending it again is safe; if it did arrive after
        # all, X refuses the duplicate and that refusal says so.
        self.state["resent"] = True
        self.check_limits()
        return self.post()

    def posted(self, recent: list[Mapping[str, Any]], since: _dt.datetime) -> str | None:
        """The id of the post being made among `recent` ones (its text, its parent, not older
        than `since`), or None."""
        for post in recent:
            if not same_text(self.part.caption, str(post.get("text") or ""), reply=bool(self.reply_to)):
                continue
            replied = [r.get("id") for r in post.get("referenced_tweets") or ()
                       if isinstance(r, dict) and r.get("type") == "replied_to"]
            if self.reply_to and replied and replied != [self.reply_to]:
                continue
            created = _platform_time(post.get("created_at"))
            if created is None or created >= since:
                return identifier(post, "id", "the account's posts", X_ID)
        return None

    def recent_posts(self, since: _dt.datetime) -> list[Mapping[str, Any]]:
        """The account's posts, newest first, page after page back to `since`: the lost post
        may lie under many newer ones. A page that cannot be read stops the step (Stop)."""
        posts: list[Mapping[str, Any]] = []
        token = None
        for _ in range(RECENT_PAGES):
            params = {"max_results": str(RECENT_PAGE), "tweet.fields": "created_at,referenced_tweets"}
            if token:
                params["pagination_token"] = token
            body = self.call("GET", f"{API}/users/{quote(self.job.user_id, safe='')}/tweets", "the account's posts",
                             params=params)
            page = [post for post in body.get("data") or [] if isinstance(post, dict)]
            posts += page
            meta = body.get("meta") if isinstance(body.get("meta"), dict) else {}
            token = meta.get("next_token")
            oldest = _platform_time(page[-1].get("created_at")) if page else None
            if not page or not token or (oldest is not None and oldest < since):
                break
        return posts

    def look_again(self, reason: str) -> Result:
        """The post is out but its id is not known: read again later, and after LOOKUPS
        tries settle it as published without a URL (never failed: it is out). A thread
        cannot go on without it (its next part replies to it): that target fails, saying
        what is out."""
        self.state["lookups"] = self.state.get("lookups", 0) + 1
        if self.state["lookups"] >= LOOKUPS:
            if self.commenting:
                return Done(dataclasses.replace(self.published(), first_comment_error=(
                    f"{TITLE} took the first comment but never said its id; it may be there")))
            if len(self.job.parts) == 1 and self.job.first_comment is None:
                return Done(Outcome())
            out = ", ".join(permalink(self.job.username, i) for i in self.state["thread"])
            return failed(UNKNOWN, f"{TITLE} took part {self.index + 1} of the thread but never said its id, so "
                                   "nothing could reply to it" + (f"; already published: {out}" if out else ""))
        self.state["creating"] = "tweet"
        return self.retry(reason)

    # -- calls

    def call(self, method: str, url: str, what: str | None, *, upload: bool = False, duplicate_is_sent: bool = False,
             **kwargs) -> Mapping[str, Any]:
        """One API call with the account's token answering `what`'s JSON ({} for a call whose
        answer is not read: `what` None); a clear failure ends the step (Stop)."""
        response = self.send(method, url, headers=bearer(self.job.access_token), **kwargs)
        if 200 <= response.status < 300 and what is None:
            return {}
        if 200 <= response.status < 300:
            body = document(response, what, self.job.access_token)
            # A 2xx may carry `errors` beside `data` (partial errors): the data is the answer.
            if "data" in body or "errors" not in body:
                return body
        answer = read_answer(response, self.job.access_token)
        rule, outcome = outcome_of(answer)
        if duplicate_is_sent and self.state.get("resent") and "duplicate content" in answer.text:
            raise _Duplicate()
        if rule is None and upload and 400 <= response.status < 500 and response.status not in (403, 404):
            # X refused the file itself (its size, type or length): the media's fault.
            outcome = Outcome(error_code=MEDIA, error_message=f"{TITLE} refused the media: "
                                                              f"{answer.message or answer.raw}")
        if outcome.error_code == RATE:
            outcome = Outcome(error_code=RATE, error_message=_rate_message(response, outcome.error_message))
        raise self.refusal(rule, outcome, answer)


class _Duplicate(Exception):
    """X refused a post sent again as a duplicate: the first one went out."""


def _rate_message(response: PlatformResponse, message: str | None) -> str:
    """The 429's message with the moment the limit that was hit resets (unix seconds)."""
    headers = {k.lower(): v for k, v in response.headers.items()}
    reset = headers.get("x-rate-limit-reset")
    for scope in ("user", "app"):
        if headers.get(f"x-{scope}-limit-24hour-remaining") == "0":
            reset = headers.get(f"x-{scope}-limit-24hour-reset") or reset
    moment = number(reset)
    if moment is None:
        return message or f"{TITLE}'s rate limit is reached"
    when = _dt.datetime.fromtimestamp(moment, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{message or TITLE + ' rate limit reached'} (the limit resets at {when})"


def _platform_time(value: Any) -> _dt.datetime | None:
    """X's `2026-11-22T10:00:00.000Z` as naive UTC, like our clock."""
    if not isinstance(value, str):
        return None
    try:
        moment = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(_dt.UTC).replace(tzinfo=None) if moment.tzinfo else moment
