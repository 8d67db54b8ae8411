"""The Webhooks pages: register (the secret shown once) under the API's rules, a
registration's deliveries with every attempt, delete (confirmed), and the Events page."""
from __future__ import annotations

import re

import pytest

from fanout.dashboard import webhooks as webhook_pages
from fanout.models import Webhook, db

from ..conftest import connect_sandbox_account, run_queue, upload_post
from .conftest import alert, send

SECRET = re.compile(r'id="new-secret" value="(whsec_[^"]+)"')


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


def test_the_events_page_lists_events_newest_first_with_their_deliveries(dashboard, client, auth, rt, clock):
    register(dashboard, "https://hooks.example.com/fanout", events=("post.failed",))
    connect_sandbox_account(client, auth, "x")
    rt.lane = type("Held", (), {"submit": lambda self, delivery_id: None})()  # deliveries wait
    upload_post(client, auth, platforms=["x"], media=[])
    run_queue(rt, clock)
    clock.advance(seconds=1)
    upload_post(client, auth, platforms=["x"], media=[], simulate_error="platform_rate_limited")
    run_queue(rt, clock)
    page = dashboard.get("/dashboard/events").text
    assert page.index("<code>post.failed</code>") < page.index("<code>post.completed</code>")
    assert "https://hooks.example.com/fanout" in page  # post.failed's delivery
    only = dashboard.get("/dashboard/events?type=post.completed").text
    assert "<code>post.completed</code>" in only and "<code>post.failed</code>" not in only
