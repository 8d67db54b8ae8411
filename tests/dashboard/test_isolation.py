"""What the dashboard refuses, on every page: a visitor without a session (303 to sign-in),
a form without the session's CSRF token (403, nothing done), and another workspace's ids
and cursors (404 and 400, as the API answers them, nothing done).

The pages are taken from the dashboard's own route list, so a page added later is held to
the same rules without a line here."""
from __future__ import annotations

import pytest

from fanout.dashboard import ROUTES
from fanout.models import Account, ApiKey, DashboardSession, Delivery, Event, Post, Webhook, db

from ..conftest import bearer, connect_sandbox_account, make_key, run_queue
from .conftest import csrf_of, sign_in

# Pages a visitor needs no session for: signing in, the stylesheet and script, the icon.
OPEN = {"/dashboard/sign-in", "/dashboard/static/{name}", "/favicon.ico"}
PROTECTED = [(path, method) for path, _, methods in ROUTES if path not in OPEN for method in methods]
# A path parameter's id prefix.
PREFIXES = {"/dashboard/keys/": "key", "/dashboard/accounts/": "acc", "/dashboard/posts/": "post",
            "/dashboard/webhooks/": "wh"}
# What the API's 404 calls each.
WHAT = {"key": "API key", "acc": "account", "post": "post", "wh": "webhook"}


def prefix_of(path: str) -> str:
    return next(prefix for start, prefix in PREFIXES.items() if path.startswith(start))


def filled(path: str, ids: dict[str, str]) -> str:
    """`path` with its {id} naming the resource of `ids` its section is about."""
    if "{id}" in path:
        path = path.replace("{id}", ids[prefix_of(path)])
    # An action that asks first, so its GET page exists too; a delivery of theirs, if any.
    return path.replace("{action}", "rotate-secret").replace("{delivery_id}", ids.get("dlv", "dlv_" + "0" * 26))


@pytest.fixture
def others(client, rt, clock, other_workspace) -> dict[str, str]:
    """Another workspace with one of everything: its ids by prefix, and its key's headers."""
    key = make_key(rt, other_workspace.id, "sandbox")
    headers = bearer(key)
    account = connect_sandbox_account(client, headers, "x")
    client.post("/v1/upload", headers=headers, json={"caption": "theirs", "platforms": ["x"]})
    hook = client.post("/v1/webhooks", headers=headers,
                       json={"url": "https://hooks.example.com/theirs", "events": ["account.expired"]}).json()
    rt.lane = type("Held", (), {"submit": lambda self, delivery_id: None})()  # their deliveries wait, unsent
    hooked = client.post("/v1/webhooks", headers=headers,
                         json={"url": "https://hooks.example.com/theirs", "events": ["post.completed"]}).json()
    upload = client.post("/v1/upload", headers=headers, json={"caption": "theirs too", "platforms": ["x"]}).json()
    run_queue(rt, clock)  # their posts published, their events and a delivery made
    with db.connection_context():
        key_id = ApiKey.get(ApiKey.workspace == other_workspace.id).id
        delivery_id = Delivery.get(Delivery.webhook == hooked["id"]).id
    # Their post still pending, so its cancel is refused for being theirs, not for being published.
    pending = client.post("/v1/upload", headers=headers,
                          json={"caption": "theirs later", "platforms": ["x"],
                                "scheduled_at": "2026-11-23T10:00:00Z"}).json()
    assert upload["id"] and pending["status"] == "pending", pending
    return {"key": key_id, "acc": account["id"], "post": pending["id"], "wh": hook["id"], "dlv": delivery_id,
            "headers": headers}


def counts() -> dict[str, int]:
    """How many rows of what a form could make or end."""
    with db.connection_context():
        return {
            "keys": ApiKey.select().count(), "active keys": ApiKey.select().where(ApiKey.revoked_at.is_null()).count(),
            "accounts": Account.select().count(), "posts": Post.select().count(), "webhooks": Webhook.select().count(),
            "sessions": DashboardSession.select().count(), "events": Event.select().count(),
            "deliveries": Delivery.select().count(),
        }


