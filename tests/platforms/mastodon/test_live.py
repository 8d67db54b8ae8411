"""Live Mastodon end to end, through HTTP only: the app on a real loopback server, two
instances played by two Mastodon emulators on their domains (FANOUT_PLATFORM_HOSTS sends
each there), a browser that names the instance on Fanout's connect page and goes through
its consent, a media server; the queue is run by the test, at the test's clock, as a
worker would. Connect (the app registered once per instance, two accounts of one
instance), text, image, video and thread statuses with their options, the instance's own
character cap, the preflight, the mapping table of docs/platforms.md#mastodon row by row
through the engine, sandbox accounts and posts, and never twice when a worker dies at any
call.
"""
from __future__ import annotations

import dataclasses

import pytest
import requests

from fanout.platforms.http import parse_hosts

from ...conftest import run_queue
from ...emulators.clock import EmulatorClock
from ...emulators.mastodon import MastodonEmulator
from ...emulators.media.server import sample_media_server
from ...media_files import mp4
from ...threads_world import (  # noqa: F401 (fixtures)
    accounts, browser, connect_link, headers, only_target, port, query_of, run_for, serve_app,
)
from ..live import insecure_urls, stored, uploader  # noqa: F401 (fixtures)
from ..threads.test_live import publish_with_a_death
from .test_adapter import ACCOUNT, HOST, MASTODON_ROWS, STATUSES, USERNAME, item_of

OTHER = "other.example"
AUTH_ROWS = {row for row, *_, code, _ in MASTODON_ROWS if code == "platform_auth_expired"}


@pytest.fixture(scope="module")
def md_server():
    with MastodonEmulator(HOST, clock=EmulatorClock()) as server:
        yield server


@pytest.fixture(scope="module")
def other_server():
    with MastodonEmulator(OTHER, accounts=[("110000000000000007", "far")], clock=EmulatorClock()) as server:
        yield server


@pytest.fixture
def settings(settings, port, md_server, other_server):
    here = f"http://127.0.0.1:{port}"
    return dataclasses.replace(settings, base_url=here, connect_url=here, platform_hosts=parse_hosts(
        f"{md_server.hosts_setting},{other_server.hosts_setting}"))


@pytest.fixture
def live(app, stand) -> str:
    yield from serve_app(app, stand)


@pytest.fixture
def md(md_server, other_server, live, clock):
    """Both instances reset, their clocks at the test's; the first one's cap 500."""
    for server in (md_server, other_server):
        server.reset()
        server.set_clock(clock.now)
    md_server.configure(max_characters=500)
    md_server.consent_as(ACCOUNT)
    yield md_server
    assert not md_server.errors and not other_server.errors, (md_server.errors + other_server.errors)[0]


@pytest.fixture(scope="module")
def media():
    with sample_media_server() as server:
        server.put("/long.mp4", mp4(seconds=20), "video/mp4")
        yield server


def connect(browser, live: str, headers: dict, server: str = HOST) -> dict:
    """The connect flow in the browser: the link opened (Fanout's form asking for the
    server), the server named, the instance's consent, back to the done page."""
    link = connect_link(live, headers, "mastodon")
    form = browser.get(link, timeout=10)
    assert form.status_code == 200 and 'name="server"' in form.text, form.text
    landed = browser.post(f"{live}/connect/mastodon", data={"session": query_of(link)["session"], "server": server},
                          timeout=10)
    assert landed.status_code == 200, landed.text
    return query_of(landed.url)


@pytest.fixture
def account(browser, live, headers, md) -> str:
    query = connect(browser, live, headers)
    assert query["status"] == "connected", query
    return query["account_id"]


upload = uploader("mastodon")


def mastodon(caption: str = "hello", *, thread=None, **options) -> dict:
    override: dict = {}
    if options:
        override["options"] = options
    if thread:
        override["thread"] = [{"caption": c} for c in thread]
    return {"overrides": {"mastodon": override}} if override else {}


def page(status, host: str = HOST, username: str = USERNAME) -> str:
    return f"https://{host}/@{username}/{status.id}"


# --- connect ---------------------------------------------------------------------------------

def test_connecting_names_the_instance_registers_the_app_and_adds_user_at_instance(browser, live, headers, md):
    query = connect(browser, live, headers)
    [listed] = accounts(live, headers)
    assert (listed["id"], listed["platform"], listed["username"], listed["status"]) == (
        query["account_id"], "mastodon", f"{USERNAME}@{HOST}", "active")
    account = stored(query["account_id"])
    assert (account.platform_user_id, account.token_expires_at, account.refresh_at) == (f"{ACCOUNT}@{HOST}", None,
                                                                                        None)
    [app] = md.apps
    assert app.redirect_uris == (f"{live}/connect/mastodon/callback",) and md.force_logins == 1


