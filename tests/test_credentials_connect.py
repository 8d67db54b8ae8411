"""The credentials connect style (fanout/connect_flow.py `sign_in`): a platform whose user
types an identifier and an app password into Fanout's own connect page, exchanged at once
for the platform's tokens. Exercised by TestSky, a platform of the tests only
(tests/testsky_world.py), against its emulator on loopback."""
from __future__ import annotations

import logging
from urllib.parse import urlsplit

import pytest
from peewee import sort_models

from fanout.models import MODELS, Account, ConnectSession, Target, db
from fanout.models.account import connect_account
from fanout.models.connect_session import SIGN_IN_TRIES
from fanout.models.upload import Draft, create_post
from fanout.models.workspace import create_workspace
from fanout.problems import PlanLimitExceeded
from fanout.tasks import publishing

from .testsky_world import (  # noqa: F401 (fixtures)
    APP_PASSWORD, DID, IDENTIFIER, live, platforms, port, settings, sky, sky_link, sky_server,
)
from .threads_world import query_of

WRONG = "wxyz-wxyz-wxyz-wxyz"


def open_form(client, link: str):
    parts = urlsplit(link)
    return client.get(f"{parts.path}?{parts.query}", follow_redirects=False)


def token_of(link: str) -> str:
    return query_of(link)["session"]


def send(client, link: str, identifier: str = IDENTIFIER, password: str = APP_PASSWORD, **extra):
    """The form as the browser posts it."""
    return client.post("/connect/testsky", data={"session": token_of(link), "identifier": identifier,
                                                 "password": password, **extra}, follow_redirects=False)


def all_rows() -> str:
    """Every row of every table, as text."""
    with db.connection_context():
        return "\n".join(str(row) for model in sort_models(MODELS) for row in model.select().dicts())


@pytest.fixture
def link(rt, workspace) -> str:
    return sky_link(rt, workspace.id)


def test_the_link_of_a_credentials_platform_shows_its_sign_in_form(client, link):
    page = open_form(client, link)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<h1>Connect your TestSky account</h1>" in page.text
    assert '<form method="post" action="/connect/testsky">' in page.text
    assert f'<input type="hidden" name="session" value="{token_of(link)}">' in page.text
    assert 'name="identifier"' in page.text and '<input type="password" name="password"' in page.text
    assert page.headers["cache-control"] == "no-store" and page.headers["referrer-policy"] == "no-referrer"


def test_showing_the_form_leaves_the_session_usable(client, link):
    open_form(client, link)
    assert open_form(client, link).status_code == 200
    with db.connection_context():
        assert ConnectSession.get().used_at is None


def test_a_right_app_password_connects_the_account_with_its_tokens_encrypted(client, rt, link, sky, workspace):
    landed = send(client, link)
    assert landed.status_code == 302
    assert landed.headers["location"].startswith(f"{rt.settings.connect_url}/connect/done?")
    query = query_of(landed.headers["location"])
    assert query["platform"] == "testsky" and query["status"] == "connected"
    with db.connection_context():
        account = Account.get_by_id(query["account_id"])
    assert (account.workspace_id, account.platform, account.sandbox, account.status) == (
        workspace.id, "testsky", False, "active")
    assert (account.platform_user_id, account.username) == (DID, IDENTIFIER)
    [issued] = sky.sessions
    assert rt.keyring.decrypt(account.access_token) == issued
    assert issued not in all_rows()


def test_the_password_is_nowhere_in_the_database_or_the_logs(client, link, caplog):
    caplog.set_level(logging.DEBUG)
    open_form(client, link)
    send(client, link, password=WRONG)
    assert send(client, link).status_code == 302
    assert "signing in to testsky" in caplog.text  # the refusal was logged, without the password
    for password in (APP_PASSWORD, WRONG):
        assert password not in caplog.text
        assert password not in all_rows()


def test_the_connected_page_names_the_platform(client, link):
    done = client.get(send(client, link).headers["location"])
    assert "Your TestSky account is connected." in done.text


def test_a_wrong_password_shows_the_form_again_with_an_error_and_no_account(client, link):
    page = send(client, link, password=WRONG)
    assert page.status_code == 401
    assert "TestSky did not accept this handle or email and app password." in page.text
    assert f"This link allows {SIGN_IN_TRIES - 1} more tries." in page.text
    assert f'value="{IDENTIFIER}"' in page.text and WRONG not in page.text
    assert f'value="{token_of(link)}"' in page.text
    with db.connection_context():
        assert Account.select().count() == 0


def test_after_a_wrong_password_the_right_one_still_connects(client, link):
    send(client, link, password=WRONG)
    assert query_of(send(client, link).headers["location"])["status"] == "connected"