def test_the_route_list_covers_every_section_of_the_navigation():
    paths = {path for path, _ in PROTECTED}
    assert {"/dashboard", "/dashboard/posts", "/dashboard/accounts", "/dashboard/keys", "/dashboard/webhooks",
            "/dashboard/events"} <= paths
    assert all("{id}" not in path or any(path.startswith(start) for start in PREFIXES) for path in paths)


@pytest.mark.parametrize("path, method", PROTECTED)
def test_every_page_answers_303_to_sign_in_without_a_session(client, path, method, others):
    before = counts()
    answer = client.request(method, filled(path, others), data={"csrf": "0" * 64} if method == "POST" else None,
                            follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard/sign-in"
    assert counts() == before


@pytest.mark.parametrize("path, method", PROTECTED)
def test_every_page_answers_303_to_sign_in_for_a_cookie_that_names_no_session(client, path, method, others):
    client.cookies.set("fanout_dashboard", "A" * 43, path="/dashboard")
    answer = client.request(method, filled(path, others), follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard/sign-in"


POSTS = [(path, method) for path, method in PROTECTED if method == "POST"]


@pytest.mark.parametrize("csrf", [None, "", "0" * 64, "not a token"], ids=["missing", "empty", "wrong", "garbage"])
@pytest.mark.parametrize("path, method", POSTS)
def test_every_form_without_the_sessions_csrf_token_is_refused_and_changes_nothing(
        dashboard, path, method, csrf, others, workspace):
    mine = {"key": make_key_id(dashboard, workspace), "acc": connect_sandbox_account_by_dashboard(dashboard),
            "post": "post_00000000000000000000000000", "wh": "wh_00000000000000000000000000"}
    before = counts()
    form = {"name": "k", "mode": "sandbox", "platform": "x", "caption": "hi", "account_id": mine["acc"],
            "url": "https://hooks.example.com/x", "event": "post.completed"}
    if csrf is not None:
        form["csrf"] = csrf
    answer = dashboard.post(filled(path, mine), data=form, follow_redirects=False)
    assert answer.status_code == 403, answer.text
    assert "This form has expired" in answer.text and "nothing was done" in answer.text
    assert counts() == before


@pytest.mark.parametrize("headers", [{"Origin": "https://elsewhere.example"}, {"Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "null", "Sec-Fetch-Site": "same-site"}],
                         ids=["origin", "cross-site", "same-site"])
@pytest.mark.parametrize("path, method", POSTS)
def test_every_form_sent_from_elsewhere_is_refused_with_its_csrf_token_and_changes_nothing(
        dashboard, path, method, headers, workspace):
    from .conftest import csrf_of

    mine = {"key": make_key_id(dashboard, workspace), "acc": connect_sandbox_account_by_dashboard(dashboard),
            "post": "post_00000000000000000000000000", "wh": "wh_00000000000000000000000000"}
    before = counts()
    form = {"csrf": csrf_of(dashboard), "name": "k", "mode": "sandbox", "platform": "x", "caption": "hi",
            "account_id": mine["acc"], "url": "https://hooks.example.com/x", "event": "post.completed"}
    answer = dashboard.post(filled(path, mine), data=form, headers=headers, follow_redirects=False)
    assert answer.status_code == 403, answer.text
    assert "<h1>Not sent from the dashboard</h1>" in answer.text and "Nothing was done" in answer.text
    assert counts() == before


def make_key_id(dashboard, workspace) -> str:
    """A key of the signed-in workspace, made through the dashboard's own form."""
    from .conftest import send

    assert send(dashboard, "/dashboard/keys", {"mode": "sandbox"}).status_code == 201
    with db.connection_context():
        return ApiKey.select().where(ApiKey.workspace == workspace.id).order_by(ApiKey.created_at.desc()).first().id


def connect_sandbox_account_by_dashboard(dashboard) -> str:
    from urllib.parse import parse_qs, urlsplit

    from .conftest import send

    started = send(dashboard, "/dashboard/accounts/connect", {"platform": "x", "mode": "sandbox"})
    landed = dashboard.get(started.headers["location"].removeprefix("http://connect.testserver"), follow_redirects=False)
    return parse_qs(urlsplit(landed.headers["location"]).query)["account_id"][0]


ID_PAGES = [(path, method) for path, method in PROTECTED if "{id}" in path]


@pytest.mark.parametrize("path, method", ID_PAGES)
def test_another_workspaces_ids_are_not_found_on_every_page_and_nothing_changes(
        dashboard, path, method, others, rt, clock):
    run_queue(rt, clock)  # their post published, its event and delivery made
    before = counts()
    data = {"csrf": csrf_of(dashboard)} if method == "POST" else None
    answer = dashboard.request(method, filled(path, others), data=data, follow_redirects=False)
    assert answer.status_code == 404, answer.text
    assert "<h1>Not found</h1>" in answer.text
    assert f"no such {WHAT[prefix_of(path)]} in this workspace" in answer.text
    assert counts() == before
    for kind in ("key", "acc", "post", "wh", "dlv"):
        assert others[kind] not in answer.text


def test_another_workspaces_delivery_under_this_workspaces_registration_is_not_redelivered(dashboard, others):
    mine = dashboard_webhook(dashboard)
    before = counts()
    answer = dashboard.post(f"/dashboard/webhooks/{mine}/deliveries/{others['dlv']}/redeliver",
                            data={"csrf": csrf_of(dashboard)}, follow_redirects=False)
    assert answer.status_code == 404 and "no such delivery of this webhook" in answer.text
    assert counts() == before
    with db.connection_context():
        assert Delivery.get_by_id(others["dlv"]).redeliver_at is None


@pytest.mark.parametrize("path", ["/dashboard/posts", "/dashboard/events", "/dashboard/webhooks/{id}"])
def test_another_workspaces_cursor_is_refused_as_the_api_refuses_it(dashboard, client, path, others, rt, clock,
                                                                     workspace):
    # Their cursor, from their list: a page of one post after two.
    client.post("/v1/upload", headers=others["headers"], json={"caption": "again", "platforms": ["x"]})
    cursor = client.get("/v1/posts?limit=1", headers=others["headers"]).json()["next_cursor"]
    if "{id}" in path:
        mine = dashboard_webhook(dashboard)
        path = path.replace("{id}", mine)
    answer = dashboard.get(path, params={"cursor": cursor})
    assert answer.status_code == 400
    api = client.get("/v1/posts", params={"cursor": cursor}, headers=bearer(make_key(rt, workspace.id, "sandbox")))
    assert api.status_code == 400 and api.json()["error"]["message"][1:] in answer.text


def dashboard_webhook(dashboard) -> str:
    from .conftest import send

    assert send(dashboard, "/dashboard/webhooks", {"url": "https://hooks.example.com/mine",
                                                   "event": "post.completed"}).status_code == 201
    with db.connection_context():
        return Webhook.get(Webhook.url == "https://hooks.example.com/mine").id


def test_a_session_of_one_workspace_lists_nothing_of_another(dashboard, others, rt, clock):
    run_queue(rt, clock)
    for page in ("/dashboard", "/dashboard/posts", "/dashboard/accounts", "/dashboard/keys", "/dashboard/webhooks",
                 "/dashboard/events"):
        text = dashboard.get(page).text
        assert "theirs" not in text and "sandbox_x_1" not in text and "Other" not in text, page
        for kind in ("key", "acc", "post", "wh"):
            assert others[kind] not in text, (page, kind)


def test_signing_in_to_one_workspace_reaches_that_ones_pages_only(client, rt, others, other_workspace):
    sign_in(client, rt, other_workspace.id)
    assert client.get(f"/dashboard/posts/{others['post']}").status_code == 200


def test_a_page_that_fails_unexpectedly_says_so_with_the_request_id_and_logs_it(dashboard, monkeypatch, caplog):
    from fanout.dashboard import overview

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(overview, "list_posts", broken)
    page = dashboard.get("/dashboard")
    request_id = page.headers["x-request-id"]
    assert page.status_code == 500 and "<h1>Something went wrong</h1>" in page.text
    assert f"quote request id {request_id}" in page.text and "a bug" not in page.text
    assert any(request_id in r.getMessage() and r.exc_info for r in caplog.records)
