"""The Webhooks pages: register (the secret shown once) under the API's rules, edit
(URL, events, enabled), a registration's deliveries with every attempt and redelivery, the
test ping and secret rotation, delete (confirmed); and the Events page, read from the
events log as GET /v1/events reads it."""
from __future__ import annotations

import html
import re

import pytest

from fanout.dashboard import webhooks as webhook_pages
from fanout.models import Webhook, db
from fanout.outbound.client import Outbound

from ..conftest import connect_sandbox_account, free_port, run_queue, upload_post
from .conftest import alert, send

SECRET = re.compile(r'id="new-secret" value="(whsec_[^"]+)"')


def then(dashboard, answer):
    """The page a form's 303 sends the browser to, as the browser asks for it."""
    assert answer.status_code == 303, answer.text
    return dashboard.get(answer.headers["location"], follow_redirects=False)


def register(dashboard, url: str, events=("post.completed", "post.failed")):
    return send(dashboard, "/dashboard/webhooks", {"url": url, "event": list(events)})


def test_a_registration_shows_its_secret_once(dashboard, rt):
    page = register(dashboard, "https://hooks.example.com/fanout")
    assert page.status_code == 201 and page.headers["cache-control"] == "no-store"
    secret = SECRET.search(page.text).group(1)
    with db.connection_context():
        stored = Webhook.get()
    assert rt.keyring.decrypt(stored.secret) == secret
    assert stored.event_list == ["post.completed", "post.failed"]
    assert secret not in dashboard.get("/dashboard/webhooks").text + dashboard.get(f"/dashboard/webhooks/{stored.id}").text


@pytest.mark.parametrize("url, words", [
    ("https://internal.example.com/hook", "url: host 'internal.example.com' resolves to a non-public address"),
    ("http://hooks.example.com/hook", "url: "),
])
def test_a_url_the_api_refuses_is_refused_with_its_message(dashboard, client, auth, url, words):
    page = register(dashboard, url)
    api = client.post("/v1/webhooks", headers=auth, json={"url": url, "events": ["post.completed", "post.failed"]})
    assert page.status_code == api.status_code == 400
    message = api.json()["error"]["message"]
    assert alert(page) == f"Refused: {message} validation_error"
    assert words in alert(page)


def test_no_event_chosen_is_refused_as_the_api_refuses_it(dashboard, client, auth):
    page = register(dashboard, "https://hooks.example.com/fanout", events=())
    api = client.post("/v1/webhooks", headers=auth, json={"url": "https://hooks.example.com/fanout", "events": []})
    assert page.status_code == api.status_code == 400
    assert api.json()["error"]["message"][1:] in alert(page)


def test_the_eleventh_registration_is_refused_with_the_apis_message(dashboard):
    for n in range(10):
        assert register(dashboard, f"https://hooks.example.com/{n}").status_code == 201
    page = register(dashboard, "https://hooks.example.com/eleventh")
    assert page.status_code == 403
    assert "a workspace holds at most 10 webhook registrations; delete one first" in alert(page)


@pytest.mark.parametrize("insecure_urls", [True])
def test_a_registrations_page_shows_each_delivery_with_every_attempt(dashboard, auth, client, httpserver, rt, clock,
                                                                      resolver):
    resolver.names["localhost"] = ["127.0.0.1"]  # httpserver's URLs name it
    httpserver.expect_request("/hook").respond_with_data("nope", status=503)
    register(dashboard, httpserver.url_for("/hook"))
    connect_sandbox_account(client, auth, "x")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(seconds=61)
    run_queue(rt, clock)
    with db.connection_context():
        webhook_id = Webhook.get().id
    page = dashboard.get(f"/dashboard/webhooks/{webhook_id}").text
    assert "<code>post.completed</code>" in page and '<span class="badge pending">pending</span>' in page
    attempts = re.search(r'<ol class="attempts">(.*?)</ol>', page, re.S).group(1)
    assert attempts.count("HTTP 503") == 2
    assert '<time datetime="2026-11-22T10:06:01Z">' in page  # the next attempt: 5 minutes after the second


def test_deleting_asks_first_then_removes_the_registration(dashboard, client, auth):
    register(dashboard, "https://hooks.example.com/fanout")
    with db.connection_context():
        webhook_id = Webhook.get().id
    confirm = dashboard.get(f"/dashboard/webhooks/{webhook_id}/delete")
    assert "<h1>Delete this webhook?</h1>" in confirm.text
    done = send(dashboard, f"/dashboard/webhooks/{webhook_id}/delete")
    assert done.status_code == 303 and done.headers["location"] == "/dashboard/webhooks?done=deleted"
    assert client.get("/v1/webhooks", headers=auth).json()["data"] == []


