"""The server connect style (fanout/connect_flow.py `choose_server`): the user names the
server their account is on, Fanout registers its app there once (kept encrypted, reused by
every later account of that server) and runs the platform's OAuth on it. Exercised by
TestDon, a platform of the tests only shaped like Mastodon, whose adapter records what it
is asked."""
from __future__ import annotations

import dataclasses
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from fanout import connect_flow
from fanout.models import Account, InstanceApp, db
from fanout.platforms import REGISTRY, Platform
from fanout.platforms.base import SERVER, App, Authorization, ClientRefused, Field, Grant
from fanout.platforms.surface import problems

from .conftest import PUBLIC_IP
from .made_up import ConnectOnly, text_rules
from .threads_world import query_of, serve_app


class TestDonAdapter(ConnectOnly):
    """Mastodon in shape: an app registered on each server, OAuth there, `id@server` users."""
    CONNECT_STYLE = SERVER
    server_field = Field("server", "your server", hint="Such as social.example.")
    HOSTS: tuple = ()

    def __init__(self):
        self.registered: list[str] = []
        self.exchanged: list[tuple[str, str]] = []
        self.refuse_client = False

    def register(self, http, server, redirect_uri, *, settings=None) -> App:
        self.registered.append(server)
        return App(f"client-of-{server}", f"secret-of-{server}")

    def authorize(self, app, redirect_uri, state, *, randbytes=None, server) -> Authorization:
        query = urlencode({"client_id": app.client_id, "redirect_uri": redirect_uri, "state": state})
        return Authorization(f"https://{server}/oauth/authorize?{query}")

    def exchange(self, http, app, code, redirect_uri, verifier=None, *, now, settings=None, server) -> Grant:
        if self.refuse_client:
            raise ClientRefused("invalid_client")
        self.exchanged.append((server, app.client_secret))
        return Grant(access_token=f"token-{code}", user_id=f"{code}@{server}", username=f"user{code}@{server}")


@pytest.fixture
def adapter() -> TestDonAdapter:
    return TestDonAdapter()


@pytest.fixture
def platforms(adapter) -> dict:
    return {**REGISTRY, "testdon": Platform("testdon", "TestDon", text_rules("testdon"), adapter=adapter, hosts=())}


@pytest.fixture
def resolver(resolver):
    resolver.names.update({"social.example": [PUBLIC_IP], "other.example": [PUBLIC_IP],
                           "inside.example": ["10.0.0.7"]})
    return resolver


@pytest.fixture
def settings(settings, stand):
    here = f"http://127.0.0.1:{stand.port}"
    return dataclasses.replace(settings, base_url=here, connect_url=here)


def link(rt, workspace) -> str:
    with db.connection_context():
        return connect_flow.start(rt, workspace.id, "testdon", sandbox=False, redirect_url=None)


def token_of(url: str) -> str:
    return query_of(url)["session"]


def named(client, url: str, server: str):
    return client.post("/connect/testdon", data={"session": token_of(url), "server": server}, follow_redirects=False)


def connected(client, rt, workspace, server: str, code: str):
    """The whole flow: the link, the server named, the platform's callback with `code`."""
    authorize = named(client, link(rt, workspace), server).headers["location"]
    state = parse_qs(urlsplit(authorize).query)["state"][0]
    return client.get(f"/connect/testdon/callback?{urlencode({'code': code, 'state': state})}", follow_redirects=False)


def test_a_server_style_adapter_offers_the_checked_surface(adapter):
    assert problems(adapter) == []


def test_the_link_asks_which_server_the_account_is_on(client, rt, workspace):
    url = link(rt, workspace)
    page = client.get(urlsplit(url).path + "?" + urlsplit(url).query)
    assert page.status_code == 200 and "<h1>Connect your TestDon account</h1>" in page.text
    assert 'name="server"' in page.text and f'value="{token_of(url)}"' in page.text


def test_naming_a_server_registers_the_app_there_and_goes_to_its_consent_page(client, rt, workspace, adapter):
    answer = named(client, link(rt, workspace), "https://Social.Example/")
    assert answer.status_code == 302 and answer.headers["location"].startswith("https://social.example/oauth/authorize?")
    assert query_of(answer.headers["location"])["client_id"] == "client-of-social.example"
    assert adapter.registered == ["social.example"]


def test_the_app_is_kept_encrypted_and_reused_by_a_second_account_of_the_server(client, rt, workspace, adapter):
    first, second = connected(client, rt, workspace, "social.example", "1"), \
        connected(client, rt, workspace, "social.example", "2")
    assert [query_of(a.headers["location"])["status"] for a in (first, second)] == ["connected", "connected"]
    assert adapter.registered == ["social.example"]
    assert adapter.exchanged == [("social.example", "secret-of-social.example")] * 2
    with db.connection_context():
        [kept] = InstanceApp.select()
        assert kept.client_secret != "secret-of-social.example"
        assert sorted(a.username for a in Account.select().where(Account.platform == "testdon")) == \
            ["user1@social.example", "user2@social.example"]


def test_each_server_has_its_own_app(client, rt, workspace, adapter):
    connected(client, rt, workspace, "social.example", "1")
    connected(client, rt, workspace, "other.example", "1")
    assert adapter.registered == ["social.example", "other.example"]


@pytest.mark.parametrize("typed", ["inside.example", "nowhere.example", "127.0.0.1", "not a host", "localhost", ""])
def test_a_server_that_is_not_on_the_internet_is_asked_again(client, rt, workspace, adapter, typed):
    url = link(rt, workspace)
    answer = named(client, url, typed)
    assert answer.status_code == 400 and "such as mastodon.social" in answer.text
    assert adapter.registered == []
    assert named(client, url, "social.example").status_code == 302  # the link still works


def test_the_session_is_used_once_the_server_is_named(client, rt, workspace):
    url = link(rt, workspace)
    named(client, url, "social.example")
    assert named(client, url, "social.example").status_code == 410


def test_an_app_the_server_no_longer_knows_is_forgotten_and_registered_again(client, rt, workspace, adapter):
    adapter.refuse_client = True
    failed = connected(client, rt, workspace, "social.example", "1")
    assert query_of(failed.headers["location"])["error"] == "platform_error"
    adapter.refuse_client = False
    assert query_of(connected(client, rt, workspace, "social.example", "1").headers["location"])["status"] == \
        "connected"
    assert adapter.registered == ["social.example", "social.example"]


# --- in a real browser ------------------------------------------------------------------------


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


def test_the_server_form_in_a_browser_goes_on_to_the_servers_consent_page(page, live, rt, workspace, tmp_path):
    consent = []
    page.route("https://social.example/**", lambda route: (consent.append(route.request.url),
                                                           route.fulfill(status=200, body="consent")))
    page.goto(link(rt, workspace))
    assert page.locator("h1").inner_text() == "Connect your TestDon account"
    page.get_by_label("your server").fill("social.example")
    page.screenshot(path=tmp_path / "server.png", full_page=True)
    page.get_by_role("button", name="Continue to TestDon").click()
    page.wait_for_url("https://social.example/**")
    assert consent and consent[0].startswith("https://social.example/oauth/authorize?")
