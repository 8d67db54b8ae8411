"""The dashboard as a person uses it, in a real browser (the `page` fixture: Debian's
Chromium, loopback only): the whole round from a fresh sign-in link to signing out, the
refusals, what every page offers a keyboard and a screen reader, and screenshots of every
page at 1280 and 375 px wide.

The screenshots go to the test's temporary folder (`screenshots/`), or to the folder
DASHBOARD_SCREENSHOTS names; neither is in the repository."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import requests

from fanout.models import db
from fanout.models.workspace import create_workspace

from ..conftest import bearer, make_key, run_queue
from ..test_pages_in_a_browser import photo
from .conftest import make_link
from .served import live, port, settings  # noqa: F401 (fixtures)

EXPECT_MS = 10_000


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the test's webhook receiver is on loopback, over http


@pytest.fixture
def studio(rt):
    """A new workspace on the FREE plan (one API key at most), with nothing in it yet."""
    with db.connection_context():
        return create_workspace(rt, "Studio", "FREE")


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def go(page, name: str) -> None:
    """Follow a link of the dashboard's navigation."""
    page.get_by_role("navigation", name="Dashboard").get_by_role("link", name=name, exact=True).click()
    expect(page.locator("h1")).to_have_count(1)


def test_a_person_runs_a_workspace_from_the_dashboard(page, live, rt, clock, studio, httpserver, resolver):
    resolver.names["localhost"] = ["127.0.0.1"]
    httpserver.expect_request("/fanout").respond_with_data("", status=204)

    # Signs in with a fresh link
    page.goto(live + make_link(rt, studio.id))
    expect(page.locator("h1")).to_have_text("Sign in to Studio")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator(".workspace")).to_contain_text("Studio · FREE plan")

    # Creates a sandbox key, shown once, and is refused a second by the FREE plan's cap
    go(page, "Keys")
    page.get_by_label("Name").fill("laptop")
    page.get_by_label("Sandbox").check()
    page.get_by_role("button", name="Create key").click()
    key = page.get_by_label("API key").input_value()
    assert key.startswith("svc_sandbox_")
    expect(page.get_by_role("button", name="Copy")).to_be_visible()
    assert requests.get(f"{live}/v1/accounts", headers=bearer(key), timeout=10).status_code == 200
    page.get_by_label("Name").fill("second")
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "the FREE plan allows 1 active API key; revoke one or upgrade the plan")

    # Connects a sandbox X account, and comes back to the page
    go(page, "Accounts")
    page.get_by_role("button", name="Connect X (sandbox)").click()
    expect(page.get_by_role("status")).to_have_text("X account sandbox_x_1 is connected.")
    expect(page.get_by_role("cell", name="sandbox_x_1", exact=True)).to_be_visible()

    # Creates a post to it, and watches it become published with its permalink
    go(page, "Posts")
    page.get_by_role("link", name="New post").click()
    page.get_by_label("Caption").fill("Hello from the dashboard")
    page.get_by_label("X · sandbox_x_1").check()
    page.get_by_role("button", name="Create post").click()
    expect(page.get_by_role("status")).to_contain_text("The post was created.")
    expect(page.locator("#post-state .badge").first).to_have_text("pending")
    run_queue(rt, clock)  # the worker publishes; the page follows it without a reload
    expect(page.locator("#post-state .badge").first).to_have_text("completed", timeout=EXPECT_MS)
    permalink = page.get_by_role("link", name=re.compile(r"sandbox.x.tgt_"))
    expect(permalink).to_be_visible()
    permalink.click()
    expect(page.locator("h1")).to_have_text("Sandbox X post")
    expect(page.locator("blockquote")).to_have_text("Hello from the dashboard")
    page.go_back()

    # Registers a webhook (its secret shown once) and sees its delivery
    go(page, "Webhooks")
    receiver = httpserver.url_for("/fanout")
    page.get_by_label("URL").fill(receiver)
    page.get_by_role("button", name="Register").click()
    assert page.get_by_label("Signing secret").input_value().startswith("whsec_")
    requests.post(f"{live}/v1/upload", headers=bearer(key), timeout=10,
                  json={"caption": "Second", "platforms": ["x"]}).raise_for_status()
    run_queue(rt, clock)
    page.get_by_role("link", name="See its deliveries").click()
    expect(page.locator("h1")).to_have_text("Webhook")
    expect(page.get_by_role("cell", name="succeeded", exact=True)).to_be_visible()
    expect(page.locator(".attempts li")).to_contain_text("HTTP 204")

    # Sends it a test ping and sees what the endpoint answered; rotates its secret
    page.get_by_role("button", name="Send a test ping").click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Test ping answered: HTTP 204 in \d+ ms"))
    first_secret = rt.keyring.decrypt(webhook_row(receiver).secret)
    page.get_by_role("link", name="Rotate the secret").click()
    expect(page.locator("h1")).to_have_text("Rotate the signing secret?")
    page.get_by_label("The current secret still signs").select_option(label="1 hour")
    page.get_by_role("button", name="Rotate the secret").click()
    new_secret = page.get_by_label("Signing secret").input_value()
    assert new_secret.startswith("whsec_") and new_secret != first_secret
    assert rt.keyring.decrypt(webhook_row(receiver).secret) == new_secret
    expect(page.locator("#new-secret-heading + .field + p")).to_contain_text("also signs each delivery until")

    # Sees the post's events in the events log, as GET /v1/events lists them
    go(page, "Events")
    logged = requests.get(f"{live}/v1/events", headers=bearer(key), timeout=10).json()["data"]
    for event in logged:
        expect(page.get_by_role("cell", name=event["id"], exact=True)).to_be_visible()
    expect(page.get_by_role("cell", name="post.completed", exact=True)).to_have_count(2)
    page.get_by_label("Event", exact=True).select_option("post.completed")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("cell", name="account.connected", exact=True)).to_have_count(0)
    expect(page.get_by_role("cell", name="post.completed", exact=True)).to_have_count(2)

    # Revokes the key, after confirming
    go(page, "Keys")
    page.get_by_role("link", name="Revoke laptop").click()
    expect(page.locator("h1")).to_have_text("Revoke this key?")
    page.get_by_role("button", name="Revoke the key").click()
    expect(page.get_by_role("status")).to_contain_text("The key was revoked")
    assert requests.get(f"{live}/v1/accounts", headers=bearer(key), timeout=10).status_code == 401

    # Signs out: the dashboard sends the browser to sign in again
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("status")).to_have_text("You are signed out.")
    page.goto(f"{live}/dashboard/keys")
    expect(page.locator("h1")).to_have_text("Sign in to the dashboard")


