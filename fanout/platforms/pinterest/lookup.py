"""Finding a Pin that may have been made without its answer (docs/platforms.md#pinterest).
Pinterest takes no idempotency key [S], so the board's Pins are read newest first
(`GET /v5/boards/{id}/pins`, bookmark pagination [C]) back to the time the create was sent,
and the Pin is the one with the same description, title, link, alt text and kind of media."""
from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any

from ..contract import identifier
from .boards import API
from .errors import PINTEREST_ID

PAGE, PAGES = 25, 4  # the Pins made on the board since, a hundred at most
# Pinterest's clock and ours may differ: a Pin made this much before our marker is still ours.
CLOCK_SKEW = _dt.timedelta(minutes=5)


def wanted(body: Mapping[str, Any]) -> dict:
    """What of a PinCreate body a Pin read back shows the same."""
    kind = "video" if body["media_source"]["source_type"] == "video_id" else "image"
    return {"description": body.get("description"), "title": body.get("title"), "link": body.get("link"),
            "alt_text": body.get("alt_text"), "kind": kind}


def found(call: Callable[..., Mapping[str, Any]], board_id: str, sent: Mapping[str, Any],
          since: _dt.datetime) -> str | None:
    """The id of the Pin made from `sent` (`wanted`) on the board since `since` (naive UTC),
    read with the step's `call` (a page it cannot read ends the step), or None."""
    bookmark = None
    for _ in range(PAGES):
        params = {"page_size": str(PAGE), **({"bookmark": bookmark} if bookmark else {})}
        body = call("GET", f"{API}/boards/{board_id}/pins", "the board's Pins", params=params)
        pins = [pin for pin in body.get("items") or [] if isinstance(pin, Mapping)]
        for pin in pins:
            created = platform_time(pin.get("created_at"))
            if same(pin, sent) and (created is None or created >= since - CLOCK_SKEW):
                return identifier(pin, "id", "the board's Pins", PINTEREST_ID)
        bookmark = body.get("bookmark")
        oldest = platform_time(pins[-1].get("created_at")) if pins else None
        if not pins or not isinstance(bookmark, str) or not bookmark or (oldest and oldest < since - CLOCK_SKEW):
            return None
    return None


def same(pin: Mapping[str, Any], sent: Mapping[str, Any]) -> bool:
    media = pin.get("media") if isinstance(pin.get("media"), Mapping) else {}
    kind = "video" if media.get("media_type") == "video" else "image"
    return kind == sent["kind"] and all(_text(pin.get(k)) == _text(sent[k])
                                        for k in ("description", "title", "link", "alt_text"))


def _text(value: Any) -> str:
    """A text field as compared: absent and empty alike, surrounding space ignored."""
    return value.strip() if isinstance(value, str) else ""


def platform_time(value: Any) -> _dt.datetime | None:
    """Pinterest's `2026-11-22T10:00:00` (UTC, with an offset or not) as naive UTC, like our clock."""
    try:
        moment = _dt.datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return moment.astimezone(_dt.UTC).replace(tzinfo=None) if moment and moment.tzinfo else moment
