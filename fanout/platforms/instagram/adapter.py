"""Instagram (Instagram API with Instagram Login): the OAuth flow and publishing through
containers (docs/platforms.md#instagram).

Wire format: authorize on www.instagram.com, the code exchange on api.instagram.com,
everything else on graph.instagram.com under `FANOUT_GRAPH_API_VERSION`; Graph error
envelopes. Only professional (Business or Creator) accounts publish through the API: a
personal account is refused when it connects.

A post is published through containers as fanout/platforms/graph.py describes: an image
container, a Reel (`REELS`), or a carousel's items (`is_carousel_item`, videos as `VIDEO`)
and then its parent (`CAROUSEL`); each read until FINISHED within
`FANOUT_INSTAGRAM_CONTAINER_WINDOW` seconds; the publishing limit read before anything is
created and again before `media_publish`; then the permalink; then the first comment, if
the post has one (`POST /{media}/comments`).
"""
from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from ...target_errors import UNSUPPORTED
from ..base import AccountNotEligible, App, AuthFailed, Authorization, Grant, Job, Outcome, Result, Step, Stop
from ..base import expiry, failed
from ..contract import UnusableAnswer, identifier, may_be_out
from ..graph import Containers
from ..graph_errors import ENVELOPE, GRAPH_ID, Answer, json_or_refusal, token_answer
from ..http import PlatformResponse
from ..mapping import scrub
from .errors import MAPPING
from .rules import RULES

HOSTS = ("www.instagram.com", "api.instagram.com", "graph.instagram.com")
# What the connect pages say to a user whose account cannot publish (connect_flow.remedy).
NOT_ELIGIBLE = ("Only professional accounts (Business or Creator) can publish through Instagram's API. Switch the "
                "account to a professional one in the Instagram app, then connect it again.")
# `instagram_business_manage_comments`: for a post's first comment.
SCOPES = ("instagram_business_basic", "instagram_business_content_publish", "instagram_business_manage_comments")

AUTHORIZE_URL = "https://www.instagram.com/oauth/authorize"
OAUTH = "https://api.instagram.com/oauth"
GRAPH = "https://graph.instagram.com"
TITLE = "Instagram"

# "50 posts within a 24 hour moving period" (a carousel counts one); newer pages say 100.
# The platform's own `content_publishing_limit` decides whenever it answers; this is the
# cap when it does not.
DAILY_POSTS = 50
# Meta: "query a container's status once per minute": the pace the checks grow to
# (fanout/platforms/polling.py); the first come within seconds, images being ready at once.
POLL = _dt.timedelta(seconds=60)
# Long-lived tokens last 60 days from their grant or refresh and may be refreshed once a
# day old: a week before the end is day 53, with room for several failed attempts.
REFRESH_BEFORE = _dt.timedelta(days=7)
PROFESSIONAL = ("BUSINESS", "MEDIA_CREATOR", "CREATOR")


class RefreshTooEarly(Exception):
    """Instagram refreshes a token only once it is 24 hours old: not a refusal, the token
    stays as it is and the refresh is tried again later (fanout/tasks/tokens.py)."""


_SUBCODE = re.compile(r"(?<!\d)(2207\d{3})(?!\d)")


def container_answer(body: Mapping[str, Any]) -> Answer:
    """A failed container: `status_code` EXPIRED, or ERROR with the error's subcode in the
    text of `status` ("... failed with error code 2207026")."""
    status_code, status = body.get("status_code"), body.get("status")
    found = _SUBCODE.search(status) if isinstance(status, str) else None
    return Answer(raw=scrub(f"container {body.get('id')}: status_code {status_code}, status {status}"),
                  subcode=int(found.group(1)) if found else None, container_status=status_code,
                  container_error=scrub(status) if isinstance(status, str) and status else None)


# --- OAuth -------------------------------------------------------------------------------

def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({
        "client_id": app.client_id,
        "redirect_uri": redirect_uri,
        "response_type": "code",
        "scope": ",".join(SCOPES),
        "state": state,
    }, safe=",")
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings) -> Grant:
    """Code -> short-lived token (1 h) -> long-lived token (60 days) -> the profile.

    AccountNotEligible for a personal account; AuthFailed when Instagram refuses;
    PlatformUnreachable when it cannot be asked (or answers 5xx).
    """
    code = code.removesuffix("#_")  # Instagram appends `#_` to the redirect; some clients keep it
    answer = token_answer(TITLE, _unwrapped(http.post(f"{OAUTH}/access_token", data={
        "client_id": app.client_id, "client_secret": app.client_secret, "grant_type": "authorization_code",
        "redirect_uri": redirect_uri, "code": code,
    })), "the code exchange", code, app.client_secret)
    long_lived = token_answer(TITLE, http.get(f"{GRAPH}/access_token", params={
        "grant_type": "ig_exchange_token", "client_secret": app.client_secret,
        "access_token": answer["access_token"],
    }), "the long-lived token exchange", answer["access_token"], app.client_secret)
    token = long_lived["access_token"]
    profile = json_or_refusal(TITLE, http.get(f"{api(settings)}/me", params={
        "fields": "user_id,username,account_type", "access_token": token,
    }), "reading the profile", token)
    user_id = str(profile.get("user_id") or profile.get("id") or answer.get("user_id") or "")
    if not user_id or not profile.get("username"):
        raise AuthFailed(f"{TITLE} answered the profile without an id or username")
    kind = str(profile.get("account_type") or "").upper()
    if kind and kind not in PROFESSIONAL:
        raise AccountNotEligible(
            f"@{profile['username']} is a personal {TITLE} account ({profile['account_type']}); only professional "
            "(Business or Creator) accounts can publish through the API. Switch it to a professional account in "
            "the Instagram app and connect again.")
    return Grant(access_token=token, expires_at=expiry(now, long_lived), user_id=user_id,
                 username=str(profile["username"]))