def webhook_row(url: str):
    from fanout.models import Webhook

    with db.connection_context():
        return Webhook.get(Webhook.url == url)


def test_used_and_expired_links_a_form_without_its_token_and_another_workspaces_ids_are_refused(
        page, live, rt, clock, studio):
    # A used link
    link = live + make_link(rt, studio.id)
    page.goto(link)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("h1")).to_have_text("Overview")
    answer = page.goto(link)
    assert answer.status == 410
    expect(page.locator("h1")).to_have_text("This sign-in link was already used")

    # An expired one
    late = live + make_link(rt, studio.id)
    clock.advance(minutes=15)
    assert page.goto(late).status == 410
    expect(page.locator("h1")).to_have_text("This sign-in link has expired")

    # A form whose CSRF token is gone: nothing is done
    page.goto(f"{live}/dashboard/keys")
    page.get_by_label("Name").fill("forged")
    page.locator("form[action='/dashboard/keys'] input[name=csrf]").evaluate("input => input.remove()")
    page.get_by_role("button", name="Create key").click()
    expect(page.locator("h1")).to_have_text("This form has expired")
    page.goto(f"{live}/dashboard/keys")
    expect(page.get_by_text("forged")).to_have_count(0)

    # The same for a webhook's action: no ping is sent, no secret rotated
    mine = requests.post(f"{live}/v1/webhooks", headers=bearer(make_key(rt, studio.id, "sandbox")), timeout=10,
                         json={"url": "https://hooks.example.com/mine", "events": ["post.completed"]}).json()
    page.goto(f"{live}/dashboard/webhooks/{mine['id']}")
    page.locator("form[action$='/actions/test'] input[name=csrf]").evaluate("input => input.remove()")
    page.get_by_role("button", name="Send a test ping").click()
    expect(page.locator("h1")).to_have_text("This form has expired")
    page.goto(f"{live}/dashboard/webhooks/{mine['id']}/actions/rotate-secret")
    page.locator("form input[name=csrf]").last.evaluate("input => input.remove()")
    page.get_by_role("button", name="Rotate the secret").click()
    expect(page.locator("h1")).to_have_text("This form has expired")
    assert webhook_row("https://hooks.example.com/mine").previous_secret is None

    # Another workspace's post, account, key and webhook
    with db.connection_context():
        other = create_workspace(rt, "Other", "PRO")
    headers = bearer(make_key(rt, other.id, "sandbox"))
    connect = requests.post(f"{live}/v1/accounts/x/connect", headers=headers, json={}, timeout=10).json()["url"]
    requests.get(connect, timeout=10, allow_redirects=False)
    account = requests.get(f"{live}/v1/accounts", headers=headers, timeout=10).json()["data"][0]["id"]
    post = requests.post(f"{live}/v1/upload", headers=headers, json={"caption": "theirs", "platforms": ["x"]},
                         timeout=10).json()["id"]
    hook = requests.post(f"{live}/v1/webhooks", headers=headers, timeout=10,
                         json={"url": "https://hooks.example.com/theirs", "events": ["account.expired"]}).json()["id"]
    with db.connection_context():
        from fanout.models import ApiKey

        key = ApiKey.get(ApiKey.workspace == other.id).id
    for path in (f"/dashboard/posts/{post}", f"/dashboard/posts/{post}/cancel", f"/dashboard/accounts/{account}/disconnect",
                 f"/dashboard/keys/{key}/revoke", f"/dashboard/webhooks/{hook}", f"/dashboard/webhooks/{hook}/edit",
                 f"/dashboard/webhooks/{hook}/actions/rotate-secret", f"/dashboard/webhooks/{hook}/delete",
                 f"/dashboard/events?post_id={post}"):
        answer = page.goto(live + path)
        if path.startswith("/dashboard/events"):  # a filter, not a page of theirs: it finds nothing
            assert answer.status == 200
            expect(page.get_by_text("No events yet")).to_be_visible()
            continue
        assert answer.status == 404, path
        expect(page.locator("h1")).to_have_text("Not found")
    # Their webhook's actions, posted with this session's own token: not found, nothing done
    page.goto(f"{live}/dashboard/webhooks/{mine['id']}")
    for action in (f"/dashboard/webhooks/{hook}/actions/test", f"/dashboard/webhooks/{hook}/actions/rotate-secret",
                   f"/dashboard/posts/{post}/cancel"):
        page.locator("form[action$='/actions/test']").evaluate("(form, to) => form.action = to", action)
        page.get_by_role("button", name="Send a test ping").click()
        expect(page.locator("h1")).to_have_text("Not found")
        page.go_back()
    assert webhook_row("https://hooks.example.com/theirs").previous_secret is None
    assert requests.get(f"{live}/v1/posts/{post}", headers=headers, timeout=10).status_code == 200


