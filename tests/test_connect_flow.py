"""POST /v1/accounts/{platform}/connect and the connect pages (docs/decisions.md#connect-flow)."""
import datetime as dt
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from fanout.models import Account, ConnectSession, db
from fanout.models.account import connect_account
from fanout.models.workspace import set_plan
from fanout.tasks.maintenance import purge_connect_sessions

from .conftest import bearer, connect_sandbox_account, open_connect_url


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


@pytest.mark.parametrize("platform", ["instagram", "threads", "tiktok", "x"])
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


def test_connect_refuses_an_unknown_platform(client, auth):
    answer = start(client, auth, "myspace")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize("platform", ["instagram", "threads", "tiktok", "x"])
def test_live_flow_without_an_oauth_app_redirects_with_platform_not_configured(client, live_key, platform):
    headers = bearer(live_key)
    url = start(client, headers, platform, redirect_url="https://app.example.com/cb").json()["url"]
    landed = open_connect_url(client, url)
    assert landed.status_code == 302
    assert query_of(landed.headers["location"]) == {"platform": platform, "error": "platform_not_configured"}
    assert client.get("/v1/accounts", headers=headers).json() == {"data": []}


def test_live_flow_without_redirect_url_shows_a_clear_page(client, live_key):
    headers = bearer(live_key)
    landed = open_connect_url(client, start(client, headers, "x").json()["url"])
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


# --- the account cap (docs/decisions.md#account-cap) -----------------------------------------


def test_connect_is_refused_at_the_account_cap(client, free):
    _, headers = free
    for platform in ("instagram", "threads", "tiktok", "x"):
        connect_sandbox_account(client, headers, platform)
    answer = start(client, headers, "x")
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "plan_limit_exceeded"


def test_cap_is_checked_again_when_the_flow_completes(client, free):
    _, headers = free
    urls = [start(client, headers, "x").json()["url"] for _ in range(5)]
    outcomes = [query_of(open_connect_url(client, u).headers["location"]) for u in urls]
    assert [o.get("status") for o in outcomes[:4]] == ["connected"] * 4
    assert outcomes[4] == {"platform": "x", "error": "plan_limit_exceeded"}
    assert len(client.get("/v1/accounts", headers=headers).json()["data"]) == 4


def test_every_account_counts_towards_the_cap_whatever_its_status(client, free):
    _, headers = free
    for platform in ("instagram", "threads", "tiktok", "x"):
        connect_sandbox_account(client, headers, platform)
    with db.connection_context():
        Account.update(status="expired").execute()
    assert start(client, headers, "x").status_code == 403


def test_disconnecting_frees_a_place_under_the_cap(client, free):
    _, headers = free
    accounts = [connect_sandbox_account(client, headers, p) for p in ("instagram", "threads", "tiktok", "x")]
    client.delete(f"/v1/accounts/{accounts[0]['id']}", headers=headers)
    assert start(client, headers, "x").status_code == 200


def test_upgrading_the_plan_raises_the_account_cap_at_once(client, free):
    ws, headers = free
    for platform in ("instagram", "threads", "tiktok", "x"):
        connect_sandbox_account(client, headers, platform)
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
    from fanout.handlers.connect_pages import OUTCOMES

    description = spec.load()["paths"]["/v1/accounts/{platform}/connect"]["post"]["description"]
    documented = set(re.findall(r"^- `(\w+)`:", description, re.MULTILINE))
    assert documented == set(OUTCOMES) - {"connected"}
