"""The Keys page: create (shown once), the plan's cap as the API words it, list, revoke."""
from __future__ import annotations

import re

from fanout.models import ApiKey, db

from ..conftest import bearer, make_key
from .conftest import alert, send, sign_in

NEW_KEY = re.compile(r'id="new-key" value="(svc_(?:sandbox|live)_[0-9A-Za-z]+)"')


def test_a_created_key_is_shown_once_and_works_against_the_api(dashboard, client):
    page = send(dashboard, "/dashboard/keys", {"name": "staging server", "mode": "sandbox"})
    assert page.status_code == 201 and page.headers["cache-control"] == "no-store"
    key = NEW_KEY.search(page.text).group(1)
    assert key.startswith("svc_sandbox_") and "This is the only time the key is shown" in page.text
    assert client.get("/v1/accounts", headers=bearer(key)).status_code == 200
    listed = dashboard.get("/dashboard/keys").text
    assert key not in listed and "staging server" in listed and key[:len("svc_sandbox_") + 12] in listed


def test_a_live_key_is_made_when_live_is_chosen(dashboard):
    page = send(dashboard, "/dashboard/keys", {"mode": "live"})
    assert NEW_KEY.search(page.text).group(1).startswith("svc_live_")


def test_past_the_plans_key_cap_the_page_shows_the_apis_refusal(client, rt, free):
    workspace, _ = free  # FREE: one active key, which it holds
    sign_in(client, rt, workspace.id)
    page = send(client, "/dashboard/keys", {"name": "second", "mode": "sandbox"})
    assert page.status_code == 403
    assert alert(page) == ("Refused: the FREE plan allows 1 active API key; revoke one or upgrade the plan "
                           "plan_limit_exceeded")
    assert 'value="second"' in page.text  # the form keeps what was typed
    with db.connection_context():
        assert ApiKey.select().where(ApiKey.workspace == workspace.id).count() == 1


def test_a_name_over_100_characters_is_refused(dashboard):
    page = send(dashboard, "/dashboard/keys", {"name": "n" * 101, "mode": "sandbox"})
    assert page.status_code == 400 and "a key's name is at most 100 characters" in alert(page)


def test_revoking_asks_first_then_refuses_the_key_at_once(dashboard, client, rt, workspace):
    key = make_key(rt, workspace.id, "sandbox")
    with db.connection_context():
        key_id = ApiKey.get().id
    confirm = dashboard.get(f"/dashboard/keys/{key_id}/revoke")
    assert confirm.status_code == 200 and "<h1>Revoke this key?</h1>" in confirm.text
    assert client.get("/v1/accounts", headers=bearer(key)).status_code == 200  # asking changed nothing
    done = send(dashboard, f"/dashboard/keys/{key_id}/revoke")
    assert done.status_code == 303 and done.headers["location"] == "/dashboard/keys?done=revoked"
    assert client.get("/v1/accounts", headers=bearer(key)).status_code == 401
    page = dashboard.get(done.headers["location"]).text
    assert "The key was revoked" in page and '<span class="badge revoked">revoked</span>' in page


def test_the_list_shows_when_a_key_was_last_used_to_the_minute(dashboard, client, rt, workspace, clock):
    key = make_key(rt, workspace.id, "sandbox")
    assert ">never<" in dashboard.get("/dashboard/keys").text.replace("<td data-label=\"Last used\">", ">")
    client.get("/v1/accounts", headers=bearer(key))
    clock.advance(seconds=59)
    client.get("/v1/accounts", headers=bearer(key))  # within the minute: not written again
    with db.connection_context():
        assert ApiKey.get().last_used_at == clock.now.replace(second=0)
    clock.advance(seconds=1)
    client.get("/v1/accounts", headers=bearer(key))
    with db.connection_context():
        assert ApiKey.get().last_used_at == clock.now
    assert '<time datetime="2026-11-22T10:01:00Z">2026-11-22 10:01 UTC</time>' in dashboard.get("/dashboard/keys").text


def test_the_key_count_reads_in_the_singular_on_a_plan_of_one_key(client, rt, free):
    workspace, _ = free  # FREE: one active key, which it holds
    sign_in(client, rt, workspace.id)
    assert "1 of 1 active key on the FREE plan." in client.get("/dashboard/keys").text
