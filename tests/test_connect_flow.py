"""POST /v1/accounts/{platform}/connect and the connect pages (docs/decisions.md#connect-flow)."""
import dataclasses
import datetime as dt
import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from fanout import connect_flow
from fanout.models import Account, ConnectSession, db
from fanout.models.account import connect_account
from fanout.models.connect_session import start_session
from fanout.models.workspace import create_workspace, set_plan
from fanout.platforms import PLATFORMS, REGISTRY
from fanout.platforms.base import App
from fanout.problems import InvalidRequest
from fanout.tasks.maintenance import purge_connect_sessions

from .conftest import assert_error, bearer, connect_sandbox_account, make_key, open_connect_url


@pytest.fixture
def apps() -> dict:
    """The platforms' OAuth apps of the server under test: none unless a test says."""
    return {}


@pytest.fixture
def settings(settings, apps):
    return dataclasses.replace(settings, platform_apps=apps)


def start(client, headers, platform="x", **body):
    return client.post(f"/v1/accounts/{platform}/connect", headers=headers, json=body)


def query_of(location: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def test_connect_answers_a_session_url_on_the_connect_host(client, auth):
    answer = start(client, auth, "threads")
    assert answer.status_code == 200
    url = urlsplit(answer.json()["url"])
    assert f"{url.scheme}://{url.netloc}" == "http://connect.testserver"
    assert url.path == "/connect/threads"
    assert len(parse_qs(url.query)["session"][0]) >= 40


def test_connect_needs_no_body(client, auth):
    answer = client.post("/v1/accounts/x/connect", headers=auth)
    assert answer.status_code == 200


def test_connect_stores_only_a_hash_of_the_session_token(client, auth):
    token = parse_qs(urlsplit(start(client, auth).json()["url"]).query)["session"][0]
    with db.connection_context():
        stored = ConnectSession.get()
    assert token not in stored.token_hash


@pytest.mark.parametrize("platform", PLATFORMS)
def test_sandbox_flow_creates_an_active_sandbox_account_and_redirects(client, auth, platform):
    landed = open_connect_url(client, start(client, auth, platform).json()["url"])
    assert landed.status_code == 302
    location = landed.headers["location"]
    assert location.startswith("http://connect.testserver/connect/done?")
    query = query_of(location)
    assert query["platform"] == platform and query["status"] == "connected"
    [account] = client.get("/v1/accounts", headers=auth).json()["data"]
    assert account == {
        "id": query["account_id"], "platform": platform, "username": f"sandbox_{platform}_1",
        "status": "active", "connected_at": "2026-11-22T10:00:00.000Z", "sandbox": True,
    }


def test_sandbox_usernames_are_deterministic_and_count_up(client, auth):
    names = [connect_sandbox_account(client, auth, "tiktok")["username"] for _ in range(3)]
    assert names == ["sandbox_tiktok_1", "sandbox_tiktok_2", "sandbox_tiktok_3"]


def test_flow_redirects_to_redirect_url_keeping_its_query(client, auth):
    url = start(client, auth, "x", redirect_url="https://app.example.com/done?state=abc").json()["url"]
    location = open_connect_url(client, url).headers["location"]
    assert location.startswith("https://app.example.com/done?")
    query = query_of(location)
    assert query["state"] == "abc" and query["status"] == "connected" and query["platform"] == "x"
    assert query["account_id"].startswith("acc_")


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "/relative", "ftp://x.example.com", "https://user@x.example.com/", "no"])
def test_connect_refuses_a_redirect_url_that_is_not_absolute_http(client, auth, bad):
    answer = start(client, auth, "x", redirect_url=bad)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"
    assert "redirect_url" in answer.json()["error"]["message"]


@pytest.mark.parametrize("url", ["http://app.example.com/done", "HTTP://app.example.com/done", "http://127.0.0.1:3000/cb",
                                 "http://localhost:3000/cb"])
def test_connect_refuses_a_plain_http_redirect_url(client, auth, url):
    message = assert_error(start(client, auth, "x", redirect_url=url), 400, "validation_error")
    assert "redirect_url" in message
    with db.connection_context():
        assert ConnectSession.select().count() == 0


@pytest.mark.parametrize("insecure_urls", [True])
@pytest.mark.parametrize("url", ["http://127.0.0.1:3000/cb?x=1", "http://localhost:8080/done", "http://127.9.8.7/"])
def test_an_insecure_server_takes_plain_http_to_loopback(client, auth, url):
    location = open_connect_url(client, start(client, auth, "x", redirect_url=url).json()["url"]).headers["location"]
    assert location.startswith(url.split("?")[0])


