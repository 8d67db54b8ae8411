"""Only the dashboard's own pages may send its forms (fanout/dashboard/origin.py): a page of
another site, or of another origin of the same site, is refused with 403 even when it
carries a sign-in link or a valid CSRF token; and sign-in attempts are limited per client
address (fanout/dashboard/signin.py)."""
from __future__ import annotations

import html

import pytest

from fanout.models import ApiKey, DashboardSession, db

from ..conftest import free_port
from ..test_pages_in_a_browser import keep
from .conftest import CSRF, make_link, token_of
from .served import live, port, settings  # noqa: F401 (fixtures)


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def attack(page, at: str, action: str, fields: dict) -> None:
    """Open a page at `at` (answered by the test, nothing is served there) that posts
    `fields` to `action` as soon as it loads, as a hostile page would."""
    inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                     for k, v in fields.items())
    body = f'<form method="post" action="{action}">{inputs}</form><script>document.forms[0].submit()</script>'
    page.route(at, lambda route: route.fulfill(status=200, content_type="text/html", body=body))
    page.goto(at)


def test_a_page_of_another_site_cannot_sign_a_visitor_in_to_its_authors_workspace(page, live, rt, workspace):
    # The author's own link, which the author can always get
    token = token_of(make_link(rt, workspace.id))
    attack(page, "http://attacker.test/", f"{live}/dashboard/sign-in", {"token": token})
    expect(page.locator("h1")).to_have_text("Not sent from the dashboard")
    keep(page, "cross-site-sign-in.png")
    assert not [c for c in page.context.cookies() if c["name"] == "fanout_dashboard"]
    with db.connection_context():
        assert DashboardSession.select().count() == 0


def test_a_page_of_another_origin_cannot_send_a_dashboard_form_even_with_its_csrf_token(page, live, rt, workspace,
                                                                                        port):
    page.goto(live + make_link(rt, workspace.id))
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("h1")).to_have_text("Overview")
    page.goto(f"{live}/dashboard/keys")
    csrf = CSRF.search(page.content()).group(1)
    # Another port of the same host is the same site: the session's Lax cookie goes along
    attack(page, f"http://127.0.0.1:{free_port()}/", f"{live}/dashboard/keys",
           {"csrf": csrf, "name": "forged", "mode": "sandbox"})
    expect(page.locator("h1")).to_have_text("Not sent from the dashboard")
    with db.connection_context():
        assert ApiKey.select().where(ApiKey.workspace == workspace.id).count() == 0


def test_the_dashboards_own_forms_are_accepted_in_a_browser(page, live, rt, workspace):
    page.goto(live + make_link(rt, workspace.id))
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("h1")).to_have_text("Overview")
    page.goto(f"{live}/dashboard/keys")
    page.get_by_label("Name").fill("mine")
    page.get_by_role("button", name="Create key").click()
    with db.connection_context():
        assert ApiKey.select().where(ApiKey.workspace == workspace.id, ApiKey.name == "mine").count() == 1


@pytest.mark.parametrize("headers", [
    {"Origin": "https://elsewhere.example"},
    {"Origin": "http://testserver.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
])
def test_a_sign_in_from_elsewhere_is_refused_before_its_link_is_spent(client, rt, workspace, headers):
    answer = client.post("/dashboard/sign-in", data={"token": token_of(make_link(rt, workspace.id))},
                         headers=headers, follow_redirects=False)
    assert answer.status_code == 403, answer.text
    assert "<h1>Not sent from the dashboard</h1>" in answer.text and "set-cookie" not in answer.headers


@pytest.mark.parametrize("headers", [
    {},
    {"Origin": "http://testserver"},
    {"Origin": "null", "Sec-Fetch-Site": "same-origin"},
    {"Sec-Fetch-Site": "none"},
])
def test_a_sign_in_from_the_dashboards_own_origin_is_accepted(client, rt, workspace, headers):
    answer = client.post("/dashboard/sign-in", data={"token": token_of(make_link(rt, workspace.id))},
                         headers=headers, follow_redirects=False)
    assert answer.status_code == 303, answer.text


def test_a_client_address_gets_20_sign_in_attempts_a_minute(app, rt, workspace, clock):
    with app.test_client(client=("203.0.113.7", 40000)) as guesser:
        answers = [guesser.post("/dashboard/sign-in", data={"token": f"guess{n}"}, follow_redirects=False)
                   for n in range(200)]
        statuses = [a.status_code for a in answers]
        assert statuses[:20] == [404] * 20 and set(statuses[20:]) == {429}
        refused = answers[20]
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert "<h1>Too many sign-in attempts</h1>" in refused.text
        # Opening a link counts too, and its link is not looked at
        assert guesser.get(make_link(rt, workspace.id)).status_code == 429

        clock.advance(seconds=int(refused.headers["retry-after"]))
        assert guesser.post("/dashboard/sign-in", data={"token": "again"}, follow_redirects=False).status_code == 404


def test_a_correct_link_from_another_address_signs_in_at_once_while_one_is_refused(app, rt, workspace):
    with app.test_client(client=("203.0.113.7", 40000)) as guesser:
        for n in range(200):
            last = guesser.post("/dashboard/sign-in", data={"token": f"guess{n}"}, follow_redirects=False)
        assert last.status_code == 429
    with app.test_client(client=("198.51.100.4", 40000)) as owner:
        link = make_link(rt, workspace.id)
        assert owner.get(link).status_code == 200
        answer = owner.post("/dashboard/sign-in", data={"token": token_of(link)}, follow_redirects=False)
        assert answer.status_code == 303 and "retry-after" not in answer.headers
