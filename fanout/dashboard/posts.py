"""`/dashboard/posts`: the posts, filtered and paged as `GET /v1/posts` pages them; one
post with its targets and events; the form that creates one, now or at a scheduled time;
cancelling one (confirmed) while it can still be cancelled, as `DELETE /v1/posts/{id}`
does (fanout/models/edits.py `cancel_post`).

The form builds the body `POST /v1/upload` takes, checks it with the upload's schema and
hands it to the upload itself (fanout/uploads.py `upload`): the same rules, caps,
idempotency and publishing. Each form carries an Idempotency-Key of its own, so a second
click, or the browser sending the form again, replays the first post instead of making
another.
"""
from __future__ import annotations

import re

from starlette.responses import Response

from ..uploads import upload
from ..http import cursors
from ..models.account import list_accounts
from ..models.edits import cancel_post
from ..models.post import IN_FLIGHT, get_post, list_posts, targets_of
from ..problems import InvalidRequest, Problem
from ..security.apikeys import random_base62
from ..times import isoformat
from ..views import post_summary, post_view
from .contract import contract
from .events import post_events
from .web import Visit, page, see_other

PAGE_SIZE = 20
MEDIA_ROWS = 10  # the form's media fields; the API takes more
IDEMPOTENCY_KEY = re.compile(r"dashboard-[0-9A-Za-z]{32}")
NOTICES = {
    "created": "The post was created. Its targets publish in the background; this page follows them.",
    "scheduled": "The post was scheduled. Until a worker starts publishing it, it can be cancelled.",
    "cancelled": "The post was cancelled: it is deleted and will not be published.",
}
# The Posts page's "When" filter: `scheduled` of GET /v1/posts.
WHEN = {"scheduled": True, "now": False}
# The mode of a post made from the dashboard is its accounts': the session may post in
# either, as a live key may (docs/decisions.md#authentication-and-modes).
SESSION_MODE = "live"


def _choice(visit: Visit, name: str, allowed: list[str]) -> str | None:
    value = visit.query(name) or None
    if value is not None and value not in allowed:
        raise InvalidRequest(f"{name}: {value!r} is not one of {', '.join(allowed)}")
    return value


@page
def posts(visit: Visit) -> Response:
    terms = contract(visit.rt.settings.insecure_urls)
    statuses, platforms = terms.enum("PostStatus"), terms.enum("Platform")
    status, platform = _choice(visit, "status", statuses), _choice(visit, "platform", platforms)
    timing = _choice(visit, "when", list(WHEN))
    cursor = visit.query("cursor") or None
    after = cursors.after(visit.rt.keyring, visit.workspace_id, cursor)
    rows, has_more = list_posts(visit.workspace_id, limit=PAGE_SIZE, after=after, status=status, platform=platform,
                                scheduled=WHEN.get(timing), now=visit.rt.now())
    targets = targets_of([p.id for p in rows])
    next_cursor = cursors.next_cursor(visit.rt.keyring, visit.workspace_id, rows, has_more)
    return visit.page("posts.html", "posts", posts=[post_summary(p, targets[p.id]) for p in rows],
                      statuses=statuses, platforms=platforms, chosen_status=status, chosen_platform=platform,
                      chosen_when=timing, paged=cursor is not None, next_cursor=next_cursor,
                      notice=NOTICES.get(visit.query("done") or ""))


def caption_caps(platforms) -> str:
    """Each platform's caption cap, as the New post form's hint lists them: the platforms
    of the registry (fanout/platforms/rules.py), lowest cap first, those of one cap together."""
    by_cap: dict[int, list[str]] = {}
    for platform in sorted(platforms.values(), key=lambda p: p.rules.caption_limit):
        by_cap.setdefault(platform.rules.caption_limit, []).append(platform.title)
    groups = [f"{' and '.join(titles)} {cap:,}" for cap, titles in by_cap.items()]
    return ", ".join(groups) + "; each counts characters its own way"


def media_needed(platforms) -> str:
    """Which platforms need media, as the New post form's media hint says it: those of the
    registry whose rules take no text-only post (`PlatformRules.text_only`); "" if none."""
    titles = [platform.title for platform in platforms.values() if not platform.rules.text_only]
    if not titles:
        return ""
    named = titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"
    return f"{named} {'needs' if len(titles) == 1 else 'need'} media."