def test_two_accounts_of_one_instance_register_the_app_once(browser, live, headers, md):
    second = md.add_account("second")
    first = connect(browser, live, headers)
    md.consent_as(second.id)
    other = connect(browser, live, headers)
    assert first["status"] == other["status"] == "connected" and first["account_id"] != other["account_id"]
    assert len(md.apps) == 1 and md.force_logins == 2
    assert sorted(a["username"] for a in accounts(live, headers)) == [f"emu@{HOST}", f"second@{HOST}"]


def test_each_instance_has_an_app_of_its_own(browser, live, headers, md, other_server):
    connect(browser, live, headers)
    query = connect(browser, live, headers, server=f"https://{OTHER}/")
    assert query["status"] == "connected" and len(md.apps) == len(other_server.apps) == 1
    assert stored(query["account_id"]).username == f"far@{OTHER}"


def test_an_app_the_instance_forgot_during_the_consent_is_registered_again_on_the_next_connect(
        browser, live, headers, md):
    link = connect_link(live, headers, "mastodon")
    to_instance = browser.post(f"{live}/connect/mastodon", data={"session": query_of(link)["session"], "server": HOST},
                               allow_redirects=False, timeout=10)
    back = browser.get(to_instance.headers["location"], allow_redirects=False, timeout=10).headers["location"]
    md.forget_apps()  # swept between the consent and the code exchange (invalid_client)
    assert query_of(browser.get(back, timeout=10).url)["error"] == "platform_error"
    assert connect(browser, live, headers)["status"] == "connected" and len(md.apps) == 1


def test_in_a_browser_the_server_form_asks_for_the_instance_and_the_flow_ends_connected(
        page, live, headers, md, tmp_path):
    page.goto(connect_link(live, headers, "mastodon"))
    assert page.locator("h1").inner_text() == "Connect your Mastodon account"
    page.get_by_label("server address").fill(HOST)
    page.screenshot(path=tmp_path / "mastodon-server.png", full_page=True)
    page.get_by_role("button", name="Continue to Mastodon").click()
    page.wait_for_url(f"{live}/connect/done?**")
    assert query_of(page.url)["status"] == "connected" and len(md.apps) == 1


def test_a_user_who_says_no_comes_back_as_access_denied(browser, live, headers, md):
    md.deny_consent()
    assert connect(browser, live, headers)["error"] == "access_denied"


# --- publishing ----------------------------------------------------------------------------

def test_a_text_status_publishes_with_its_page(live, headers, account, md, rt, clock):
    post = upload(live, headers, "plain text with #hashtags")
    run_queue(rt, clock)
    [made] = md.statuses
    assert only_target(live, headers, post["id"])["external_url"] == page(made)
    assert (made.text, made.visibility) == ("plain text with #hashtags", "public")


def test_an_image_publishes_with_its_alt_text(live, headers, account, md, media, rt, clock):
    post = upload(live, headers, "a photo", [{"url": media.url("photo.jpg"), "type": "image", "alt_text": "A door"}])
    run_queue(rt, clock)
    [made] = md.statuses
    assert only_target(live, headers, post["id"])["external_url"] == page(made)
    assert md.media[0].description == "A door"


def test_a_video_publishes_once_the_instance_has_processed_it(live, headers, account, md, media, rt, clock):
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    post = upload(live, headers, "a clip", [{"url": media.url("long.mp4"), "type": "video"}])
    run_queue(rt, clock)
    assert only_target(live, headers, post["id"])["status"] == "processing" and md.statuses == []
    run_for(rt, clock, md, 30, every=5)
    [made] = md.statuses
    assert only_target(live, headers, post["id"])["external_url"] == page(made)


def test_a_three_part_thread_with_visibility_and_spoiler_text(live, headers, account, md, rt, clock):
    post = upload(live, headers, "part 1", **mastodon(thread=["part 2", "part 3"], visibility="unlisted",
                                                      spoiler_text="a long story"))
    run_queue(rt, clock)
    first, second, third = md.statuses
    target = only_target(live, headers, post["id"])
    assert target["external_url"] == page(first)
    assert [p["external_url"] for p in target["published_parts"]] == [page(s) for s in md.statuses]
    assert (second.in_reply_to_id, third.in_reply_to_id) == (first.id, second.id)
    assert {(s.visibility, s.spoiler_text) for s in md.statuses} == {("unlisted", "a long story")}


