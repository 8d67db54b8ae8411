"""LinkedIn (Share on LinkedIn, the versioned Posts API): the OAuth flow and a member's
posts (docs/platforms.md#linkedin).

Authorize and the token endpoint on www.linkedin.com (oauth.py), everything else on
api.linkedin.com: `/v2/userinfo` (OpenID Connect) for the member, and under `/rest/` the
versioned API, each call naming `LinkedIn-Version` (FANOUT_LINKEDIN_API_VERSION) and
Rest.li 2.0.0.

A post is published in steps over saved state:
1. each media file is fetched once (fanout/outbound/media_fetch.py checks it as it
   streams), uploaded through the Images or the Videos API and read back until LinkedIn
   has processed it (media.py);
2. `POST /rest/posts` with the commentary escaped as little text; 201 names the post in
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

import re
from typing import Any

from ..base import Done, Job, Outcome, Result, Step, Wait
from ..contract import UnusableAnswer, identifier, may_be_out
from ..mapping import Rule
from .errors import ENVELOPE, MAPPING
from .media import HOSTS, REST, MediaSteps, author, urn
from .oauth import SCOPES, TITLE, authorize, exchange, refresh, refresh_due
from .rules import RULES
from .text import escape

UPLOADS_MEDIA = True
# LinkedIn's words for a member who said no at its consent page (connect_flow's `denials`).
DENIED = ("user_cancelled_authorize", "user_cancelled_login")
# About 150 posts a day per member, counted from 00:00 UTC [S].
DAILY_POSTS = 150
_DUPLICATE_OF = re.compile(r"duplicate of (urn:li:[A-Za-z]+:[0-9A-Za-z_-]+)")


def publish(step: Step, job: Job) -> Result:
    """One step of publishing `job` (see the module's docstring for the sequence)."""
    return _Posting(step, job).run()


def permalink(urn: str) -> str:
    return f"https://www.linkedin.com/feed/update/{urn}/"


class _Posting(MediaSteps):
    """One step (fanout/platforms/steps.py). State keys (all JSON):
    - `media`: per item, in the post's order (media.py);
    - `sending`: the post may be out (its answer not had); `post`: its URN.
    """

    title, envelope, table, rules = TITLE, ENVELOPE, MAPPING, RULES
    unknown_in_words = True  # LinkedIn's words name the post a duplicate is of
    not_the_file = (404,)

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
        self.under_cap(today, DAILY_POSTS, lambda made: f"{TITLE} allows about {DAILY_POSTS} posts a day per member; "
                                                        f"this account published {made} since 00:00 UTC")

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
            response = self.call("POST", f"{REST}/posts", json_body=self.body(), special=_duplicate if again else None)
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

    # -- calls (fanout/platforms/steps.py `call`): a 2xx is answered as it came

    def headers(self, url: str) -> dict:
        if not url.startswith(REST):
            return {}
        return {"LinkedIn-Version": self.step.settings.of("linkedin").api_version, "X-Restli-Protocol-Version": "2.0.0"}

    def accept(self, response, what, token=None):
        return response

    def outcome_of(self, answer) -> tuple[Rule | None, Outcome]:
        rule, outcome = super().outcome_of(answer)
        if answer.http == 426:
            outcome = Outcome(error_code=outcome.error_code, error_message=(
                f"{TITLE} no longer serves (or does not serve yet) the API version this server names: set "
                f"FANOUT_LINKEDIN_API_VERSION to a recent month ({answer.message or answer.raw})"))
        return rule, outcome


class _Duplicate(Exception):
    """LinkedIn refused a post sent again as a duplicate of `urn`: the first one went out."""

    def __init__(self, urn: str):
        super().__init__(urn)
        self.urn = urn


def _duplicate(response, answer) -> None:
    if answer.input == "DUPLICATE_POST" and (found := _DUPLICATE_OF.search(answer.message)):
        raise _Duplicate(found.group(1))


__all__ = ["DENIED", "HOSTS", "SCOPES", "authorize", "exchange", "permalink", "publish", "refresh", "refresh_due"]