@pytest.mark.parametrize("insecure_urls", [True])
@pytest.mark.parametrize("url", ["http://app.example.com/done", "http://2130706433/cb", "http://127.0.0.1.example.com/cb",
                                 "http://localhost.example.com/cb"])
def test_an_insecure_server_still_refuses_plain_http_off_loopback(client, auth, url):
    assert "redirect_url" in assert_error(start(client, auth, "x", redirect_url=url), 400, "validation_error")


@pytest.mark.parametrize("url", ["http://app.example.com/done", "http://127.0.0.1:3000/cb"])
def test_the_redirect_rule_holds_for_callers_that_bypass_the_spec(rt, workspace, url):
    with db.connection_context(), pytest.raises(InvalidRequest, match="redirect_url: must be an absolute https URL"):
        connect_flow.start(rt, workspace.id, "x", sandbox=True, redirect_url=url)


def test_connect_refuses_an_unknown_platform(client, auth):
    answer = start(client, auth, "myspace")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize(("platform", "prefix"), [
    ("instagram", "FANOUT_INSTAGRAM_"), ("threads", "FANOUT_THREADS_"), ("tiktok", "FANOUT_TIKTOK_"), ("x", "FANOUT_X_")])
def test_a_live_key_is_refused_at_once_for_a_platform_without_an_app(client, live_key, platform, prefix):
    answer = start(client, bearer(live_key), platform, redirect_url="https://app.example.com/cb")
    message = assert_error(answer, 422, "platform_not_configured")
    assert f"{prefix}CLIENT_ID" in message and f"{prefix}CLIENT_SECRET" in message
    with db.connection_context():
        assert ConnectSession.select().count() == 0


def test_a_sandbox_key_needs_no_platform_app(client, auth, settings):
    assert settings.platform_apps == {}
    assert start(client, auth, "x").status_code == 200


@pytest.mark.parametrize("apps", [{"x": App("x-id", "x-secret")}])
def test_a_live_key_gets_a_url_for_a_platform_with_an_app(client, live_key):
    assert start(client, bearer(live_key), "x").status_code == 200


def live_session(rt, workspace, platform="x", redirect_url=None) -> str:
    """The link of a live session made before its platform's app was required at the start
    (or before the app was removed): only the model is asked."""
    with db.connection_context():
        token = start_session(rt, workspace.id, platform=platform, sandbox=False, redirect_url=redirect_url)
    return f"http://connect.testserver/connect/{platform}?session={token}"


@pytest.mark.parametrize("platform", [p for p in PLATFORMS if REGISTRY[p].uses_app])
def test_live_flow_without_an_oauth_app_redirects_with_platform_not_configured(client, rt, workspace, platform):
    # A session made before its platform's app was removed: the flow still ends plainly.
    landed = open_connect_url(client, live_session(rt, workspace, platform, "https://app.example.com/cb"))
    assert landed.status_code == 302
    assert query_of(landed.headers["location"]) == {"platform": platform, "error": "platform_not_configured"}
    with db.connection_context():
        assert Account.select().count() == 0


class SaysNoInItsOwnWords:
    """X's adapter, but its refusal comes back as `error=user_cancelled_authorize`."""

    DENIED = ("user_cancelled_authorize",)

    def __getattr__(self, name):
        return getattr(REGISTRY["x"].adapter, name)


@pytest.mark.parametrize("platforms", [{**REGISTRY, "x": dataclasses.replace(REGISTRY["x"],
                                                                               adapter=SaysNoInItsOwnWords())}])
@pytest.mark.parametrize("apps", [{"x": App("x-id", "x-secret")}])
@pytest.mark.parametrize(("error", "ends"), [("user_cancelled_authorize", "access_denied"),
                                             ("user_cancelled_login", "platform_error")])
def test_a_refusal_in_the_platforms_own_words_is_access_denied(client, rt, workspace, platforms, error, ends):
    to_platform = open_connect_url(client, live_session(rt, workspace, "x", "https://app.example.com/cb"))
    state = query_of(to_platform.headers["location"])["state"]
    back = client.get("/connect/x/callback", params={"error": error, "state": state}, follow_redirects=False)
    assert query_of(back.headers["location"])["error"] == ends


