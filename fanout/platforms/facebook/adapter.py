"""Facebook Pages (the Graph API): Facebook Login for a person's Pages, one account per Page
(oauth.py), and publishing as the Page (docs/platforms.md#facebook).

Every call after the login dialog is on graph.facebook.com under FANOUT_FACEBOOK_API_VERSION
(a Page video's on graph-video.facebook.com, a Reel's bytes on rupload.facebook.com), with
the Page token; Graph's error envelope (errors.py). A post is published in steps over saved
state:
1. a text post: `POST /{page-id}/feed` with the caption as `message` and its first web link
   as `link` (Facebook shows its preview);
2. photos (1 to 10): each fetched once, checked, and made unpublished
   (`POST /{page-id}/photos`, `published=false`, with its alt text), then one feed post
   attaching them all (`attached_media`);
3. a video: fetched once to read which it is (video.py): a Reel when Facebook takes it as
   one, else a Page video (media.py), then read back until Facebook has published it;
4. `external_url`: the post's `permalink_url` (a video's, made a URL);
5. the first comment, if the post has one: `POST /{object-id}/comments` as the Page.

Never twice (docs/architecture.md#never-twice): a marker is saved before each creating call
(`creating`, with `sent_at`), and a step that finds one reads back before sending again: a
lost feed post is looked for among the Page's posts (its message, its photos, since the
call: lookup.py), a lost comment among the post's comments, and what media.py says of
photos, videos and Reels. A creating call answered with what Graph's contract does not
promise is read back the same way in the same step (`read_back`), and never sent again.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from ...target_errors import RATE
from ..base import Job, Outcome, Result, Step, Stop
from ..contract import UnusableAnswer, identifier
from ..graph_errors import GRAPH_ID
from .errors import ENVELOPE, MAPPING
from .lookup import find_comment, find_post
from .media import MediaSteps, on_facebook
from .oauth import HOSTS, SCOPES, TITLE, api, authorize, exchange, refresh, refresh_due
from .text import link_of
from .video import frame, is_reel

UPLOADS_MEDIA = True


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def foresee(step: Step, job: Job) -> list[Outcome]:
    """What publishing `job` now would fail with before creating anything (a preflight): a
    Reel past the Page's 30 in 24 hours."""
    return _Posting(step, job).foresee()


def post_permalink(post_id: str) -> str:
    """A feed post's URL (`<page id>_<post id>`), when Facebook does not say its permalink."""
    page, _, post = post_id.partition("_")
    return f"https://www.facebook.com/{page}/posts/{post}" if post else f"https://www.facebook.com/{post_id}"


