"""The Accounts page: connect through the API's connect flow and come back, reconnect an
expired account, disconnect one (confirmed)."""
from __future__ import annotations

import dataclasses
from urllib.parse import parse_qs, urlsplit

from fanout.models import Account, db
from fanout.platforms.base import App

from ..conftest import bearer, connect_sandbox_account
from .conftest import alert, send, sign_in


def connect(dashboard, platform: str = "x", mode: str = "sandbox"):
    """A Connect button pressed, and the link it leads to opened: where the browser lands."""
    started = send(dashboard, "/dashboard/accounts/connect", {"platform": platform, "mode": mode})
    assert started.status_code == 303, started.text
    link = urlsplit(started.headers["location"])
    assert link.netloc == "connect.testserver" and link.path == f"/connect/{platform}"
    return dashboard.get(f"{link.path}?{link.query}", follow_redirects=False)


def test_a_sandbox_connect_comes_back_to_the_page_with_the_new_account(dashboard):
    landed = connect(dashboard)
    back = urlsplit(landed.headers["location"])
    assert f"{back.scheme}://{back.netloc}{back.path}" == "http://testserver/dashboard/accounts"
    assert parse_qs(back.query)["status"] == ["connected"]
    page = dashboard.get(f"{back.path}?{back.query}")
    assert "X account sandbox_x_1 is connected." in page.text
    assert "<td data-label=\"Username\">sandbox_x_1</td>" in page.text


def test_live_connect_buttons_are_shown_only_for_platforms_this_server_has_an_app_for(dashboard, rt):
    page = dashboard.get("/dashboard/accounts").text
    assert "Connect Threads (sandbox)" in page and ">Connect Threads<" not in page
    rt.settings = dataclasses.replace(rt.settings, platform_apps={"threads": App("id", "secret")})
    assert ">Connect Threads<" in dashboard.get("/dashboard/accounts").text


def test_a_live_connect_the_server_cannot_run_shows_the_apis_message(dashboard):
    page = send(dashboard, "/dashboard/accounts/connect", {"platform": "threads", "mode": "live"})
    assert page.status_code == 422
    assert "no Threads app is configured on this server: set FANOUT_THREADS_CLIENT_ID" in alert(page)


def test_at_the_account_cap_the_connect_is_refused_with_the_apis_message(client, rt, free):
    workspace, headers = free
    for platform in ("threads", "instagram", "tiktok", "x"):
        connect_sandbox_account(client, headers, platform)
    sign_in(client, rt, workspace.id)
    client.delete("/v1/accounts/" + client.get("/v1/accounts?platform=x", headers=headers).json()["data"][0]["id"],
                  headers=headers)
    connect_sandbox_account(client, headers, "threads")
    page = send(client, "/dashboard/accounts/connect", {"platform": "x", "mode": "sandbox"})
    api = client.post("/v1/accounts/x/connect", headers=headers, json={})
    assert page.status_code == api.status_code == 403
    assert api.json()["error"]["message"][1:] in alert(page)


def test_a_flow_that_ends_in_an_error_says_so_on_the_page(dashboard):
    page = dashboard.get("/dashboard/accounts?platform=x&error=plan_limit_exceeded")
    assert "The workspace cannot connect more accounts on its plan" in alert(page)


def test_an_expired_account_has_a_reconnect_button_for_its_platform_and_mode(dashboard, auth, client):
    account = connect_sandbox_account(client, auth, "x")
    with db.connection_context():
        Account.update(status="expired").where(Account.id == account["id"]).execute()
    page = dashboard.get("/dashboard/accounts").text
    reconnect = page[page.index(account["username"]):]
    assert ">Reconnect<" in reconnect[:1500]


def test_disconnecting_asks_first_then_removes_the_account(dashboard, auth, client):
    account = connect_sandbox_account(client, auth, "x")
    confirm = dashboard.get(f"/dashboard/accounts/{account['id']}/disconnect")
    assert "<h1>Disconnect this account?</h1>" in confirm.text and "sandbox_x_1" in confirm.text
    assert len(client.get("/v1/accounts", headers=auth).json()["data"]) == 1
    done = send(dashboard, f"/dashboard/accounts/{account['id']}/disconnect")
    assert done.status_code == 303 and done.headers["location"] == "/dashboard/accounts?done=disconnected"
    assert client.get("/v1/accounts", headers=auth).json()["data"] == []
    assert "The account was disconnected" in dashboard.get(done.headers["location"]).text


def test_a_connect_form_naming_no_platform_of_this_server_is_refused(dashboard):
    page = send(dashboard, "/dashboard/accounts/connect", {"platform": "myspace", "mode": "sandbox"})
    assert page.status_code == 400 and "pick a platform and a mode from this page" in alert(page)


def test_disconnecting_again_is_not_found(dashboard, auth, client):
    account = connect_sandbox_account(client, auth, "x")
    send(dashboard, f"/dashboard/accounts/{account['id']}/disconnect")
    again = send(dashboard, f"/dashboard/accounts/{account['id']}/disconnect")
    assert again.status_code == 404 and "no such account in this workspace" in again.text
