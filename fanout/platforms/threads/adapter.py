"""Threads (Meta): the OAuth flow and publishing through containers (docs/platforms.md#threads).

Wire format: authorize on threads.net, everything else on graph.threads.net under `v1.0`,
Graph-style error envelopes. A post is published through containers as
fanout/platforms/graph.py describes: a TEXT, IMAGE or VIDEO container (or a carousel's
items and parent), read until FINISHED within `FANOUT_THREADS_CONTAINER_WINDOW` seconds,
`threads_publish`, then the permalink. A thread's further parts and the first comment are
replies (`reply_to_id`) published the same way.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from ..base import App, AuthFailed, Authorization, Grant, Job, Outcome, Result, Step
from ..base import expiry
from ..graph import Containers
from ..graph_errors import Answer, json_or_refusal, token_answer
from ..mapping import scrub
from .errors import MAPPING

HOSTS = ("threads.net", "graph.threads.net")
# `threads_manage_replies`: for replies, the parts of a thread after the first and a
# first comment.
SCOPES = ("threads_basic", "threads_content_publish", "threads_manage_replies")

VERSION = "v1.0"
AUTHORIZE_URL = "https://threads.net/oauth/authorize"
GRAPH = "https://graph.threads.net"
API = f"{GRAPH}/{VERSION}"
TITLE = "Threads"

# 250 API-published posts per profile in a rolling 24 h (a carousel counts one).
DAILY_POSTS = 250
# Meta suggests waiting about 30 s before publishing a container, and polling once a
# minute: the checks grow to one every 30 s (fanout/platforms/polling.py), the first
# within seconds, a text or an image being ready at once or nearly.
POLL = _dt.timedelta(seconds=30)
# Long-lived tokens last 60 days and can be refreshed once a day old: a week before the end
# leaves room for several failed attempts.
REFRESH_BEFORE = _dt.timedelta(days=7)


# --- OAuth -------------------------------------------------------------------------------

def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({
        "client_id": app.client_id,
        "redirect_uri": redirect_uri,
        "scope": ",".join(SCOPES),
        "response_type": "code",
        "state": state,
    }, safe=",")
    return Authorization(f"{AUTHORIZE_URL}?{query}")


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant:
    """Code -> short-lived token -> long-lived token (60 days) -> the profile.

    AuthFailed when Threads refuses; PlatformUnreachable when it cannot be asked (or
    answers 5xx): the user can simply try again.
    """
    code = code.removesuffix("#_")  # Threads appends `#_` to the redirect; some clients keep it
    short = token_answer(TITLE, http.post(f"{GRAPH}/oauth/access_token", data={
        "client_id": app.client_id, "client_secret": app.client_secret, "code": code,
        "grant_type": "authorization_code", "redirect_uri": redirect_uri,
    }), "the code exchange", code, app.client_secret)
    long_lived = token_answer(TITLE, http.get(f"{GRAPH}/access_token", params={
        "grant_type": "th_exchange_token", "client_secret": app.client_secret,
        "access_token": short["access_token"],
    }), "the long-lived token exchange", short["access_token"], app.client_secret)
    token = long_lived["access_token"]
    profile = json_or_refusal(TITLE, http.get(f"{API}/me", params={"fields": "id,username", "access_token": token}),
                              "reading the profile", token)
    user_id = str(profile.get("id") or short.get("user_id") or "")
    if not user_id or not profile.get("username"):
        raise AuthFailed(f"{TITLE} answered the profile without an id or username")
    return Grant(access_token=token, expires_at=expiry(now, long_lived), user_id=user_id,
                 username=str(profile["username"]))


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A new long-lived token for one that has not expired yet (Threads has no refresh token:
    the access token refreshes itself). AuthFailed when Threads refuses."""
    answer = token_answer(TITLE, http.get(f"{GRAPH}/refresh_access_token", params={
        "grant_type": "th_refresh_token", "access_token": access_token,
    }), "the token refresh", access_token)
    return Grant(access_token=answer["access_token"], expires_at=expiry(now, answer))


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE


# --- publishing --------------------------------------------------------------------------

def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (fanout/platforms/graph.py has the sequence)."""
    window = _dt.timedelta(seconds=step.settings.of("threads").container_window)
    return _Threads(step, job, API, window).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before creating anything (a preflight)."""
    window = _dt.timedelta(seconds=step.settings.of("threads").container_window)
    return _Threads(step, job, API, window).foresee()


def container_answer(body: Mapping[str, Any]) -> Answer:
    status, problem = body.get("status"), body.get("error_message")
    return Answer(raw=scrub(f"container {body.get('id')}: status {status}, error_message {problem}"),
                  container_status=status, container_error=problem)


class _Threads(Containers):
    title, table, daily_posts, poll = TITLE, MAPPING, DAILY_POSTS, POLL
    media_edge, publish_edge, limit_edge = "threads", "threads_publish", "threads_publishing_limit"
    caption_field, status_fields = "text", "status,error_message"
    reply_param, replies_edge = "reply_to_id", "replies"
    OPTIONS = ("reply_control", "topic_tag", "quote_post_id")

    def single(self) -> dict:
        if not self.part.media:
            return {"media_type": "TEXT", "text": self.part.caption}
        return {**self.item(self.part.media[0]), **self.caption("text")}

    def item(self, media: Mapping[str, str]) -> dict:
        if media.get("type") == "video":
            return {"media_type": "VIDEO", "video_url": media["url"]}
        return {"media_type": "IMAGE", "image_url": media["url"]}

    def carousel(self, children: list[str]) -> dict:
        return {"media_type": "CAROUSEL", **self.caption("text"), "children": ",".join(children)}

    def container_status(self, body: Mapping[str, Any]) -> str | None:
        return body.get("status")

    def container_answer(self, body: Mapping[str, Any]) -> Answer:
        return container_answer(body)