def test_the_main_password_is_refused_as_a_wrong_one(client, link, sky):
    page = send(client, link, password=sky.accounts[0].main_password)
    assert page.status_code == 401 and "did not accept" in page.text


def test_the_session_is_single_use_after_success(client, link):
    send(client, link)
    again = send(client, link)
    assert again.status_code == 410 and "already used" in again.text
    assert open_form(client, link).status_code == 410
    with db.connection_context():
        assert Account.select().count() == 1


def test_tries_are_bounded_per_session(client, link, sky):
    for _ in range(SIGN_IN_TRIES - 1):
        assert send(client, link, password=WRONG).status_code == 401
    last = send(client, link, password=WRONG)
    assert last.status_code == 410 and "Too many sign-in attempts" in last.text
    assert send(client, link).status_code == 410
    assert open_form(client, link).status_code == 410
    assert len(sky.calls_to("POST", "createSession")) == SIGN_IN_TRIES
    with db.connection_context():
        assert Account.select().count() == 0


def test_an_empty_field_asks_again_without_spending_a_try(client, link, sky):
    page = send(client, link, password="")
    assert page.status_code == 400 and "Enter your handle or email and your app password." in page.text
    assert sky.calls_to("POST", "createSession") == []


def test_the_identifier_is_escaped_when_shown_again(client, link):
    hostile = '"><script>alert(1)</script>'
    page = send(client, link, identifier=hostile, password=WRONG)
    assert page.status_code == 401
    assert "<script>" not in page.text
    assert 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page.text  # markupsafe's escapes


def test_a_platform_that_cannot_be_reached_shows_the_form_again(client, link, sky):
    sky.fail("POST", "createSession", 503)
    page = send(client, link)
    assert page.status_code == 503 and "TestSky could not be reached." in page.text
    assert query_of(send(client, link).headers["location"])["status"] == "connected"


def test_success_goes_to_the_clients_redirect_url(client, rt, workspace):
    link = sky_link(rt, workspace.id, "https://app.example.com/done?state=abc")
    location = send(client, link).headers["location"]
    assert location.startswith("https://app.example.com/done?")
    query = query_of(location)
    assert query["state"] == "abc" and query["status"] == "connected" and query["account_id"].startswith("acc_")


def test_a_form_is_taken_only_for_a_credentials_flow(client, rt, workspace, auth):
    # A session of an OAuth platform: nothing there shows a form, so none is taken.
    started = client.post("/v1/accounts/x/connect", headers=auth, json={})
    token = query_of(started.json()["url"])["session"]
    answer = client.post("/connect/x", data={"session": token, "identifier": "a", "password": "b"})
    assert answer.status_code == 404
    assert open_form(client, started.json()["url"]).status_code == 302  # the session was not spent


def test_the_form_must_be_form_encoded(client, link):
    answer = client.post("/connect/testsky", json={"session": token_of(link), "identifier": IDENTIFIER,
                                                   "password": APP_PASSWORD})
    assert answer.status_code == 415
    with db.connection_context():
        assert Account.select().count() == 0


# --- the account cap (docs/decisions.md#account-cap): the same rules as the OAuth flows ----------


@pytest.fixture
def full(rt):
    """A FREE workspace holding its 4 accounts, none on TestSky."""
    with db.connection_context():
        ws = create_workspace(rt, "Small", "FREE")
        for n in range(4):
            connect_account(rt, ws.id, platform="threads", sandbox=False, platform_user_id=str(n),
                            username=f"user_{n}", access_token="token")
    return ws


def test_at_the_cap_no_link_is_given_without_an_account_to_reconnect(rt, full):
    with pytest.raises(PlanLimitExceeded, match="testsky account to reconnect"):
        sky_link(rt, full.id)


def test_at_the_cap_signing_in_again_reactivates_the_account_held(client, rt, full):
    with db.connection_context():
        Account.update(platform="testsky", platform_user_id=DID).where(Account.platform_user_id == "3").execute()
        Account.update(status="expired").where(Account.platform == "testsky").execute()
        held = Account.get(Account.platform == "testsky")
    query = query_of(send(client, sky_link(rt, full.id)).headers["location"])
    assert query["status"] == "connected" and query["account_id"] == held.id
    with db.connection_context():
        assert Account.get_by_id(held.id).status == "active" and Account.select().count() == 4