PAGES = [
    # (file name, path, what the page's one h1 says)
    ("overview", "/dashboard", "Overview"),
    ("posts", "/dashboard/posts", "Posts"),
    ("post", "{post}", "Post"),
    ("post-failed", "{failed}", "Post"),
    ("post-scheduled", "{scheduled}", "Post"),
    ("post-cancel", "{scheduled}/cancel", "Cancel this post?"),
    ("post-new", "/dashboard/posts/new", "New post"),
    ("accounts", "/dashboard/accounts", "Accounts"),
    ("account-disconnect", "/dashboard/accounts/{account}/disconnect", "Disconnect this account?"),
    ("keys", "/dashboard/keys", "API keys"),
    ("key-revoke", "/dashboard/keys/{key}/revoke", "Revoke this key?"),
    ("webhooks", "/dashboard/webhooks", "Webhooks"),
    ("webhook", "/dashboard/webhooks/{webhook}", "Webhook"),
    ("webhook-edit", "/dashboard/webhooks/{webhook}/edit", "Edit the webhook"),
    ("webhook-rotate", "/dashboard/webhooks/{webhook}/actions/rotate-secret", "Rotate the signing secret?"),
    ("webhook-delete", "/dashboard/webhooks/{webhook}/delete", "Delete this webhook?"),
    ("events", "/dashboard/events", "Events"),
    ("not-found", "/dashboard/posts/post_00000000000000000000000000", "Not found"),
]
WIDTHS = (1280, 375)


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("DASHBOARD_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def busy(live, rt, clock, studio, httpserver, resolver):
    """The studio with one of everything: accounts, posts published and failed, a key, a
    webhook with deliveries, events; the ids the pages need."""
    resolver.names["localhost"] = ["127.0.0.1"]
    httpserver.expect_request("/fanout").respond_with_data("", status=204)
    key = make_key(rt, studio.id, "sandbox")
    headers = bearer(key)
    for platform in ("x", "threads"):
        url = requests.post(f"{live}/v1/accounts/{platform}/connect", headers=headers, json={}, timeout=10).json()["url"]
        requests.get(url, timeout=10, allow_redirects=False)
    hook = requests.post(f"{live}/v1/webhooks", headers=headers, timeout=10, json={
        "url": httpserver.url_for("/fanout"), "events": ["post.completed", "post.failed"]}).json()["id"]
    posts = []
    for caption, body in (
        ("Launch day: the new collection is live, with free shipping all week.", {"platforms": ["x", "threads"]}),
        ("A post that fails on purpose", {"platforms": ["x"], "simulate_error": "platform_rate_limited"}),
        ("Behind the scenes of the shoot", {"platforms": ["threads"], "media": [
            {"url": "https://cdn.example.com/shoot.jpg", "type": "image"}]}),
    ):
        answer = requests.post(f"{live}/v1/upload", headers=headers, json={"caption": caption, **body}, timeout=10)
        posts.append(answer.json()["id"])
        clock.advance(minutes=7)
    run_queue(rt, clock)
    requests.post(f"{live}/v1/upload", headers=headers, json={"caption": "Still to come", "platforms": ["x"]},
                  timeout=10)
    scheduled = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "Tomorrow morning's announcement", "platforms": ["x", "threads"],
        "scheduled_at": "2026-11-23T09:00:00Z"}).json()["id"]
    accounts = requests.get(f"{live}/v1/accounts", headers=headers, timeout=10).json()["data"]
    with db.connection_context():
        from fanout.models import ApiKey

        key_id = ApiKey.get(ApiKey.workspace == studio.id).id
    return {"post": f"/dashboard/posts/{posts[0]}", "failed": f"/dashboard/posts/{posts[1]}",
            "with_media": f"/dashboard/posts/{posts[2]}", "scheduled": f"/dashboard/posts/{scheduled}",
            "account": accounts[0]["id"], "key": key_id, "webhook": hook}


