"""Signing in to the dashboard: single-use links of 15 minutes, server-side sessions of
12 hours, signing out and revoking (docs/decisions.md#the-workspace-dashboard)."""
from __future__ import annotations

import dataclasses
import re
from http.cookies import SimpleCookie

import pytest

from fanout.models import DashboardLink, DashboardSession, db
from fanout.tasks.maintenance import purge_dashboard_sign_ins

from .conftest import make_link, sign_in, token_of


def cookie_of(answer) -> dict:
    jar = SimpleCookie()
    jar.load(answer.headers["set-cookie"])
    morsel = jar["fanout_dashboard"]
    return {"value": morsel.value, **{k: v for k, v in morsel.items() if v}}


def test_every_page_sends_a_visitor_without_a_session_to_sign_in(client):
    answer = client.get("/dashboard/keys", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard/sign-in"


def test_opening_a_link_asks_to_sign_in_to_its_workspace_and_spends_nothing(client, link, workspace):
    page = client.get(link)
    assert page.status_code == 200
    assert "<h1>Sign in to Acme</h1>" in page.text and workspace.id in page.text
    assert f'name="token" value="{token_of(link)}"' in page.text
    assert "set-cookie" not in page.headers
    assert client.get(link).status_code == 200  # a preview opening it first leaves it usable
    with db.connection_context():
        assert DashboardLink.get().used_at is None


def test_signing_in_starts_a_session_in_an_httponly_lax_cookie_for_12_hours(client, rt, workspace):
    answer = sign_in(client, rt, workspace.id)
    cookie = cookie_of(answer)
    assert cookie["httponly"] is True and cookie["samesite"].lower() == "lax"
    assert cookie["path"] == "/dashboard" and cookie["max-age"] == "43200"
    assert "secure" not in cookie  # the base URL is http here
    assert answer.headers["cache-control"] == "no-store"
    page = client.get("/dashboard")
    assert page.status_code == 200 and "<h1>Overview</h1>" in page.text


def test_the_session_cookie_is_secure_when_the_base_url_is_https(client, rt, workspace):
    rt.settings = dataclasses.replace(rt.settings, base_url="https://fanout.invalid")
    assert cookie_of(sign_in(client, rt, workspace.id))["secure"] is True


def test_the_session_is_stored_as_a_hash_never_as_its_token(client, rt, workspace):
    token = cookie_of(sign_in(client, rt, workspace.id))["value"]
    with db.connection_context():
        stored = DashboardSession.get()
    assert token not in stored.token_hash and len(stored.token_hash) == 64


def test_a_link_signs_in_once(client, rt, link):
    assert client.post("/dashboard/sign-in", data={"token": token_of(link)}, follow_redirects=False).status_code == 303
    again = client.post("/dashboard/sign-in", data={"token": token_of(link)}, follow_redirects=False)
    assert again.status_code == 410 and "This sign-in link was already used" in again.text
    assert client.get(link).status_code == 410


def test_a_link_expires_after_15_minutes(client, link, clock):
    clock.advance(minutes=15)
    page = client.get(link)
    assert page.status_code == 410 and "This sign-in link has expired" in page.text
    answer = client.post("/dashboard/sign-in", data={"token": token_of(link)}, follow_redirects=False)
    assert answer.status_code == 410 and "set-cookie" not in answer.headers


def test_a_link_within_its_15_minutes_signs_in(client, link, clock):
    clock.advance(minutes=14, seconds=59)
    assert client.post("/dashboard/sign-in", data={"token": token_of(link)}, follow_redirects=False).status_code == 303


@pytest.mark.parametrize("token", ["", "x", "A" * 43, "A" * 500])
def test_an_unknown_link_is_refused(client, token):
    page = client.get(f"/dashboard/sign-in?token={token}")
    assert page.status_code == 404 and "This sign-in link is not valid" in page.text


def test_a_session_ends_after_12_hours(dashboard, clock):
    clock.advance(hours=11, minutes=59)
    assert dashboard.get("/dashboard").status_code == 200
    clock.advance(minutes=1)
    answer = dashboard.get("/dashboard", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard/sign-in"


def test_signing_out_ends_the_session_on_the_server(dashboard):
    token = dashboard.cookies["fanout_dashboard"]
    page = dashboard.get("/dashboard")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    out = dashboard.post("/dashboard/sign-out", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/dashboard/sign-in?done=signed_out"
    assert 'fanout_dashboard=""' in out.headers["set-cookie"]
    # A copy of the cookie kept from before is worth nothing now.
    dashboard.cookies.set("fanout_dashboard", token, path="/dashboard")
    assert dashboard.get("/dashboard", follow_redirects=False).status_code == 303
    assert "You are signed out." in dashboard.get("/dashboard/sign-in?done=signed_out").text


def test_revoking_ends_every_session_of_the_workspace_and_its_unused_links(dashboard, cli, rt, workspace):
    unused = make_link(rt, workspace.id)
    ended = cli.json("dashboard-revoke", workspace.id)
    assert ended == {"workspace_id": workspace.id, "sessions_ended": 1, "links_voided": 1}
    assert dashboard.get("/dashboard", follow_redirects=False).status_code == 303
    assert dashboard.get(unused).status_code == 404


def test_signing_in_again_replaces_the_browsers_session_of_before(dashboard, rt, other_workspace):
    sign_in(dashboard, rt, other_workspace.id)
    with db.connection_context():
        assert [s.workspace_id for s in DashboardSession.select()] == [other_workspace.id]
    assert "<strong>Other</strong>" in dashboard.get("/dashboard").text


def test_the_command_prints_a_single_use_link_to_this_servers_sign_in_page(cli, workspace):
    cli.env["FANOUT_BASE_URL"] = "https://fanout.invalid"
    shown = cli.json("dashboard-link", workspace.id)
    assert shown["workspace_id"] == workspace.id
    assert shown["url"].startswith("https://fanout.invalid/dashboard/sign-in?token=")
    with db.connection_context():
        [stored] = DashboardLink.select()
    assert stored.workspace_id == workspace.id and stored.used_at is None
    assert (stored.expires_at - stored.created_at).total_seconds() == 15 * 60
    assert token_of(shown["url"]) not in stored.token_hash
    text = cli("dashboard-link", workspace.id).stdout
    assert text.startswith("https://fanout.invalid/dashboard/sign-in?token=") and "(15 minutes)" in text


def test_the_command_refuses_a_workspace_that_does_not_exist(cli):
    failed = cli("dashboard-link", "ws_00000000000000000000000000", check=False)
    assert failed.returncode == 1 and "no workspace ws_00000000000000000000000000" in failed.stderr


def test_housekeeping_deletes_links_and_sessions_past_their_lifetimes(dashboard, rt, workspace, clock):
    make_link(rt, workspace.id)
    clock.advance(minutes=15)
    assert purge_dashboard_sign_ins() == 2  # the spent link and the unused one
    assert dashboard.get("/dashboard").status_code == 200
    clock.advance(hours=12)
    assert purge_dashboard_sign_ins() == 1
    with db.connection_context():
        assert DashboardSession.select().count() == 0


def test_the_readmes_sign_in_block_prints_what_it_says(cli, workspace):
    from ..test_quickstart import README, matches, section

    [block] = re.findall(r"^```sh\n(.*?)^```$", section(README.read_text(), "The dashboard"),
                         flags=re.S | re.M)
    command = [line for line in block.splitlines() if line and not line.startswith("#")]
    expected = [line.removeprefix("# → ") for line in block.splitlines() if line.startswith("# → ")]
    assert command == ["fanout dashboard-link ws_..."]
    cli.env["FANOUT_BASE_URL"] = "http://127.0.0.1:8000"
    printed = cli("dashboard-link", workspace.id).stdout.splitlines()
    assert len(printed) == len(expected) and all(matches(e, line) for e, line in zip(expected, printed)), printed


def test_the_command_prints_the_link_on_the_address_the_data_folders_server_announced(cli, servers, workspace):
    assert "FANOUT_BASE_URL" not in cli.env
    server = servers("serve")  # on a free port, not 8000
    shown = cli.json("dashboard-link", workspace.id)
    assert shown["url"].startswith(f"{server.url}/dashboard/sign-in?token=")


def test_without_a_server_or_fanout_base_url_the_command_says_fanout_base_url_must_be_set(cli, workspace):
    failed = cli("dashboard-link", workspace.id, check=False)
    assert failed.returncode == 1
    assert "set FANOUT_BASE_URL" in failed.stderr and "fanout serve" in failed.stderr
    with db.connection_context():
        assert DashboardLink.select().count() == 0  # no link made that nobody could open