def test_an_action_the_table_adds_gets_a_button_and_runs_on_this_workspaces_registration(dashboard, monkeypatch):
    ran = []

    def ping(visit, webhook_id):
        ran.append(webhook_id)
        return webhook_pages.see_other(f"/dashboard/webhooks/{webhook_id}")

    monkeypatch.setitem(webhook_pages.ACTIONS, "ping", webhook_pages.Action("Send a ping", ping))
    register(dashboard, "https://hooks.example.com/fanout")
    with db.connection_context():
        webhook_id = Webhook.get().id
    page = dashboard.get(f"/dashboard/webhooks/{webhook_id}").text
    assert f'action="/dashboard/webhooks/{webhook_id}/actions/ping"' in page and ">Send a ping<" in page
    assert send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/ping").status_code == 303
    assert ran == [webhook_id]
    assert send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/nothing").status_code == 404


def webhook_id_of(url: str) -> str:
    with db.connection_context():
        return Webhook.get(Webhook.url == url).id


@pytest.fixture
def receiver(rt, resolver, httpserver):
    """A loopback endpoint; the local-development setting (FANOUT_INSECURE_URLS) lets the
    service reach it."""
    resolver.names["localhost"] = ["127.0.0.1"]
    rt.outbound = Outbound(resolve=rt.resolve, insecure=True, deadline=2.0)
    return httpserver


def edit(dashboard, webhook_id: str, url: str, events=("post.completed",), enabled: bool = True):
    form = {"url": url, "event": list(events)}
    if enabled:
        form["enabled"] = "on"
    return send(dashboard, f"/dashboard/webhooks/{webhook_id}/edit", form)


def test_the_edit_form_shows_what_the_registration_is(dashboard):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    page = dashboard.get(f"/dashboard/webhooks/{webhook_id}/edit").text
    assert 'value="https://hooks.example.com/fanout"' in page
    assert 'value="post.completed" checked' in page and 'value="post.failed" checked' in page
    assert 'value="account.expired" checked' not in page and 'name="enabled" id="webhook-enabled" checked' in page


def test_an_edit_changes_what_the_api_answers(dashboard, client, auth):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    done = edit(dashboard, webhook_id, "https://hooks.example.com/v2", events=("account.expired", "post.failed"))
    assert done.status_code == 303 and done.headers["location"] == f"/dashboard/webhooks/{webhook_id}?done=edited"
    hook = client.get(f"/v1/webhooks/{webhook_id}", headers=auth).json()
    assert (hook["url"], hook["events"], hook["enabled"]) == (
        "https://hooks.example.com/v2", ["post.failed", "account.expired"], True)
    assert "The registration was saved." in dashboard.get(done.headers["location"]).text


def test_disabling_shows_the_state_and_its_reason_and_enabling_clears_it(dashboard, client, auth):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    edit(dashboard, webhook_id, "https://hooks.example.com/fanout", enabled=False)
    assert client.get(f"/v1/webhooks/{webhook_id}", headers=auth).json()["disabled_reason"] == "disabled by request"
    page = dashboard.get(f"/dashboard/webhooks/{webhook_id}").text
    assert '<span class="badge disabled">disabled</span>' in page and "disabled by request" in page
    assert '<span class="badge disabled">disabled</span>' in dashboard.get("/dashboard/webhooks").text
    edit(dashboard, webhook_id, "https://hooks.example.com/fanout", enabled=True)
    hook = client.get(f"/v1/webhooks/{webhook_id}", headers=auth).json()
    assert (hook["enabled"], hook["disabled_reason"]) == (True, None)
    assert '<span class="badge enabled">enabled</span>' in dashboard.get(f"/dashboard/webhooks/{webhook_id}").text


@pytest.mark.parametrize("url, events", [
    ("https://internal.example.com/hook", ("post.completed",)),  # resolves to a private address
    ("https://hooks.example.com/fanout", ()),  # no event
])
def test_an_edit_the_api_refuses_is_refused_with_its_message_and_changes_nothing(dashboard, client, auth, url,
                                                                                   events):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    before = client.get(f"/v1/webhooks/{webhook_id}", headers=auth).json()
    page = edit(dashboard, webhook_id, url, events=events)
    body = {"events": list(events), "enabled": True}
    if url != before["url"]:
        body["url"] = url
    api = client.patch(f"/v1/webhooks/{webhook_id}", headers=auth, json=body)
    assert page.status_code == api.status_code == 400
    assert api.json()["error"]["message"][1:] in alert(page)
    assert f'value="{url}"' in page.text  # the form as it was sent, to correct
    assert client.get(f"/v1/webhooks/{webhook_id}", headers=auth).json() == before


