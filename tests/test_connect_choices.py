"""A consent that grants several accounts (fanout/connect_flow.py `offer` and `pick`): the
connect page offers them, and the one picked is connected with its own token; one is
connected at once, none is an account that cannot publish. Exercised by TestPages, a
platform of the tests only whose consent grants the Pages its code names."""
from __future__ import annotations

import dataclasses
from urllib.parse import urlencode, urlsplit

import pytest
from peewee import sort_models

from fanout.models import MODELS, Account, db
from fanout import connect_flow
from fanout.platforms import REGISTRY, Platform
from fanout.platforms.base import App, Authorization, Choices, Grant

from .made_up import ConnectOnly, text_rules
from .threads_world import query_of, serve_app

# The Pages each code grants: (id, name, token).
PAGES = {
    "two": (("101", "Acme Bakery", "page-token-101"), ("102", "Acme Cafe", "page-token-102")),
    "one": (("101", "Acme Bakery", "page-token-101"),),
    "none": (),
}


class TestPagesAdapter(ConnectOnly):
    """An OAuth platform whose consent grants Pages (a Facebook user's, in shape)."""

    def authorize(self, app, redirect_uri, state, *, randbytes=None) -> Authorization:
        return Authorization(f"https://pages.invalid/authorize?{urlencode({'state': state})}")

    def exchange(self, http, app, code, redirect_uri, verifier=None, *, now, settings=None) -> Choices:
        return Choices("page_id", "Page", tuple(Grant(access_token=token, user_id=page_id, username=name)
                                                for page_id, name, token in PAGES[code]))


TESTPAGES = Platform("testpages", "TestPages", text_rules("testpages"), adapter=TestPagesAdapter(),
                     hosts=("pages.invalid",))


@pytest.fixture
def platforms() -> dict:
    return {**REGISTRY, TESTPAGES.name: TESTPAGES}


@pytest.fixture
def settings(settings, stand):
    here = f"http://127.0.0.1:{stand.port}"
    return dataclasses.replace(settings, base_url=here, connect_url=here,
                               platform_apps={**settings.platform_apps, "testpages": App("pages-app", "pages-secret")})


def consented(client, rt, workspace, code: str):
    """The connect link opened, then the platform's callback with `code` for its state."""
    with db.connection_context():
        link = connect_flow.start(rt, workspace.id, "testpages", sandbox=False, redirect_url=None)
    parts = urlsplit(link)
    authorize = client.get(f"{parts.path}?{parts.query}", follow_redirects=False).headers["location"]
    return client.get(f"/connect/testpages/callback?{urlencode({'code': code, 'state': query_of(authorize)['state']})}",
                      follow_redirects=False)


def pick_token(page) -> str:
    marker = '<input type="hidden" name="pick" value="'
    return page.text.split(marker, 1)[1].split('"', 1)[0]


def accounts() -> list[Account]:
    with db.connection_context():
        return list(Account.select().where(Account.platform == "testpages"))


def test_several_pages_are_offered_to_pick_and_none_is_connected_yet(client, rt, workspace):
    page = consented(client, rt, workspace, "two")
    assert page.status_code == 200 and "<h1>Choose the Page to connect</h1>" in page.text
    assert '<input type="radio" name="page_id" value="101" required> Acme Bakery' in page.text
    assert '<input type="radio" name="page_id" value="102" required> Acme Cafe' in page.text
    assert accounts() == []


def test_the_page_picked_is_connected_with_its_own_token(client, rt, workspace):
    page = consented(client, rt, workspace, "two")
    done = client.post("/connect/testpages", data={"pick": pick_token(page), "page_id": "102"}, follow_redirects=False)
    assert query_of(done.headers["location"])["status"] == "connected"
    [account] = accounts()
    assert (account.platform_user_id, account.username) == ("102", "Acme Cafe")
    assert rt.keyring.decrypt(account.access_token) == "page-token-102"


def test_the_pages_offered_are_kept_encrypted_and_forgotten_once_one_is_picked(client, rt, workspace):
    def rows() -> str:
        with db.connection_context():
            return "\n".join(str(row) for model in sort_models(MODELS) for row in model.select().dicts())

    page = consented(client, rt, workspace, "two")
    assert "page-token-10" not in rows() and "Acme Cafe" not in rows()
    client.post("/connect/testpages", data={"pick": pick_token(page), "page_id": "101"})
    with db.connection_context():
        from fanout.models import ConnectSession
        assert [(s.pick_hash, s.choices) for s in ConnectSession.select()] == [(None, None)]


def test_a_pick_is_taken_once(client, rt, workspace):
    page = consented(client, rt, workspace, "two")
    client.post("/connect/testpages", data={"pick": pick_token(page), "page_id": "101"})
    again = client.post("/connect/testpages", data={"pick": pick_token(page), "page_id": "102"})
    assert again.status_code == 404 and [a.platform_user_id for a in accounts()] == ["101"]


def test_a_page_not_offered_asks_again_and_the_pick_still_works(client, rt, workspace):
    page = consented(client, rt, workspace, "two")
    wrong = client.post("/connect/testpages", data={"pick": pick_token(page), "page_id": "999"})
    assert wrong.status_code == 400 and "Choose the Page to connect." in wrong.text and accounts() == []
    right = client.post("/connect/testpages", data={"pick": pick_token(page), "page_id": "101"}, follow_redirects=False)
    assert query_of(right.headers["location"])["status"] == "connected"


def test_one_page_is_connected_at_once(client, rt, workspace):
    done = consented(client, rt, workspace, "one")
    assert done.status_code == 302 and query_of(done.headers["location"])["status"] == "connected"
    assert [a.username for a in accounts()] == ["Acme Bakery"]


def test_no_page_is_an_account_that_cannot_publish(client, rt, workspace):
    done = consented(client, rt, workspace, "none")
    assert query_of(done.headers["location"])["error"] == "account_not_eligible" and accounts() == []


def test_an_unknown_pick_token_is_refused(client):
    assert client.post("/connect/testpages", data={"pick": "nope", "page_id": "101"}).status_code == 404


# --- in a real browser ------------------------------------------------------------------------


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


def test_a_page_picked_in_a_browser_ends_on_the_account_connected_page(page, live, client, rt, workspace, tmp_path):
    with db.connection_context():
        link = connect_flow.start(rt, workspace.id, "testpages", sandbox=False, redirect_url=None)
    parts = urlsplit(link)
    state = query_of(client.get(f"{parts.path}?{parts.query}", follow_redirects=False).headers["location"])["state"]
    page.goto(f"{live}/connect/testpages/callback?{urlencode({'code': 'two', 'state': state})}")
    assert page.locator("h1").inner_text() == "Choose the Page to connect"
    page.get_by_label("Acme Cafe").check()
    page.screenshot(path=tmp_path / "pick.png", full_page=True)
    page.get_by_role("button", name="Connect this Page").click()
    page.wait_for_load_state()
    assert query_of(page.url)["status"] == "connected"
    assert "Your TestPages account is connected." in page.locator("body").inner_text()
