"""Facebook Login for Pages (docs/platforms.md#facebook): the dialog, the code exchanged for
a short-lived user token and that for a long-lived one, the permissions the person granted,
and the Pages they gave the app, each with its Page token: one account per Page. Page
tokens read with a long-lived user token do not expire and cannot be refreshed; `refresh`
asks Facebook whether the token still works (`debug_token`) [C].

The dialog on www.facebook.com and the token check are called unversioned (their hooks
take no settings: Facebook answers them at the app's default version [C]); every other call
names FANOUT_FACEBOOK_API_VERSION.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from ..base import AccountNotEligible, App, AuthFailed, Authorization, Choices, ClientRefused, Grant, bearer
from ..graph_errors import GRAPH_ID, json_or_refusal
from ..mapping import number
from ..oauth import TokenEndpoint, answered, in_words_of
from .errors import ENVELOPE
from .settings import DEFAULT_API_VERSION

TITLE = "Facebook"
HOSTS = ("www.facebook.com", "graph.facebook.com", "graph-video.facebook.com", "rupload.facebook.com")
GRAPH = "https://graph.facebook.com"
DIALOG_URL = "https://www.facebook.com/dialog/oauth"
# Listing the Pages, reading them and publishing as them; `pages_manage_engagement`: a post's
# first comment, as the Page.
NEEDED = ("pages_show_list", "pages_read_engagement", "pages_manage_posts")
SCOPES = (*NEEDED, "pages_manage_engagement")
# The Pages a person gave the app are read 100 at a time, at most this many times.
PAGES_READ = 20
# A Page token that ends (one read with a short-lived user token: about an hour) is asked
# about this long before its end, and the account expires with it.
REFRESH_BEFORE = _dt.timedelta(hours=1)


def api(settings) -> str:
    version = settings.of("facebook").api_version if settings is not None else DEFAULT_API_VERSION
    return f"{GRAPH}/{version}"


def authorize(app: App, redirect_uri: str, state: str, *, randbytes=None) -> Authorization:
    query = urlencode({"client_id": app.client_id, "redirect_uri": redirect_uri, "state": state,
                       "response_type": "code", "scope": ",".join(SCOPES)}, safe=",")
    return Authorization(f"{DIALOG_URL}?{query}")


def _app_refused(response, body) -> bool:
    """Graph's 1 ("Error validating client secret") and 101 (an app id it does not know)."""
    return ENVELOPE.read(response).code in (1, 101)


def token_endpoint(settings) -> TokenEndpoint:
    # The app's credentials in the form: Graph takes any call's parameters as a form [C].
    return TokenEndpoint(f"{api(settings)}/oauth/access_token", TITLE, "FANOUT_FACEBOOK_CLIENT_ID/SECRET",
                         in_words_of(ENVELOPE.read), client_refused=_app_refused)


def exchange(http, app: App, code: str, redirect_uri: str, verifier: str | None = None, *,
             now: _dt.datetime, settings=None) -> Grant | Choices:
    """Code -> a short-lived user token -> a long-lived one (60 days) -> the Pages the
    person gave the app, each an account with its Page token (which does not expire): one
    Grant for one Page, Choices of them for several (the connect page asks which).

    AuthFailed when Facebook refuses, or publishing's permissions were declined;
    AccountNotEligible when no Page can be published to; PlatformUnreachable when
    Facebook cannot be asked."""
    token = token_endpoint(settings)
    short = token.request(http, app, {"code": code, "redirect_uri": redirect_uri}, "the code exchange", code)
    long_lived = token.request(http, app, {"grant_type": "fb_exchange_token",
                                           "fb_exchange_token": short["access_token"]},
                               "the long-lived token exchange", short["access_token"])
    user_token = long_lived["access_token"]
    declined = [p for p in NEEDED if p not in granted(http, api(settings), user_token)]
    if declined:
        raise AuthFailed(f"{TITLE} was not given {', '.join(declined)}, which publishing to a Page needs: connect "
                         "again and allow it")
    grants = tuple(Grant(access_token=page["access_token"], user_id=page["id"], username=page["name"])
                   for page in pages(http, api(settings), user_token) if publishable(page))
    if not grants:
        raise AccountNotEligible(f"the {TITLE} account gave this app no Page it can publish to (it needs a Page it "
                                 "creates content on, chosen when it connects): connect again and choose one")
    return grants[0] if len(grants) == 1 else Choices(field="page_id", noun="Page", grants=grants)


