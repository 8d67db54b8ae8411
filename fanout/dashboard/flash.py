"""What an action shows once on the page it redirects to (post, redirect, get): a test
ping's outcome, a rotated secret.

An action answers 303 to its page, so a reload asks for the page again instead of sending
the form again (a second ping, a second rotation). What the action has to show goes with
the redirect in a cookie of its own: encrypted with the service's keyring (a secret is
never readable in it), for that page's path only, valid a minute, bound to the session
that made it, and dropped by the page that shows it. So it is shown once, to that session
only. Nothing is stored on the server: the shown-once secret exists only in this answer,
as it did when the action's own answer showed it.
"""
from __future__ import annotations

import json

from starlette.responses import Response

from ..times import to_epoch_ms
from .web import Visit, see_other

COOKIE = "fanout_flash"
LIFETIME_MS = 60_000


def redirect_with(visit: Visit, path: str, **shown) -> Response:
    """303 to `path`, whose page shows `shown` (JSON values) once (`take`)."""
    sealed = visit.rt.keyring.encrypt(json.dumps(
        {"csrf": visit.csrf, "path": path, "at": to_epoch_ms(visit.rt.now()), "shown": shown}))
    answer = see_other(path)
    answer.set_cookie(COOKIE, sealed, max_age=LIFETIME_MS // 1000, path=path, httponly=True, samesite="strict",
                      secure=visit.rt.settings.base_url.startswith("https:"))
    return answer


def take(visit: Visit) -> dict:
    """What the action before this page left for it to show; empty if nothing (or if it was
    made for another session or page, or is over a minute old)."""
    sealed = visit.request.cookies.get(COOKIE)
    if not sealed:
        return {}
    try:
        flash = json.loads(visit.rt.keyring.decrypt(sealed))
    except ValueError:
        return {}
    fresh = 0 <= to_epoch_ms(visit.rt.now()) - flash["at"] <= LIFETIME_MS
    if flash["csrf"] != visit.csrf or flash["path"] != visit.request.url.path or not fresh:
        return {}
    return flash["shown"]


def dropped(answer: Response, visit: Visit) -> Response:
    """`answer` with the flash cookie (if the request had one) deleted: it was shown."""
    if COOKIE in visit.request.cookies:
        answer.delete_cookie(COOKIE, path=visit.request.url.path)
    return answer