@pytest.mark.parametrize("insecure_urls", [True])
def test_a_test_ping_shows_the_endpoints_status_and_how_long_it_took(dashboard, receiver):
    receiver.expect_request("/hook").respond_with_data("", status=204)
    register(dashboard, receiver.url_for("/hook"))
    webhook_id = webhook_id_of(receiver.url_for("/hook"))
    page = then(dashboard, send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/test"))
    assert page.status_code == 200
    [request] = [r for r, _ in receiver.log]
    assert '"event":"webhook.test"' in request.get_data(as_text=True)
    assert re.search(r"Test ping answered:</strong>\s*HTTP 204\s*in \d+ ms", page.text)
    assert request.headers["webhook-id"] in page.text  # the ping's event id


@pytest.mark.parametrize("insecure_urls", [True])
def test_a_test_ping_to_an_endpoint_that_does_not_answer_shows_the_readable_reason(dashboard, receiver):
    url = f"http://127.0.0.1:{free_port()}/nobody"
    register(dashboard, url)
    page = then(dashboard, send(dashboard, f"/dashboard/webhooks/{webhook_id_of(url)}/actions/test"))
    assert re.search(r"Test ping failed:</strong>\s*<code>could not connect to 127.0.0.1: connection refused</code>"
                     r"\s*in \d+ ms", page.text)


def test_rotation_asks_first_then_shows_the_new_secret_once_with_the_overlaps_end(dashboard, client, auth, rt):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    asked = dashboard.get(f"/dashboard/webhooks/{webhook_id}/actions/rotate-secret").text
    assert "<h1>Rotate the signing secret?</h1>" in asked and '<option value="86400" selected>' in asked
    page = then(dashboard, send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/rotate-secret",
                                {"expire_after_seconds": "3600"}))
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    secret = SECRET.search(page.text).group(1)
    with db.connection_context():
        assert rt.keyring.decrypt(Webhook.get_by_id(webhook_id).secret) == secret
    assert "also signs each delivery until" in page.text and '<time datetime="2026-11-22T11:00:00Z">' in page.text
    assert client.get(f"/v1/webhooks/{webhook_id}", headers=auth).json()["previous_secret_expires_at"] == (
        "2026-11-22T11:00:00.000Z")
    assert secret not in dashboard.get(f"/dashboard/webhooks/{webhook_id}").text


@pytest.mark.parametrize("insecure_urls", [True])
def test_a_test_ping_answers_303_to_the_registrations_page_and_a_reload_sends_no_other(dashboard, receiver):
    receiver.expect_request("/hook").respond_with_data("", status=204)
    register(dashboard, receiver.url_for("/hook"))
    webhook_id = webhook_id_of(receiver.url_for("/hook"))
    answer = send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/test")
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/dashboard/webhooks/{webhook_id}"
    assert "Test ping answered" in then(dashboard, answer).text
    reloaded = dashboard.get(f"/dashboard/webhooks/{webhook_id}")
    assert "Test ping" not in reloaded.text.replace("Send a test ping", "")  # shown once
    assert len(receiver.log) == 1


def test_a_rotation_answers_303_and_a_reload_neither_rotates_again_nor_shows_the_secret(dashboard, rt):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    answer = send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/rotate-secret", {"expire_after_seconds": "0"})
    assert answer.status_code == 303 and answer.headers["location"] == f"/dashboard/webhooks/{webhook_id}"
    assert "whsec_" not in answer.headers["location"] + answer.text
    with db.connection_context():
        rotated = Webhook.get_by_id(webhook_id).secret
    secret = SECRET.search(then(dashboard, answer).text).group(1)
    assert rt.keyring.decrypt(rotated) == secret
    reloaded = dashboard.get(f"/dashboard/webhooks/{webhook_id}").text
    assert secret not in reloaded and "Secret rotated" not in reloaded
    with db.connection_context():
        assert Webhook.get_by_id(webhook_id).secret == rotated


def test_an_actions_result_is_shown_to_its_own_session_only(dashboard, client, rt, workspace):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    answer = send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/rotate-secret", {"expire_after_seconds": "0"})
    flash = answer.cookies.get("fanout_flash")
    from .conftest import sign_in

    sign_in(client, rt, workspace.id)  # a new session of this browser, the flash carried over
    client.cookies.set("fanout_flash", flash, path=f"/dashboard/webhooks/{webhook_id}")
    assert "whsec_" not in client.get(f"/dashboard/webhooks/{webhook_id}").text