def granted(http, url: str, user_token: str) -> set[str]:
    """The permissions the person granted (`/me/permissions`)."""
    body = json_or_refusal(TITLE, http.get(f"{url}/me/permissions", headers=bearer(user_token)),
                           "reading the permissions", user_token)
    return {p.get("permission") for p in body.get("data") or () if isinstance(p, Mapping)
            and p.get("status") == "granted"}


def pages(http, url: str, user_token: str) -> list[Mapping[str, Any]]:
    """The Pages the person gave the app (`/me/accounts`), page after page: each with its
    id, name, Page token and the person's tasks on it."""
    found: list[Mapping[str, Any]] = []
    after = None
    for _ in range(PAGES_READ):
        params = {"fields": "id,name,access_token,tasks", "limit": "100", **({"after": after} if after else {})}
        body = json_or_refusal(TITLE, http.get(f"{url}/me/accounts", params=params, headers=bearer(user_token)),
                               "reading the Pages", user_token)
        listed = [page for page in body.get("data") or () if isinstance(page, Mapping)]
        for page in listed:
            if not (isinstance(page.get("id"), str) and GRAPH_ID.fullmatch(page["id"])
                    and isinstance(page.get("name"), str) and page["name"]
                    and isinstance(page.get("access_token"), str) and page["access_token"]):
                raise AuthFailed(f"{TITLE} answered a Page without its id, name or token")
            found.append(page)
        paging = body.get("paging") if isinstance(body.get("paging"), Mapping) else {}
        cursors = paging.get("cursors") if isinstance(paging.get("cursors"), Mapping) else {}
        after = cursors.get("after")
        if not listed or not paging.get("next") or not after:
            break
    return found


def publishable(page: Mapping[str, Any]) -> bool:
    """Whether the person may publish as the Page: its tasks name CREATE_CONTENT (when
    Facebook answers them)."""
    tasks = page.get("tasks")
    return not isinstance(tasks, list) or "CREATE_CONTENT" in tasks


def refresh(http, app: App, access_token: str, refresh_token: str | None = None, *,
            now: _dt.datetime) -> Grant:
    """A Page token cannot be refreshed: Facebook's token check (`debug_token`, asked with
    the app's token) says whether it still works. It does, and still grants publishing, the
    same token is kept with its end (none, for most); it does not, AuthFailed: the Page is
    connected again."""
    response = answered(http.get(f"{GRAPH}/debug_token", params={"input_token": access_token},
                                 headers=bearer(f"{app.client_id}|{app.client_secret}")), TITLE, "the token check")
    body = response.json()
    data = body.get("data") if isinstance(body, dict) else None
    if response.status != 200 or not isinstance(data, dict):
        answer = ENVELOPE.read(response, access_token, app.client_secret)
        raise ClientRefused(f"{TITLE} refused this server's app credentials during the token check "
                            f"(FANOUT_FACEBOOK_CLIENT_ID/SECRET): {answer.message or answer.raw}")
    if data.get("is_valid") is not True:
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        said = f" ({error['message']})" if isinstance(error.get("message"), str) else ""
        raise AuthFailed(f"the {TITLE} Page token no longer works{said}: connect the Page again")
    scopes = data.get("scopes") if isinstance(data.get("scopes"), list) else []
    missing = [p for p in NEEDED[1:] if p not in scopes]
    if missing:
        raise AuthFailed(f"the {TITLE} Page token no longer grants {', '.join(missing)}: connect the Page again")
    ends = number(data.get("expires_at"))
    return Grant(access_token=access_token,
                 expires_at=_dt.datetime.fromtimestamp(ends, _dt.UTC).replace(tzinfo=None) if ends else None)


def refresh_due(expires_at: _dt.datetime) -> _dt.datetime:
    return expires_at - REFRESH_BEFORE
