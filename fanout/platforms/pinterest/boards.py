"""A Pinterest account's boards (docs/platforms.md#pinterest).

A Pin goes to a board: `options.board_id`, required unless the account has exactly one.
The boards are read page by page (`GET /v5/boards`, `bookmark` until null [C]) when the
account connects and at each token refresh, and kept on the account (`Grant.details`):
the upload then tells at once, with no call to Pinterest inside its transaction, that a
post must name its board (400), and a client reads them to offer them
(`GET /v1/accounts/{id}/boards`). A board made on Pinterest since is known at the next
refresh or connect; a publish finds the one board of an account itself.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

from ..base import AuthFailed, bearer
from ..oauth import answered
from .errors import ENVELOPE, PINTEREST_ID

API = "https://api.pinterest.com/v5"
TITLE = "Pinterest"
PAGE_SIZE = 250  # Pinterest's largest [C]
MOST_PAGES = 20  # 5,000 boards, more than an account makes
PRIVACY = ("PUBLIC", "PROTECTED", "SECRET")


def read_boards(http, token: str) -> list[dict]:
    """Every board the token may pin to, as the account keeps them ({id, name, privacy}).
    PlatformUnreachable when Pinterest cannot be asked; AuthFailed when it refuses or answers
    something else."""
    boards, bookmark = [], None
    for _ in range(MOST_PAGES):
        params = {"page_size": str(PAGE_SIZE), **({"bookmark": bookmark} if bookmark else {})}
        response = answered(http.get(f"{API}/boards", params=params, headers=bearer(token)), TITLE,
                            "reading the account's boards")
        body = response.json()
        items = body.get("items") if isinstance(body, dict) else None
        page = [board_of(item) for item in items] if response.status == 200 and isinstance(items, list) else None
        if page is None or None in page:
            raise AuthFailed(f"{TITLE} did not answer the account's boards: {ENVELOPE.read(response, token).raw}")
        boards += page
        bookmark = body.get("bookmark")
        if not isinstance(bookmark, str) or not bookmark:
            break
    return boards


def board_of(item: Any) -> dict | None:
    """A board of `GET /v5/boards` as the account keeps it, or None when it is not one."""
    if not isinstance(item, Mapping):
        return None
    board_id, name, privacy = item.get("id"), item.get("name"), item.get("privacy", "PUBLIC")
    if not isinstance(board_id, str) or not PINTEREST_ID.fullmatch(board_id) or not isinstance(name, str) \
            or privacy not in PRIVACY:
        return None
    return {"id": board_id, "name": name, "privacy": privacy.lower()}


def details(boards: list[dict], now: _dt.datetime) -> dict:
    """The account's details (Grant.details): its boards, and when they were read."""
    return {"boards": boards, "read_at": now.isoformat()}


def boards_of(details: Mapping[str, Any] | None) -> tuple[list[dict], _dt.datetime | None] | None:
    """(boards, when they were read) of an account's details; None when they hold none."""
    if not details or not isinstance(details.get("boards"), list):
        return None
    read_at = details.get("read_at")
    return list(details["boards"]), _dt.datetime.fromisoformat(read_at) if read_at else None


def board_problem(options: Mapping[str, Any], details: Mapping[str, Any] | None, account_id: str) -> str | None:
    """Why a Pin for this account must name its board and does not (Platform.account_problem):
    the account has several boards, or none; None when it names one, when the account has
    exactly one, or when its boards are not known."""
    found = boards_of(details)
    if options.get("board_id") or found is None or len(found[0]) == 1:
        return None
    lists = f"GET /v1/accounts/{account_id}/boards lists them"
    if not found[0]:
        return (f"overrides.pinterest.options.board_id is required: Pinterest account {account_id} had no board when "
                f"it was last read; make one on Pinterest and give its id, or connect the account again ({lists})")
    return (f"overrides.pinterest.options.board_id is required: Pinterest account {account_id} has "
            f"{len(found[0])} boards ({lists})")


def sandbox_details(user_id: str, now: _dt.datetime) -> dict:
    """A sandbox account's one board (docs/decisions.md: sandbox Pinterest accounts have one)."""
    number = int(user_id.rsplit("-", 1)[-1]) if user_id.rsplit("-", 1)[-1].isdigit() else 0
    return details([{"id": f"9{number:018d}", "name": "Sandbox board", "privacy": "public"}], now)