def shoot(page, folder: Path, name: str) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=folder / f"{name}-{width}.png", full_page=True)


def unlabelled_controls(page) -> list[str]:
    """The visible form controls of the page without an accessible name."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('input, select, textarea, button'))
        .filter(c => c.type !== 'hidden' && !c.hidden)
        .filter(c => !(c.labels && c.labels.length) && !c.getAttribute('aria-label')
                     && !(c.tagName === 'BUTTON' && c.textContent.trim()))
        .map(c => c.outerHTML)""")


def test_every_page_has_one_heading_labelled_controls_and_fits_375_px(page, live, rt, studio, busy, shots):
    page.goto(f"{live}/dashboard/sign-in")
    shoot(page, shots, "sign-in")
    page.goto(live + make_link(rt, studio.id))
    shoot(page, shots, "sign-in-confirm")
    page.get_by_role("button", name="Sign in").click()
    for name, path, heading in PAGES:
        answer = page.goto(live + path.format(**busy))
        assert answer.status in (200, 404), (path, answer.status)
        expect(page.locator("h1")).to_have_count(1)
        expect(page.locator("h1")).to_have_text(heading)
        assert unlabelled_controls(page) == [], (path, unlabelled_controls(page))
        assert page.locator("[tabindex]:not([tabindex='-1']):not([tabindex='0'])").count() == 0
        page.set_viewport_size({"width": 375, "height": 900})
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{path} is wider than 375 px by {overflow} px"
        page.set_viewport_size({"width": 1280, "height": 900})
        shoot(page, shots, name)
    # What a form answers: a secret shown once, a refusal.
    page.goto(f"{live}/dashboard/webhooks")
    page.get_by_label("URL").fill("http://127.0.0.1:9/second")
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_label("Signing secret")).to_be_visible()
    shoot(page, shots, "webhooks-created")
    page.goto(live + f"/dashboard/webhooks/{busy['webhook']}")
    page.get_by_role("button", name="Send a test ping").click()
    expect(page.get_by_role("status")).to_contain_text("Test ping answered")
    shoot(page, shots, "webhook-pinged")
    page.goto(live + f"/dashboard/webhooks/{busy['webhook']}/actions/rotate-secret")
    page.get_by_role("button", name="Rotate the secret").click()
    expect(page.get_by_label("Signing secret")).to_be_visible()
    shoot(page, shots, "webhook-rotated")
    page.goto(live + f"/dashboard/webhooks/{busy['webhook']}/edit")
    for chosen in page.locator("input[name=event]").all():
        chosen.uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("validation_error")
    shoot(page, shots, "webhook-edit-refused")
    page.goto(f"{live}/dashboard/keys")
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("alert")).to_contain_text("plan_limit_exceeded")
    shoot(page, shots, "keys-refused")
    # The pages around the dashboard share its look.
    for name, path in (("connect-done", "/connect/done?platform=x&status=connected"),
                       ("connect-refused", "/connect/done?platform=threads&error=access_denied")):
        page.goto(live + path)
        expect(page.locator("h1")).to_have_count(1)
        shoot(page, shots, name)
    page.route("https://cdn.example.com/**", lambda route: route.fulfill(
        status=200, content_type="image/jpeg", body=photo(1080, 720)))
    page.goto(live + busy["with_media"])
    permalink = page.get_by_role("link", name=re.compile(r"sandbox.threads.tgt_")).get_attribute("href")
    page.goto(permalink)
    expect(page.locator("h1")).to_have_text("Sandbox Threads post")
    page.wait_for_function("document.querySelector('img').complete")
    shoot(page, shots, "sandbox-post")
    assert len(list(shots.glob("*.png"))) == 2 * (len(PAGES) + 10)


def test_a_key_is_made_with_the_keyboard_alone(page, live, rt, studio):
    page.goto(live + make_link(rt, studio.id))
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to content")
    page.get_by_role("button", name="Sign in").focus()
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("Overview")
    page.goto(f"{live}/dashboard/keys")
    page.get_by_label("Name").focus()
    page.keyboard.type("typed")
    page.keyboard.press("Tab")  # to the mode: sandbox is chosen
    expect(page.locator(":focus")).to_have_attribute("value", "sandbox")
    page.keyboard.press("ArrowRight")  # live
    page.keyboard.press("Enter")  # sends the form
    expect(page.get_by_label("API key")).to_have_value(re.compile(r"^svc_live_"))