def _form_page(visit: Visit, status: int = 200, error: Problem | None = None, form: dict | None = None) -> Response:
    terms = contract(visit.rt.settings.insecure_urls)
    form = form or {"caption": "", "account_ids": [], "media": [], "simulate_error": "", "scheduled_at": "",
                    "idempotency_key": f"dashboard-{random_base62(32, visit.rt.randbytes)}"}
    media = form["media"] + [{"url": "", "type": "image"}] * (MEDIA_ROWS - len(form["media"]))
    return visit.page("post_new.html", "posts", status, error=error, form=form, media=media,
                      accounts=list_accounts(visit.workspace_id, status="active"),
                      media_types=terms.enum("MediaType"), simulated_errors=terms.enum("SimulatedError"),
                      scheduling=terms.scheduling, caption_caps=caption_caps(visit.rt.platforms),
                      media_needed=media_needed(visit.rt.platforms))


@page
def new_post(visit: Visit) -> Response:
    return _form_page(visit)


def body_of(visit: Visit, form: dict) -> dict:
    """The upload's body from the form's fields, as a client would send it."""
    body: dict = {"caption": form["caption"]}
    if form["media"]:
        body["media"] = form["media"]
    if form["account_ids"]:
        body["account_ids"] = form["account_ids"]
        chosen = {a.id: a for a in list_accounts(visit.workspace_id)}
        if all(i in chosen and chosen[i].sandbox for i in form["account_ids"]):
            body["sandbox"] = True
    if form["simulate_error"]:
        body["simulate_error"] = form["simulate_error"]
    if form["scheduled_at"] and contract(visit.rt.settings.insecure_urls).scheduling:
        # A datetime-local field has no offset: the form says its time is UTC.
        body["scheduled_at"] = f"{form['scheduled_at']}:00Z" if len(form["scheduled_at"]) == 16 else form["scheduled_at"]
    return body


@page
def create(visit: Visit) -> Response:
    f = visit.form
    form = {
        # Browsers send a textarea's line breaks as CRLF; a caption's are LF, as clients send them.
        "caption": f.get("caption").replace("\r\n", "\n"),
        "account_ids": f.all("account_id"),
        "media": [{"url": url.strip(), "type": kind}
                  for url, kind in zip(f.all("media_url"), f.all("media_type")) if url.strip()],
        "simulate_error": f.get("simulate_error"),
        "scheduled_at": f.get("scheduled_at").strip(),
        "idempotency_key": f.get("idempotency_key"),
    }
    terms = contract(visit.rt.settings.insecure_urls)
    key = form["idempotency_key"] if IDEMPOTENCY_KEY.fullmatch(form["idempotency_key"]) else None
    try:
        if not form["account_ids"]:
            # The form's own words: the upload's would name fields (account_ids, platforms)
            # that a person using the form never sees.
            raise InvalidRequest("Choose at least one account to post to.")
        body = body_of(visit, form)
        terms.upload.check(body)
        answer = upload(visit.rt, visit.workspace_id, SESSION_MODE, body, key)
    except Problem as e:
        return _form_page(visit, e.status, error=e, form=form)
    scheduled = answer.body.get("scheduled_at") is not None and answer.body["status"] == "pending"
    return see_other(f"/dashboard/posts/{answer.body['id']}", done="scheduled" if scheduled else "created")


def _waiting(visit: Visit, view: dict) -> bool:
    """Whether the post waits for its scheduled time (its page does not follow it meanwhile)."""
    return view["scheduled_at"] is not None and view["scheduled_at"] > isoformat(visit.rt.now())


@page
def post(visit: Visit) -> Response:
    post_id = visit.path_id("id", "post", "post")
    view = post_view(*get_post(visit.workspace_id, post_id))
    usernames = {a.id: a.username for a in list_accounts(visit.workspace_id)}
    events, more_events = post_events(visit.workspace_id, post_id)
    return visit.page("post.html", "posts", post=view, usernames=usernames,
                      events=events, more_events=more_events,
                      following=view["status"] in IN_FLIGHT and not _waiting(visit, view), notice=NOTICES.get(visit.query("done") or ""))


@page
def confirm_cancel(visit: Visit) -> Response:
    post_id = visit.path_id("id", "post", "post")
    return visit.page("post_cancel.html", "posts", post=post_view(*get_post(visit.workspace_id, post_id)))


@page
def cancel(visit: Visit) -> Response:
    """`DELETE /v1/posts/{id}`: refused with the API's 409 once a worker has claimed a target."""
    cancel_post(visit.workspace_id, visit.path_id("id", "post", "post"), SESSION_MODE)
    return see_other("/dashboard/posts", done="cancelled")


ROUTES = [
    ("/dashboard/posts", posts, ("GET",)),
    ("/dashboard/posts", create, ("POST",)),
    # Before the post's own page, whose {id} would take "new".
    ("/dashboard/posts/new", new_post, ("GET",)),
    ("/dashboard/posts/{id}", post, ("GET",)),
    ("/dashboard/posts/{id}/cancel", confirm_cancel, ("GET",)),
    ("/dashboard/posts/{id}/cancel", cancel, ("POST",)),
]