def test_live_flow_without_redirect_url_shows_a_clear_page(client, rt, workspace):
    landed = open_connect_url(client, live_session(rt, workspace))
    page = client.get(landed.headers["location"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "not set up to connect accounts" in page.text


def test_a_used_session_shows_an_error_page(client, auth):
    url = start(client, auth).json()["url"]
    open_connect_url(client, url)
    again = open_connect_url(client, url)
    assert again.status_code == 410
    assert "already used" in again.text
    assert len(client.get("/v1/accounts", headers=auth).json()["data"]) == 1


def test_an_expired_session_shows_an_error_page(client, auth, clock):
    url = start(client, auth).json()["url"]
    clock.advance(minutes=30)
    landed = open_connect_url(client, url)
    assert landed.status_code == 410
    assert "expired" in landed.text
    assert client.get("/v1/accounts", headers=auth).json() == {"data": []}


def test_a_session_just_inside_30_minutes_still_works(client, auth, clock):
    url = start(client, auth).json()["url"]
    clock.advance(minutes=29, seconds=59)
    assert open_connect_url(client, url).status_code == 302


@pytest.mark.parametrize("query", ["session=nope", "session=", "", "session=" + "a" * 500])
def test_an_unknown_or_missing_session_shows_an_error_page(client, query):
    landed = client.get(f"/connect/x?{query}", follow_redirects=False)
    assert landed.status_code in (400, 404)
    assert landed.headers["content-type"].startswith("text/html")
    assert "link" in landed.text


def test_a_session_opened_on_another_platform_is_unknown(client, auth):
    url = start(client, auth, "x").json()["url"]
    landed = client.get(url.replace("http://connect.testserver", "").replace("/connect/x", "/connect/threads"))
    assert landed.status_code == 404


def test_connect_pages_keep_the_token_out_of_referers_and_caches(client, auth):
    landed = open_connect_url(client, start(client, auth).json()["url"])
    assert landed.headers["referrer-policy"] == "no-referrer"
    assert landed.headers["cache-control"] == "no-store"


def test_confirmation_page_escapes_what_it_is_given(client):
    page = client.get("/connect/done", params={"platform": "<script>", "error": "<b>x</b>"})
    assert page.status_code == 200
    assert "<script>" not in page.text and "<b>x</b>" not in page.text


def links_of(page) -> list[str]:
    return [html.unescape(href) for href in re.findall(r'<a href="([^"]*)"', page.text)]


def test_the_access_denied_page_links_a_retry_on_this_host_only(client):
    page = client.get("/connect/done", params={"platform": "x", "error": "access_denied", "retry": "abc123"})
    assert links_of(page) == ["/connect/x?session=abc123"]
    assert "Try connecting X again" in page.text
    for retry in ("https://elsewhere.example.com/", "//elsewhere.example.com", "abc&session=def", ""):
        forged = client.get("/connect/done", params={"platform": "x", "error": "access_denied", "retry": retry})
        assert links_of(forged) == [], retry


@pytest.mark.parametrize("query", [{"platform": "myspace", "error": "access_denied", "retry": "abc"},
                                   {"platform": "x", "error": "platform_error", "retry": "abc"},
                                   {"platform": "x", "status": "connected", "retry": "abc"}])
def test_only_an_access_denied_page_of_a_known_platform_offers_a_retry(client, query):
    assert links_of(client.get("/connect/done", params=query)) == []


# --- the account cap (docs/decisions.md#account-cap) -----------------------------------------


# The FREE plan's 4 accounts, one on x (a workspace holds at most 4 whatever the platforms).
FOUR_WITH_X = ("x", "threads", "instagram", "tiktok")


def fill_the_cap_but_x(client, headers) -> None:
    """The FREE plan's 4 accounts, none on x."""
    for platform in ("instagram", "threads", "tiktok", "tiktok"):
        connect_sandbox_account(client, headers, platform)


def test_connect_is_refused_at_the_account_cap(client, free):
    # With no account on the platform to reconnect: the flow could only be refused.
    _, headers = free
    fill_the_cap_but_x(client, headers)
    message = assert_error(start(client, headers, "x"), 403, "plan_limit_exceeded")
    assert "4 connected accounts" in message and "x account to reconnect" in message


def test_at_the_cap_a_connect_is_given_a_url_when_the_workspace_holds_an_account_on_the_platform(client, free):
    _, headers = free
    for platform in FOUR_WITH_X:
        connect_sandbox_account(client, headers, platform)
    assert start(client, headers, "x").status_code == 200


def test_at_the_cap_a_sandbox_flow_ends_with_plan_limit_exceeded_and_no_account(client, free):
    # A sandbox flow always connects a new sandbox user: at the cap it is refused as a live
    # flow is when a new platform user consents.
    _, headers = free
    for platform in FOUR_WITH_X:
        connect_sandbox_account(client, headers, platform)
    before = client.get("/v1/accounts", headers=headers).json()
    landed = open_connect_url(client, start(client, headers, "x").json()["url"])
    assert query_of(landed.headers["location"]) == {"platform": "x", "error": "plan_limit_exceeded"}
    page = client.get(landed.headers["location"])
    assert "cannot connect more accounts" in page.text and "as many accounts as its plan allows" in page.text
    assert client.get("/v1/accounts", headers=headers).json() == before


@pytest.mark.parametrize("apps", [{"x": App("x-id", "x-secret")}])
@pytest.mark.parametrize(("held", "key"), [("sandbox", "live"), ("live", "sandbox")])
def test_at_the_cap_only_an_account_of_the_keys_mode_may_be_reconnected(client, rt, held, key):
    with db.connection_context():
        ws = create_workspace(rt, "Small", "FREE")
        for n, platform in enumerate(FOUR_WITH_X):
            connect_account(rt, ws.id, platform=platform, sandbox=held == "sandbox", platform_user_id=str(n),
                            username=f"user_{n}", access_token="token")
    assert_error(start(client, bearer(make_key(rt, ws.id, key)), "x"), 403, "plan_limit_exceeded")


def test_cap_is_checked_again_when_the_flow_completes(client, free):
    _, headers = free
    urls = [start(client, headers, "x").json()["url"] for _ in range(5)]
    outcomes = [query_of(open_connect_url(client, u).headers["location"]) for u in urls]
    assert [o.get("status") for o in outcomes[:4]] == ["connected"] * 4
    assert outcomes[4] == {"platform": "x", "error": "plan_limit_exceeded"}
    assert len(client.get("/v1/accounts", headers=headers).json()["data"]) == 4


def test_every_account_counts_towards_the_cap_whatever_its_status(client, free):
    _, headers = free
    fill_the_cap_but_x(client, headers)
    with db.connection_context():
        Account.update(status="expired").execute()
    assert start(client, headers, "x").status_code == 403


def test_disconnecting_frees_a_place_under_the_cap(client, free):
    _, headers = free
    accounts = [connect_sandbox_account(client, headers, p) for p in ("instagram", "threads", "tiktok", "tiktok")]
    client.delete(f"/v1/accounts/{accounts[0]['id']}", headers=headers)
    assert start(client, headers, "x").status_code == 200


def test_upgrading_the_plan_raises_the_account_cap_at_once(client, free):
    ws, headers = free
    fill_the_cap_but_x(client, headers)
    with db.connection_context():
        set_plan(ws.id, "STARTER")
    assert start(client, headers, "x").status_code == 200


def test_reconnecting_the_same_platform_user_refreshes_it_without_counting_twice(rt, free, clock):
    ws, _ = free
    with db.connection_context():
        first = connect_account(rt, ws.id, platform="x", sandbox=False, platform_user_id="42", username="old", access_token="t1")
        Account.update(status="expired").where(Account.id == first.id).execute()
        clock.advance(hours=1)
        again = connect_account(rt, ws.id, platform="x", sandbox=False, platform_user_id="42", username="new", access_token="t2")
        assert again.id == first.id
        assert (again.status, again.username, again.connected_at) == ("active", "new", clock.now)
        assert Account.select().count() == 1
        assert rt.keyring.decrypt(again.access_token) == "t2"


def test_expired_sessions_are_purged(rt, client, auth, clock):
    start(client, auth)
    clock.advance(minutes=10)
    start(client, auth)
    clock.advance(minutes=25)
    assert purge_connect_sessions() == 1
    with db.connection_context():
        assert ConnectSession.select().count() == 1


def test_session_purge_runs_every_15_minutes(rt):
    due = [t.name for t in rt.queue.read_periodic(dt.datetime(2026, 11, 22, 10, 15))]
    not_due = [t.name for t in rt.queue.read_periodic(dt.datetime(2026, 11, 22, 10, 16))]
    assert "purge_connect_sessions" in due
    assert "purge_connect_sessions" not in not_due


def test_the_done_page_names_every_error_the_spec_documents():
    from fanout import spec
    from fanout.connect_flow import OUTCOMES

    description = spec.load()["paths"]["/v1/accounts/{platform}/connect"]["post"]["description"]
    documented = set(re.findall(r"^- `(\w+)`:", description, re.MULTILINE))
    assert documented == set(OUTCOMES) - {"connected"}