def test_at_the_cap_a_new_user_ends_with_plan_limit_exceeded_and_no_account(client, rt, full, sky):
    sky.add_account("bob.testsky.example", "bbbb-bbbb-bbbb-bbbb")
    with db.connection_context():
        Account.update(platform="testsky", platform_user_id=DID).where(Account.platform_user_id == "3").execute()
    landed = send(client, sky_link(rt, full.id), "bob.testsky.example", "bbbb-bbbb-bbbb-bbbb")
    assert query_of(landed.headers["location"]) == {"platform": "testsky", "error": "plan_limit_exceeded"}
    with db.connection_context():
        assert Account.select().count() == 4


# --- in a real browser ------------------------------------------------------------------------


def test_the_form_filled_in_a_browser_ends_on_the_account_connected_page(page, live, rt, workspace, tmp_path):
    page.goto(sky_link(rt, workspace.id))
    assert page.locator("h1").inner_text() == "Connect your TestSky account"
    page.get_by_label("handle or email").fill(IDENTIFIER)
    page.get_by_label("app password").fill(WRONG)
    page.get_by_role("button", name="Connect TestSky").click()
    page.wait_for_load_state()
    assert "did not accept" in page.locator("[role=alert]").inner_text()
    assert page.get_by_label("handle or email").input_value() == IDENTIFIER
    assert page.get_by_label("app password").input_value() == ""
    page.screenshot(path=tmp_path / "refused.png", full_page=True)
    page.get_by_label("app password").fill(APP_PASSWORD)
    page.get_by_role("button", name="Connect TestSky").click()
    page.wait_for_load_state()
    assert query_of(page.url)["status"] == "connected"
    assert page.locator("h1").inner_text() == "Account connected"
    assert "Your TestSky account is connected." in page.locator("body").inner_text()


# --- its tokens' life: refreshed without an app registered with the platform ---------------------


def test_a_credentials_account_refreshes_its_tokens_without_an_app(client, rt, link, sky):
    from fanout.tasks.tokens import Refresh, refresh_account

    account_id = query_of(send(client, link).headers["location"])["account_id"]
    assert rt.settings.platform_apps == {}
    assert refresh_account(rt, account_id) is Refresh.REFRESHED
    with db.connection_context():
        account = Account.get_by_id(account_id)
    [first, refreshed] = sky.sessions
    assert rt.keyring.decrypt(account.access_token) == refreshed
    assert rt.keyring.decrypt(account.refresh_token) in sky.refresh_tokens


def test_a_credentials_platform_reads_no_app_from_the_environment(platforms):
    from fanout.settings import Settings

    settings = Settings.from_env({"FANOUT_TESTSKY_CLIENT_ID": "id", "FANOUT_TESTSKY_CLIENT_SECRET": "secret"},
                                 platforms=platforms)
    assert settings.platform_apps == {} and platforms["testsky"].setting_names == ()


@pytest.mark.parametrize("insecure_urls", [True])
def test_a_browser_is_sent_on_to_the_clients_redirect_url_after_the_form(page, live, rt, workspace, httpserver):
    # The client's page, on another origin than the connect page's: nothing on the form's
    # page may stop the redirect there.
    httpserver.expect_request("/connected").respond_with_data("<h1>Back in the app</h1>", content_type="text/html")
    page.goto(sky_link(rt, workspace.id, f"http://127.0.0.1:{httpserver.port}/connected"))
    page.get_by_label("handle or email").fill(IDENTIFIER)
    page.get_by_label("app password").fill(APP_PASSWORD)
    page.get_by_role("button", name="Connect TestSky").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Back in the app"
    assert query_of(page.url)["status"] == "connected"


# --- publishing: the engine takes a platform from the runtime's, not from the registry --------


def publish_to_testsky(client, rt, link, workspace, caption: str):
    """A live post to the TestSky account `link` connects, published by the engine."""
    account_id = query_of(send(client, link).headers["location"])["account_id"]
    draft = Draft(caption=caption, media=[], sandbox=False, simulate_error=None, account_ids=[account_id],
                  platforms=None, accounts={})
    with db.connection_context():
        _, [target] = create_post(rt, workspace.id, draft)
    publishing.publish_target(rt, target.id)
    with db.connection_context():
        return Target.get_by_id(target.id)


def test_a_credentials_platform_publishes_with_the_tokens_its_form_got(client, rt, link, sky, workspace):
    target = publish_to_testsky(client, rt, link, workspace, "hello from the form")
    assert target.status == "published"
    [(uri, record)] = sky.records.items()
    assert record["text"] == "hello from the form"
    assert target.external_url.endswith("/post/" + uri.rsplit("/", 1)[1])


def test_a_credentials_platforms_caption_is_held_to_its_own_rules(client, rt, link, sky, workspace):
    target = publish_to_testsky(client, rt, link, workspace, "x" * 301)
    assert (target.status, target.error_code) == ("failed", "caption_too_long")
    assert "testsky allows 300" in target.error_message and not sky.records