@pytest.mark.parametrize("overlap", ["604801", "-1", "soon"])
def test_rotation_refuses_an_overlap_the_api_refuses_and_keeps_the_secret(dashboard, client, auth, rt, overlap):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    with db.connection_context():
        secret = Webhook.get_by_id(webhook_id).secret
    page = send(dashboard, f"/dashboard/webhooks/{webhook_id}/actions/rotate-secret", {"expire_after_seconds": overlap})
    assert page.status_code == 400 and "<h1>This cannot be done</h1>" in page.text
    assert "expire_after_seconds" in page.text
    with db.connection_context():
        assert Webhook.get_by_id(webhook_id).secret == secret


def test_an_action_that_does_not_ask_first_has_no_page_of_its_own(dashboard):
    register(dashboard, "https://hooks.example.com/fanout")
    webhook_id = webhook_id_of("https://hooks.example.com/fanout")
    assert dashboard.get(f"/dashboard/webhooks/{webhook_id}/actions/test").status_code == 404
    assert dashboard.get(f"/dashboard/webhooks/{webhook_id}/actions/nothing").status_code == 404


@pytest.mark.parametrize("insecure_urls", [True])
def test_redelivering_from_a_deliverys_row_makes_one_more_attempt(dashboard, client, auth, receiver, rt, clock):
    receiver.expect_request("/hook").respond_with_data("nope", status=503)
    register(dashboard, receiver.url_for("/hook"))
    webhook_id = webhook_id_of(receiver.url_for("/hook"))
    connect_sandbox_account(client, auth, "x")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    [delivery] = client.get(f"/v1/webhooks/{webhook_id}/deliveries", headers=auth).json()["data"]
    page = dashboard.get(f"/dashboard/webhooks/{webhook_id}").text
    action = f"/dashboard/webhooks/{webhook_id}/deliveries/{delivery['id']}/redeliver"
    assert f'action="{action}"' in page
    done = send(dashboard, action)
    assert done.status_code == 303 and done.headers["location"] == f"/dashboard/webhooks/{webhook_id}?done=redelivery"
    run_queue(rt, clock)
    [after] = client.get(f"/v1/webhooks/{webhook_id}/deliveries", headers=auth).json()["data"]
    assert [(a["number"], a["redelivery"]) for a in after["attempts"]] == [(1, False), (2, True)]
    page = dashboard.get(done.headers["location"]).text
    assert "A redelivery was asked for" in page and "(redelivery)" in page


def test_the_events_page_shows_the_events_log_as_the_api_pages_it(dashboard, client, auth, rt, clock):
    connect_sandbox_account(client, auth, "x")
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(seconds=1)
    upload_post(client, auth, platforms=["x"], media=[], simulate_error="platform_rate_limited")
    run_queue(rt, clock)
    api = [e["id"] for e in client.get("/v1/events", headers=auth).json()["data"]]
    page = dashboard.get("/dashboard/events").text
    assert re.findall(r"<code>(evt_[0-9A-Z]+)</code>", page) == api and len(api) >= 3  # account.connected too
    assert page.index("<code>post.failed</code>") < page.index("<code>post.completed</code>")
    only = dashboard.get("/dashboard/events?type=post.completed").text
    assert "<code>post.completed</code>" in only and "<code>post.failed</code>" not in only


def test_the_events_page_pages_with_the_apis_cursor(dashboard, client, auth, rt, clock, monkeypatch):
    from fanout.dashboard import events as event_pages

    monkeypatch.setattr(event_pages, "PAGE_SIZE", 2)
    connect_sandbox_account(client, auth, "x")
    for _ in range(2):
        upload_post(client, auth, platforms=["x"], media=[])
        run_queue(rt, clock)
        clock.advance(seconds=1)
    api = [e["id"] for e in client.get("/v1/events", headers=auth).json()["data"]]
    first = dashboard.get("/dashboard/events").text
    assert re.findall(r"<code>(evt_[0-9A-Z]+)</code>", first) == api[:2]
    older = html.unescape(re.search(r'<a rel="next" href="([^"]+)"', first).group(1))
    second = dashboard.get(older).text
    assert re.findall(r"<code>(evt_[0-9A-Z]+)</code>", second) == api[2:4]


def test_a_disconnect_event_shows_the_account_as_disconnected_not_active(dashboard, client, auth):
    account = connect_sandbox_account(client, auth, "x")
    assert client.delete(f"/v1/accounts/{account['id']}", headers=auth).status_code == 204
    page = dashboard.get("/dashboard/events").text
    rows = {re.search(r"<code>(account\.[a-z]+)</code>", row).group(1): row
            for row in re.findall(r"<tr>.*?</tr>", page, re.S) if "<code>account." in row}
    assert '<span class="badge active">active</span>' in rows["account.connected"]
    assert '<span class="badge disconnected">disconnected</span>' in rows["account.disconnected"]
    assert "active" not in rows["account.disconnected"]