def _unwrapped(response: PlatformResponse) -> PlatformResponse:
    """The code exchange answers `{"data": [{...}]}` as documented, or the flat object seen
    in the wild; `user_id` a string or a number either way."""
    body = response.json()
    if response.status == 200 and isinstance(body, dict) and isinstance(body.get("data"), list) and body["data"]:
        first = body["data"][0]
        if isinstance(first, dict):
            return PlatformResponse(response.status, response.headers, json.dumps(first).encode())
    return response


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new long-lived token, valid 60 days from now, for one at least 24 hours old that
    has not expired (the access token refreshes itself: there is no refresh token).
    AuthFailed when Instagram refuses the token; RefreshTooEarly while it is too young."""
    response = http.get(f"{GRAPH}/refresh_access_token", params={
        "grant_type": "ig_refresh_token", "access_token": access_token})
    if response.status == 400 and ENVELOPE.read(response).code == 100:
        raise RefreshTooEarly(f"{TITLE} refreshes a token once it is 24 hours old: "
                              f"{ENVELOPE.read(response, access_token).message}")
    answer = token_answer(TITLE, response, "the token refresh", access_token)
    return Grant(access_token=answer["access_token"], expires_at=expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


def api(settings) -> str:
    return f"{GRAPH}/{settings.of('instagram').graph_api_version}"


# --- publishing --------------------------------------------------------------------------

def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (fanout/platforms/graph.py has the sequence)."""
    window = _dt.timedelta(seconds=step.settings.of("instagram").container_window)
    return _Instagram(step, job, api(step.settings), window).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before creating anything (a preflight)."""
    window = _dt.timedelta(seconds=step.settings.of("instagram").container_window)
    return _Instagram(step, job, api(step.settings), window).foresee()


class _Instagram(Containers):
    title, table, daily_posts, poll = TITLE, MAPPING, DAILY_POSTS, POLL
    media_edge, publish_edge, limit_edge = "media", "media_publish", "content_publishing_limit"
    caption_field, status_fields = "caption", "status_code,status"
    quota_first = True  # the excess fails before a container counts against the 400 a day
    OPTIONS = ("share_to_feed", "cover_url", "thumb_offset", "collaborators", "location_id")

    def single(self) -> dict:
        if not self.part.media:  # the API refuses such a post at create; never sent
            raise Stop(failed(UNSUPPORTED, f"{TITLE} posts need an image or a video"))
        media = self.part.media[0]
        if media.get("type") == "video":
            return {"media_type": "REELS", "video_url": media["url"], **self.caption("caption")}
        return {**self.image(media), **self.caption("caption")}

    def item(self, media: Mapping[str, str]) -> dict:
        # Carousel videos are still `VIDEO` (a Reel cannot be in a carousel); no caption.
        if media.get("type") == "video":
            return {"media_type": "VIDEO", "video_url": media["url"]}
        return self.image(media)

    def image(self, media: Mapping[str, str]) -> dict:
        """An image container's parameters: its URL, and its alt text when it has one."""
        alt = RULES.alt_text_of(media)
        return {"image_url": media["url"], **({"alt_text": alt} if alt else {})}

    def carousel(self, children: list[str]) -> dict:
        return {"media_type": "CAROUSEL", "children": ",".join(children), **self.caption("caption")}

    def publish_comment(self) -> None:
        """The first comment, on the published media (`POST /{media}/comments`). A comment
        whose answer was lost is looked for among the media's comments before it is sent
        again."""
        media = quote(self.state["thread"][0]["id"], safe="")
        if self.state.get("creating") == "comment":
            try:
                listed = self.get(f"{self.api}/{media}/comments", "the post's comments",
                                  fields="id,text,username,timestamp", limit="50").get("data")
            except UnusableAnswer as e:
                raise e.after(may_be_out(TITLE)) from None
            mine = [c for c in (listed if isinstance(listed, list) else ())
                    if isinstance(c, dict) and c.get("text") == self.job.first_comment
                    and c.get("username") in (None, self.job.username)]
            if mine:
                self.state["post"] = str(mine[0]["id"])
                return self.part_out(None)
            del self.state["creating"]
        try:
            body = self.send_creating("comment", f"{self.api}/{media}/comments", {"message": self.job.first_comment},
                                      "the comment")
            self.state["post"] = identifier(body, "id", "the comment", GRAPH_ID)
        except UnusableAnswer as e:
            raise e.after(may_be_out(TITLE)) from None
        return self.part_out(None)

    def container_status(self, body: Mapping[str, Any]) -> str | None:
        return body.get("status_code")

    def container_answer(self, body: Mapping[str, Any]) -> Answer:
        return container_answer(body)
