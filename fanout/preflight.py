"""POST /v1/upload/preflight: what an upload of a body would come to, creating and counting
nothing (docs/decisions.md#posts-in-time).

The request's rules are the upload's own (fanout/models/upload.py, then the monthly cap
read, not counted): a body an upload would refuse is refused with the same status and
code. Otherwise each destination is judged by the checks its target would meet before its
platform is asked to publish, all of them, in order: the engine's sequence
(fanout/before_platform.py), with what the adapter's publish would check itself made here
too (the account's token, refreshed now if it is due; the media an adapter fetches
itself; its `foresee`), which count nothing.

A target's checks take the content that target would publish: the post's, or its
platform's override (`overrides`: caption, media, options, thread, first comment), worked
out by fanout/content.py `content_for` as the upload, the engine and the views do. What
only the platform's answer to a publish can show (a video it fails to process, an option
it refuses for this account) is not foreseen.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import before_platform
from .content import content_for
from .models import Account, Workspace, caps
from .models.upload import check_destinations, draft_from_request
from .platforms.base import Outcome


@dataclass(frozen=True)
class Foreseen:
    """One destination of a preflight: its account and the failures its target would meet."""

    account: Account
    problems: list[Outcome]


def preflight(rt, workspace_id: str, body: dict, key_mode: str) -> list[Foreseen]:
    """The upload's request rules (their Problems, as the upload raises them), then each
    destination's foreseen failures, in the upload's order."""
    now = rt.now()
    draft = draft_from_request(body, key_mode, now=now, insecure_urls=rt.settings.insecure_urls)
    destinations = check_destinations(rt.platforms, workspace_id, draft)
    caps.check_post(Workspace.get_by_id(workspace_id), now)
    return [Foreseen(account, list(before_platform.problems(
        rt, account, content_for(draft.caption, draft.media, draft.overrides, account.platform),
        sandbox=draft.sandbox, simulate_error=draft.simulate_error, publishing=False)))
        for account in destinations]