class _Posting(MediaSteps):
    """One step (fanout/platforms/steps.py, ThreadSteps: the post, then its first comment).
    State keys (all JSON), besides media.py's: `creating` the creating call that may be in
    flight (`photo:<i>`, `post`, `video`, `reel_start`, `reel_finish`, `comment`) and
    `sent_at` when it was sent; `post` the feed post's id once made; `thread` the post out,
    [{id, permalink}] (its id the feed post's or the video's); `comment` its id."""

    title, envelope, table = TITLE, ENVELOPE, MAPPING
    accepted = (200,)

    def __init__(self, step: Step, job: Job):
        super().__init__(step, job)
        self.api = api(step.settings)
        self.video_api = self.api.replace("https://graph.facebook.com", "https://graph-video.facebook.com")
        self.page = quote(job.user_id, safe="")

    # -- the post

    def publish_part(self) -> Result | None:
        if len(self.part.media) == 1 and self.part.media[0]["type"] == "video":
            return self.video_part()
        return self.feed_part()

    def feed_part(self) -> Result | None:
        if self.state.get("post"):
            return self.posted(self.state["post"])
        photos = self.unpublished_photos() if self.part.media else []
        caption = self.part.caption
        if self.state.get("creating") == "post":
            found = find_post(self.get, self.page, self.sent_at, caption, photos)
            if found is not None:
                return self.posted(found["id"], found.get("permalink_url"))
            del self.state["creating"]  # not among the Page's posts: it was never made
        params = {"message": caption} if caption else {}
        if photos:
            params.update({f"attached_media[{i}]": json.dumps({"media_fbid": photo}) for i, photo in enumerate(photos)})
        elif link_of(caption):
            params["link"] = link_of(caption)
        try:
            body = self.creating("post", lambda: self.post(f"{self.page}/feed", "the post", params))
            post_id = identifier(body, "id", "the post", GRAPH_ID)
        except UnusableAnswer as e:
            found = self.read_back(e, lambda: find_post(self.get, self.page, self.sent_at, caption, photos))
            return self.posted(found["id"], found.get("permalink_url"))
        return self.posted(post_id)

    def posted(self, post_id: str, permalink: Any = None) -> Result | None:
        """The feed post is out (saved first): with its permalink, read now if not known. The
        read is Facebook's word only: whatever goes wrong with it, the post's URL is made."""
        self.state.pop("creating", None)
        if self.state.get("post") != post_id:
            self.state["post"] = post_id
            self.saved()
        if permalink is None:
            try:
                permalink = self.get(quote(post_id, safe=""), "the post", fields="permalink_url").get("permalink_url")
            except (Stop, UnusableAnswer):
                permalink = None
        return self.out(post_id, on_facebook(permalink) or post_permalink(post_id))

    def out(self, object_id: str, permalink: str) -> None:
        self.state.pop("creating", None)
        self.state.pop("sent_at", None)
        self.state["thread"].append({"id": object_id, "permalink": permalink})
        self.saved()
        return None

    def published(self) -> Outcome:
        return Outcome(external_url=self.state["thread"][0]["permalink"])

    # -- the first comment, as the Page

    def publish_comment(self) -> Result | None:
        target, message = self.state["thread"][0]["id"], self.job.first_comment

        def find() -> Mapping[str, Any] | None:
            return find_comment(self.get, quote(target, safe=""), self.job.user_id, self.sent_at, message)

        if self.state.get("creating") == "comment":
            found = find()
            if found is not None:
                return self.commented(found["id"])
            del self.state["creating"]
        try:
            body = self.creating("comment", lambda: self.post(f"{quote(target, safe='')}/comments", "the comment",
                                                              {"message": message}))
            comment_id = identifier(body, "id", "the comment", GRAPH_ID)
        except UnusableAnswer as e:
            comment_id = self.read_back(e, find)["id"]
        return self.commented(comment_id)

    def commented(self, comment_id: str) -> None:
        self.state.pop("creating", None)
        self.state.pop("sent_at", None)
        self.state["comment"] = comment_id
        self.saved()
        return None

    # -- the preflight

    def foresee(self) -> list[Outcome]:
        media = self.job.media
        if len(media) != 1 or media[0]["type"] != "video":
            return []
        try:
            with self.fetch(media[0], "media[0]", renew=False) as fetched:
                reel = is_reel(fetched.info, frame(fetched.file))
            if reel:
                self.check_reels()
        except Stop as stop:
            # A media problem is the preflight's own to say (fanout/before_platform.py).
            outcome = stop.result.outcome
            return [outcome] if outcome.error_code == RATE else []
        return []

    # -- calls (fanout/platforms/steps.py `call`, the Page token as a Bearer)

    def get(self, path: str, what: str, **params: str) -> Mapping[str, Any]:
        """A read of `what`: safe to repeat, so any transient failure is a Retry."""
        return self.call("GET", f"{self.api}/{path}", what, params=params)

    def post(self, path: str, what: str, params: Mapping[str, str], *, url: str | None = None,
             upload: bool = False) -> Mapping[str, Any]:
        return self.call("POST", f"{url or self.api}/{path}", what, data=dict(params), upload=upload)

    def creating(self, marker: str, send: Callable[[], Mapping[str, Any]]) -> Mapping[str, Any]:
        """A call that creates something: its marker (and the time) saved first. Without a
        clear answer the marker stays, and the next step reads back before sending again."""
        self.state["creating"] = marker
        self.state["sent_at"] = self.step.now().isoformat()
        self.saved()
        body = send()
        self.state.pop("creating", None)
        return body

    def accept(self, response, what, token=None):
        """A 200's JSON object, unless it holds an `error` object."""
        body = super().accept(response, what, token)
        return None if isinstance(body.get("error"), dict) else body

    def unsent(self) -> None:
        self.state.pop("creating", None)  # a request that never left created nothing


__all__ = ["HOSTS", "SCOPES", "authorize", "exchange", "foresee", "post_permalink", "publish", "refresh",
           "refresh_due"]