def test_the_instances_own_cap_is_obeyed(live, headers, account, md, rt, clock):
    over = upload(live, headers, "a" * 600)
    run_queue(rt, clock)
    failed = only_target(live, headers, over["id"])
    assert failed["error_code"] == "caption_too_long" and f"{HOST} allows 500" in failed["error_message"]
    assert md.calls_to(*STATUSES) == []
    md.configure(max_characters=1000)
    within = upload(live, headers, "a" * 600)
    run_queue(rt, clock)
    assert only_target(live, headers, within["id"])["status"] == "published" and len(md.statuses[0].text) == 600


def test_a_preflight_foresees_the_instances_cap_and_creates_nothing(live, headers, account, md, rt, clock):
    body = {"caption": "b" * 501, "account_ids": [account]}
    answer = requests.post(f"{live}/v1/upload/preflight", headers=headers, json=body, timeout=10).json()
    [target] = answer["targets"]
    assert [p["code"] for p in target["problems"]] == ["caption_too_long"]
    assert f"{HOST} allows 500" in target["problems"][0]["message"] and md.calls_to(*STATUSES) == []
    md.configure(max_characters=1000)
    assert requests.post(f"{live}/v1/upload/preflight", headers=headers, json=body, timeout=10).json()["ok"] is True


def test_an_unknown_visibility_is_refused_at_upload(live, headers, account, md):
    upload(live, headers, "hello", expect=400, **mastodon(visibility="direct"))


# --- sandbox -------------------------------------------------------------------------------

def test_a_sandbox_account_and_post_need_no_instance_at_all(client, auth, md, rt, clock):
    started = client.post("/v1/accounts/mastodon/connect", headers=auth, json={})
    landed = client.get(started.json()["url"].replace(rt.settings.connect_url, ""), follow_redirects=False)
    assert query_of(landed.headers["location"])["status"] == "connected"
    answer = client.post("/v1/upload", headers=auth, json={
        "caption": "hello", "platforms": ["mastodon"],
        "overrides": {"mastodon": {"thread": [{"caption": "two"}], "options": {"visibility": "unlisted"}}}})
    run_queue(rt, clock)
    [target] = client.get(f"/v1/posts/{answer.json()['id']}", headers=auth).json()["targets"]
    assert target["status"] == "published" and "/sandbox/mastodon/" in target["external_url"]
    assert md.calls == []


# --- never twice -----------------------------------------------------------------------------

def test_a_status_whose_answer_is_lost_is_published_once(live, headers, account, md, rt, clock):
    md.drop(*STATUSES)
    post = upload(live, headers, "said once")
    run_for(rt, clock, md, 120, every=30)
    [made] = md.statuses
    assert only_target(live, headers, post["id"])["external_url"] == page(made)


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_image_post_leaves_exactly_one_status(
        live, headers, account, md, media, rt, clock, after):
    n = 1
    while True:
        before = len(md.statuses)
        post = upload(live, headers, f"death at call {n} {after}", [{"url": media.url("photo.jpg"), "type": "image"}])
        died = publish_with_a_death(rt, clock, n, after)
        published = only_target(live, headers, post["id"])
        assert published["status"] == "published", (n, published)
        assert len(md.statuses) == before + 1, f"death at call {n}: {len(md.statuses) - before} statuses"
        assert published["external_url"] == page(md.statuses[-1]), (n, published)
        if not died:
            break
        n += 1
    assert n > 3  # the instance, the upload, the status


# --- the mapping table, through the engine --------------------------------------------------

@pytest.mark.parametrize("row, make, kind, code, said", MASTODON_ROWS, ids=[r[0] for r in MASTODON_ROWS])
def test_each_mastodon_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, md, media, rt, clock, row, make, kind, code, said):
    if make:
        make(md, media)
    if row in AUTH_ROWS:
        md.revoke_token(account_id=ACCOUNT)
    post = upload(live, headers, "hello", item_of(kind, media))
    run_for(rt, clock, md, 60, every=5)
    failed = only_target(live, headers, post["id"])
    assert (failed["status"], failed["error_code"]) == ("failed", code)
    assert stored(account).status == ("expired" if row in AUTH_ROWS else "active")
    assert md.statuses == []


def test_a_5xx_through_the_engine_is_retried_then_ends_unknown(live, headers, account, md, rt, clock):
    md.fail(*STATUSES, 503, {"error": "Service Unavailable"}, times=None)
    post = upload(live, headers, "hello")
    run_for(rt, clock, md, 3600, every=60)  # the engine's retries come within the key's hour
    failed = only_target(live, headers, post["id"])
    assert failed["error_code"] == "unknown_platform_error" and "gave up after 5 retries" in failed["error_message"]
    assert md.statuses == [] and len(md.calls_to(*STATUSES)) == 6
