"""The live Threads connect flow, through HTTP only: the app on a real loopback server, the
Threads emulator on another, and a browser (a requests session) following the redirects
from the connect link to the emulator's consent and back (fanout/connect_flow.py).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import html
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from fanout.models import MODELS, Account, ConnectSession, db
from fanout.models.account import connect_account
from fanout.models.workspace import create_workspace
from fanout.settings import sqlite_path

from ...conftest import bearer, make_key
from ...threads_world import (  # noqa: F401 (fixtures)
    LONG_LIVED, USER_ID, USERNAME, accounts, browser, callback_url, connect, connect_link, emulator, headers, live,
    port, query_of, settings, threads_server,
)


def test_connecting_adds_an_active_account_with_the_threads_username(browser, live, headers):
    landed = browser.get(connect_link(live, headers), timeout=10)
    assert landed.url.startswith(f"{live}/connect/done?")
    assert landed.status_code == 200 and "Your Threads account is connected" in landed.text
    query = query_of(landed.url)
    assert query["platform"] == "threads" and query["status"] == "connected"
    assert accounts(live, headers) == [{
        "id": query["account_id"], "platform": "threads", "username": USERNAME, "status": "active",
        "connected_at": "2026-11-22T10:00:00.000Z", "sandbox": False,
    }]


def test_the_browser_is_sent_to_the_platform_with_a_state_kept_only_as_a_hash(browser, live, headers, emulator):
    to_platform = browser.get(connect_link(live, headers), allow_redirects=False, timeout=10)
    location = to_platform.headers["location"]
    assert location.startswith(f"{emulator.base_url}/oauth/authorize?")
    query = query_of(location)
    assert query == {"client_id": "app-id", "redirect_uri": f"{live}/connect/threads/callback",
                     "scope": "threads_basic,threads_content_publish,threads_manage_replies", "response_type": "code",
                     "state": query["state"]}
    assert len(query["state"]) >= 40
    with db.connection_context():
        session = ConnectSession.get()
    assert session.oauth_state_hash == hashlib.sha256(query["state"].encode()).hexdigest()
    assert query["state"] not in str(session.__data__)


def test_the_account_refreshes_a_week_before_its_60_days_less_a_jitter(browser, live, headers, clock):
    account_id = connect(browser, live, headers)["account_id"]
    with db.connection_context():
        account = Account.get_by_id(account_id)
    expires = clock.now + LONG_LIVED
    due = expires - dt.timedelta(days=7)
    assert account.token_expires_at == expires
    assert due - (due - clock.now) * 0.1 <= account.refresh_at <= due


def test_reconnecting_makes_the_same_account_active_again(browser, live, headers):
    first = connect(browser, live, headers)["account_id"]
    with db.connection_context():
        Account.update(status="expired").where(Account.id == first).execute()
    again = connect(browser, live, headers)
    assert again["account_id"] == first and again["status"] == "connected"
    assert [(a["id"], a["status"]) for a in accounts(live, headers)] == [(first, "active")]


def test_another_threads_user_is_another_account(browser, live, headers, emulator):
    connect(browser, live, headers)
    emulator.consent_as(emulator.add_user("second_user").id)
    connect(browser, live, headers)
    assert sorted(a["username"] for a in accounts(live, headers)) == ["emu_threads", "second_user"]


def test_denied_consent_comes_back_with_access_denied(browser, live, headers, emulator):
    emulator.deny_consent()
    back = callback_url(browser, connect_link(live, headers, redirect_url="https://app.example.com/back"))
    landed = browser.get(back, allow_redirects=False, timeout=10)
    assert landed.status_code == 302
    assert landed.headers["location"] == "https://app.example.com/back?platform=threads&error=access_denied"
    assert accounts(live, headers) == []


def test_denied_consent_shows_on_the_built_in_page(browser, live, headers, emulator):
    emulator.deny_consent()
    landed = browser.get(connect_link(live, headers), timeout=10)
    assert query_of(landed.url) == {"platform": "threads", "error": "access_denied", "retry": query_of(landed.url)["retry"]}
    assert "Access was not granted" in landed.text


def retry_link(page) -> str:
    [href] = re.findall(r'<a href="([^"]*)">Try connecting Threads again</a>', page.text)
    return html.unescape(href)


def test_denied_consent_offers_a_retry_that_connects(browser, live, headers, emulator):
    emulator.deny_consent()
    denied = browser.get(connect_link(live, headers), timeout=10)
    emulator.deny_consent(False)
    landed = browser.get(live + retry_link(denied), timeout=10)
    assert landed.status_code == 200 and "Your Threads account is connected" in landed.text
    assert [a["username"] for a in accounts(live, headers)] == [USERNAME]


def test_a_retry_link_works_once(browser, live, headers, emulator):
    emulator.deny_consent()
    retry = live + retry_link(browser.get(connect_link(live, headers), timeout=10))
    emulator.deny_consent(False)
    browser.get(retry, timeout=10)
    again = browser.get(retry, timeout=10)
    assert again.status_code == 410 and "already used" in again.text


def test_a_retry_link_ends_when_the_first_link_would_have(browser, live, headers, emulator, clock):
    emulator.deny_consent()
    link = connect_link(live, headers)
    clock.advance(minutes=20)
    retry = live + retry_link(browser.get(link, timeout=10))
    clock.advance(minutes=10)  # 30 minutes after the client asked for the first link
    page = browser.get(retry, timeout=10)
    assert page.status_code == 410 and "expired" in page.text


def test_no_retry_is_offered_when_the_account_cap_would_refuse_it(browser, live, rt, emulator):
    with db.connection_context():
        small = create_workspace(rt, "Small", "FREE")
    headers = bearer(make_key(rt, small.id, "live"))
    for n in range(3):
        add_account(rt, small.id, f"other-{n}")
    link = connect_link(live, headers)  # 3 of 4, none on Threads
    add_account(rt, small.id, "other-3")  # another flow finished meanwhile
    emulator.deny_consent()
    denied = browser.get(link, timeout=10)
    assert query_of(denied.url) == {"platform": "threads", "error": "access_denied"}
    assert "Try connecting" not in denied.text


def test_a_state_that_was_never_issued_shows_a_clear_page(browser, live):
    page = browser.get(f"{live}/connect/threads/callback?code=abc&state=made-up", timeout=10)
    assert page.status_code == 400 and page.headers["content-type"].startswith("text/html")
    assert "This sign-in cannot be completed" in page.text


def test_a_callback_without_a_state_shows_a_clear_page(browser, live):
    page = browser.get(f"{live}/connect/threads/callback?code=abc", timeout=10)
    assert page.status_code == 400 and "cannot be completed" in page.text


def test_a_state_works_once(browser, live, headers):
    back = callback_url(browser, connect_link(live, headers))
    assert query_of(browser.get(back, timeout=10).url)["status"] == "connected"
    again = browser.get(back, timeout=10)
    assert again.status_code == 400 and "already used" in again.text
    assert len(accounts(live, headers)) == 1


def test_a_callback_after_the_session_expired_shows_a_clear_page(browser, live, headers, clock):
    back = callback_url(browser, connect_link(live, headers))
    clock.advance(minutes=31)
    page = browser.get(back, timeout=10)
    assert page.status_code == 400 and "took too long" in page.text
    assert accounts(live, headers) == []


def test_a_refused_code_exchange_comes_back_with_platform_error(browser, live, headers, emulator):
    emulator.fail_graph("POST", r"/oauth/access_token$", 100, "Invalid verification code format.")
    landed = browser.get(connect_link(live, headers), timeout=10)
    assert query_of(landed.url) == {"platform": "threads", "error": "platform_error"}
    assert "did not complete the connection" in landed.text
    assert accounts(live, headers) == []


def test_a_platform_that_fails_during_the_exchange_comes_back_with_platform_error(browser, live, headers, emulator):
    emulator.fail("GET", r"/access_token$", 503, "unavailable")
    landed = browser.get(connect_link(live, headers), timeout=10)
    assert query_of(landed.url) == {"platform": "threads", "error": "platform_error"}


def test_the_account_cap_is_checked_again_when_the_flow_completes(browser, live, rt):
    with db.connection_context():
        small = create_workspace(rt, "Small", "FREE")
    headers = bearer(make_key(rt, small.id, "live"))
    for n in range(3):
        add_account(rt, small.id, f"other-{n}")
    link = connect_link(live, headers)  # 3 of 4: the link is made
    add_account(rt, small.id, "other-3")  # another flow finished meanwhile
    landed = browser.get(link, timeout=10)
    assert query_of(landed.url) == {"platform": "threads", "error": "plan_limit_exceeded"}
    assert USERNAME not in [a["username"] for a in accounts(live, headers)]


def add_account(rt, workspace_id: str, user_id: str) -> None:
    with db.connection_context():
        connect_account(rt, workspace_id, platform="x", sandbox=False, platform_user_id=user_id,
                        username=user_id, access_token="tok")


@pytest.fixture
def at_the_cap(browser, live, rt) -> tuple[dict, str]:
    """A FREE workspace's live key, and its Threads account (now expired) among the 4
    accounts its plan allows."""
    with db.connection_context():
        small = create_workspace(rt, "Small", "FREE")
    headers = bearer(make_key(rt, small.id, "live"))
    threads_account = connect(browser, live, headers)["account_id"]
    with db.connection_context():
        Account.update(status="expired").where(Account.id == threads_account).execute()
    for n in range(3):
        add_account(rt, small.id, f"other-{n}")
    return headers, threads_account


def test_at_the_cap_the_same_threads_user_is_reconnected(browser, live, at_the_cap):
    headers, threads_account = at_the_cap
    landed = browser.get(connect_link(live, headers), timeout=10)
    assert query_of(landed.url) == {"platform": "threads", "account_id": threads_account, "status": "connected"}
    listed = accounts(live, headers)
    assert len(listed) == 4
    assert [a["status"] for a in listed if a["id"] == threads_account] == ["active"]


def test_at_the_cap_a_new_threads_user_is_refused_with_a_clear_page_and_no_account(browser, live, at_the_cap, emulator):
    headers, _ = at_the_cap
    before = accounts(live, headers)
    emulator.consent_as(emulator.add_user("someone_new").id)
    landed = browser.get(connect_link(live, headers), timeout=10)
    assert query_of(landed.url) == {"platform": "threads", "error": "plan_limit_exceeded"}
    assert "cannot connect more accounts" in landed.text and "only an account it holds can be connected again" in landed.text
    assert accounts(live, headers) == before


def test_at_the_cap_without_a_threads_account_the_link_is_refused_at_once(live, rt):
    with db.connection_context():
        small = create_workspace(rt, "Small", "FREE")
    for n in range(4):
        add_account(rt, small.id, f"other-{n}")
    answer = requests.post(f"{live}/v1/accounts/threads/connect", headers=bearer(make_key(rt, small.id, "live")),
                           json={}, timeout=10)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "plan_limit_exceeded"


def test_at_the_cap_parallel_callbacks_reconnect_the_known_user_and_refuse_the_new_ones(browser, live, at_the_cap,
                                                                                    emulator):
    # Each callback carries a code of its own user; the callbacks then race for the cap.
    headers, threads_account = at_the_cap
    callbacks = [callback_url(browser, connect_link(live, headers))]
    for n in range(3):
        emulator.consent_as(emulator.add_user(f"racer_{n}").id)
        callbacks.append(callback_url(browser, connect_link(live, headers)))
    with ThreadPoolExecutor(len(callbacks)) as pool:
        landed = list(pool.map(lambda url: query_of(requests.get(url, timeout=10).url), callbacks))
    assert landed[0] == {"platform": "threads", "account_id": threads_account, "status": "connected"}
    assert landed[1:] == [{"platform": "threads", "error": "plan_limit_exceeded"}] * 3
    assert len(accounts(live, headers)) == 4


def test_one_place_below_the_cap_parallel_callbacks_of_new_users_add_one_account(browser, live, rt, emulator):
    with db.connection_context():
        small = create_workspace(rt, "Small", "FREE")
    headers = bearer(make_key(rt, small.id, "live"))
    for n in range(3):
        add_account(rt, small.id, f"other-{n}")
    callbacks = []
    for n in range(4):
        emulator.consent_as(emulator.add_user(f"newcomer_{n}").id)
        callbacks.append(callback_url(browser, connect_link(live, headers)))
    with ThreadPoolExecutor(len(callbacks)) as pool:
        landed = list(pool.map(lambda url: query_of(requests.get(url, timeout=10).url), callbacks))
    assert sorted(o.get("status", o.get("error")) for o in landed) == ["connected"] + ["plan_limit_exceeded"] * 3
    assert len(accounts(live, headers)) == 4


def test_the_tokens_are_encrypted_at_rest(browser, live, headers, rt, emulator):
    account_id = connect(browser, live, headers)["account_id"]
    with db.connection_context():
        stored = Account.get_by_id(account_id).access_token
    token = rt.keyring.decrypt(stored)
    me = requests.get(f"{emulator.base_url}/v1.0/me", params={"fields": "username", "access_token": token}, timeout=10)
    assert me.json()["username"] == USERNAME  # it is the emulator's token...
    assert token.encode() not in database_content(rt)  # ...and the database never holds it in clear


def database_content(rt) -> bytes:
    """Everything the database holds: its files on SQLite, every row on PostgreSQL."""
    url = rt.settings.database_url
    if url.startswith("sqlite:///"):
        path = sqlite_path(url)
        files = [path, path.with_name(path.name + "-wal")]
        return b"".join(f.read_bytes() for f in files if f.exists())
    with db.connection_context():
        return "".join(str(row) for model in MODELS for row in model.select().tuples()).encode()


def test_a_platform_without_an_app_is_refused_when_the_link_is_asked_for(live, headers):
    answer = requests.post(f"{live}/v1/accounts/instagram/connect", headers=headers, json={}, timeout=10)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "platform_not_configured"
    assert "FANOUT_INSTAGRAM_CLIENT_ID" in error["message"] and "FANOUT_INSTAGRAM_CLIENT_SECRET" in error["message"]


def test_a_sandbox_key_still_connects_a_sandbox_threads_account(browser, live, sandbox_key, emulator):
    landed = browser.get(connect_link(live, bearer(sandbox_key)), timeout=10)
    assert query_of(landed.url)["status"] == "connected"
    assert emulator.calls == []
