"""Live Threads publishing end to end, through HTTP only: the app on a real loopback server,
the Threads emulator, a browser for the connect flow, a media server and a webhook
receiver; the queue is run by the test, at the test's clock, as a worker would.
Row by row, the mapping table of docs/platforms.md#threads through the engine (with the
token refresh an auth error earns), the container window, and never twice when a worker
dies at any call boundary (docs/architecture.md#never-twice)."""
from __future__ import annotations

import datetime as dt
import json

import pytest
import requests

from fanout.models import Target, db
from fanout.tasks import publishing, tokens

from ...conftest import run_queue
from ...emulators.media import jpeg_bytes
from ...emulators.media.server import MediaServer
from .test_adapter import CONTAINER_ROWS, GRAPH_ROWS
from ...threads_world import (  # noqa: F401 (fixtures)
    USER_ID, browser, connect, emulator, headers, hook, live, port, settings, threads_server,
)
from ..live import connected_account, insecure_urls, stored  # noqa: F401 (fixtures)

AUTH_ROWS = {row for row, *_, code in GRAPH_ROWS if code == "platform_auth_expired"}


@pytest.fixture(scope="module")
def media():
    with MediaServer() as server:
        server.put("/photo.jpg", jpeg_bytes(640, 480), "image/jpeg")
        yield server


@pytest.fixture
def account(browser, live, headers) -> str:
    return connected_account(browser, live, headers, "threads")


def upload(live, headers, caption="hello from fanout", **body) -> dict:
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10,
                           json={"caption": caption, "platforms": ["threads"], **body})
    assert answer.status_code == 201, answer.text
    return answer.json()


def read(live, headers, post_id) -> dict:
    return requests.get(f"{live}/v1/posts/{post_id}", headers=headers, timeout=10).json()


def events(httpserver) -> list[dict]:
    return [json.loads(request.get_data()) for request, _ in httpserver.log]


def account_status(account_id) -> str:
    return stored(account_id).status


def posts(emulator) -> list:
    return emulator.posts.get(USER_ID, [])


def test_a_live_text_and_image_post_publish_with_the_emulators_permalinks_and_the_webhook_carries_them(
        live, headers, account, hook, httpserver, emulator, media, rt, clock):
    text = upload(live, headers, "plain text")
    image = upload(live, headers, "with a photo", media=[{"url": media.url("photo.jpg"), "type": "image"}])
    run_queue(rt, clock)
    made = {p.text: p for p in posts(emulator)}
    for post, caption, kind in ((text, "plain text", "TEXT_POST"), (image, "with a photo", "IMAGE")):
        [target] = read(live, headers, post["id"])["targets"]
        assert target["status"] == "published", target
        assert target["external_url"] == made[caption].permalink and made[caption].media_type == kind
    delivered = {e["post_id"]: e for e in events(httpserver)}
    assert {delivered[p["id"]]["target"]["external_url"] for p in (text, image)} == {
        made["plain text"].permalink, made["with a photo"].permalink}


@pytest.mark.parametrize("row, call, status, body, code", GRAPH_ROWS, ids=[r[0] for r in GRAPH_ROWS])
def test_each_graph_error_through_the_engine_ends_in_its_code_and_expires_the_account_on_auth_rows(
        live, headers, account, emulator, rt, clock, row, call, status, body, code):
    emulator.fail(*call, status, body)
    if row in AUTH_ROWS:
        emulator.fail_refresh()  # the one refresh the auth error earns is refused too
    post = upload(live, headers)
    run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    assert (target["status"], target["error_code"]) == ("failed", code)
    assert account_status(account) == ("expired" if row in AUTH_ROWS else "active")
    assert posts(emulator) == []


@pytest.mark.parametrize("status, error_message, code", CONTAINER_ROWS, ids=[f"{r[0]} {r[1]}" for r in CONTAINER_ROWS])
def test_each_container_outcome_through_the_engine_ends_in_its_code(
        live, headers, account, emulator, media, rt, clock, status, error_message, code):
    emulator.force_next_container(status, error_message)
    post = upload(live, headers, media=[{"url": media.url("photo.jpg"), "type": "image"}])
    run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    assert (target["status"], target["error_code"]) == ("failed", code)
    assert account_status(account) == "active"


def test_an_auth_error_earns_one_refresh_and_one_replay_that_publishes(live, headers, account, emulator, rt, clock):
    clock.advance(hours=25)  # Threads refreshes tokens at least a day old
    emulator.advance(25 * 3600)
    emulator.fail_graph("POST", rf"/{USER_ID}/threads$", 190, "Error validating access token: Session has expired")
    post = upload(live, headers)
    run_queue(rt, clock)
    assert read(live, headers, post["id"])["targets"][0]["status"] == "published"
    assert len(emulator.calls_to("GET", r"/refresh_access_token$")) == 1
    assert len(posts(emulator)) == 1 and account_status(account) == "active"


def test_an_expired_account_sends_account_expired_and_fails_its_target(
        live, headers, account, hook, httpserver, emulator, rt, clock):
    emulator.revoke_tokens()
    post = upload(live, headers)
    run_queue(rt, clock)
    assert read(live, headers, post["id"])["targets"][0]["error_code"] == "platform_auth_expired"
    kinds = {e["event"]: e for e in events(httpserver)}
    assert kinds["account.expired"]["account"]["id"] == account
    assert kinds["post.failed"]["target"]["error_code"] == "platform_auth_expired"
    assert len(emulator.calls_to("GET", r"/refresh_access_token$")) == 1


def test_a_container_never_ready_in_the_window_fails_while_the_other_target_publishes_and_no_worker_sleeps(
        browser, live, headers, emulator, media, rt, clock):
    emulator.add_user("second_threads", user_id="25025320002")
    first = connect(browser, live, headers)["account_id"]
    emulator.consent_as("25025320002")
    second = connect(browser, live, headers)["account_id"]
    rt.sleep = lambda seconds: pytest.fail("a worker thread slept")
    emulator.force_next_container("IN_PROGRESS")  # the first target's container never finishes
    photo = [{"url": media.url("photo.jpg"), "type": "image"}]
    post = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json={
        "caption": "two accounts", "account_ids": [first, second], "media": photo}).json()
    run_queue(rt, clock)
    assert [t["status"] for t in read(live, headers, post["id"])["targets"]] == ["processing", "published"]
    for _ in range(12):  # past the 300-second window, a scheduled check at a time
        clock.advance(seconds=30)
        emulator.advance(30)
        run_queue(rt, clock)
    targets = read(live, headers, post["id"])["targets"]
    assert [(t["status"], t["error_code"]) for t in targets] == [("failed", "container_expired"), ("published", None)]
    assert read(live, headers, post["id"])["status"] == "partial"


def test_a_container_whose_status_cannot_be_read_fails_container_expired_at_the_end_of_its_window(
        live, headers, account, emulator, rt, clock):
    rt.settings = rt.settings.with_platform("threads", container_window=5)
    emulator.force_next_container("IN_PROGRESS")
    emulator.fail("GET", r"^/v1\.0/\d+$", 503, "busy", times=None)  # every read of the container
    post = upload(live, headers, "unlucky")
    run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    with db.connection_context():
        parked = Target.get_by_id(target["id"])
    # Retried at the window's end, not after the engine's usual 30 s backoff.
    assert parked.status == "processing" and parked.next_check_at == clock.now + dt.timedelta(seconds=5)
    clock.advance(seconds=5)
    emulator.advance(5)
    run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    assert (target["status"], target["error_code"]) == ("failed", "container_expired")
    assert "within 5 s" in target["error_message"] and posts(emulator) == []


class WorkerKilled(BaseException):
    """A SIGKILL as seen from inside: nothing after it runs."""


class DyingHttp:
    """The platform client of a worker that dies just before its `n`-th call is sent, or
    just after its answer arrived (before anything is done with it); with `path`, the
    `n`-th call to a URL ending with it."""

    def __init__(self, inner, n: int, after: bool, path: str = ""):
        self.inner, self.n, self.after, self.path, self.count = inner, n, after, path, 0

    def url(self, url):
        return self.inner.url(url)

    def request(self, method, url, **kwargs):
        if not url.endswith(self.path):
            return self.inner.request(method, url, **kwargs)
        self.count += 1
        if self.count == self.n and not self.after:
            raise WorkerKilled()
        answer = self.inner.request(method, url, **kwargs)
        if self.count == self.n:
            raise WorkerKilled()
        return answer

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)


def publish_with_a_death(rt, clock, n: int, after: bool, path: str = "") -> bool:
    """Run the queue with a worker dying at call `n` (see DyingHttp); then, as the sweeper
    would once the lease ran out, with a healthy one. True if the death happened."""
    healthy = rt.platform_http
    rt.platform_http = DyingHttp(healthy, n, after, path)
    try:
        run_queue(rt, clock)
        died = False
    except WorkerKilled:
        died = True
    rt.platform_http = healthy
    clock.advance(seconds=rt.settings.publish_lease + 1)
    publishing.sweep(rt)
    run_queue(rt, clock)
    return died


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_image_post_leaves_exactly_one_post(
        live, headers, account, emulator, media, rt, clock, after):
    photo = [{"url": media.url("photo.jpg"), "type": "image"}]
    n = 1
    while True:
        before = len(posts(emulator))
        post = upload(live, headers, f"death at call {n} {after}", media=photo)
        died = publish_with_a_death(rt, clock, n, after)
        [target] = read(live, headers, post["id"])["targets"]
        assert target["status"] == "published", (n, target)
        assert len(posts(emulator)) == before + 1, f"death at call {n}: {len(posts(emulator)) - before} posts"
        assert target["external_url"] == posts(emulator)[-1].permalink, (n, target)  # read back, not left null
        if not died:
            break  # the publish needs fewer calls than n: every boundary was tried
        n += 1
    assert n > 3


def test_a_post_whose_worker_died_after_publishing_gets_its_permalink_under_newer_posts(
        live, headers, account, emulator, rt, clock):
    post = upload(live, headers, "mine")
    healthy = rt.platform_http
    rt.platform_http = DyingHttp(healthy, 1, True, "/threads_publish")
    with pytest.raises(WorkerKilled):
        run_queue(rt, clock)
    rt.platform_http = healthy
    for n in range(30):  # the account's other targets publish before the lease runs out
        upload(live, headers, f"published meanwhile {n}")
    run_queue(rt, clock)
    for _ in range(10):  # the sweeper takes the target back; its lookups, each in its time
        clock.advance(seconds=rt.settings.publish_lease + 1)
        emulator.advance(rt.settings.publish_lease + 1)
        publishing.sweep(rt)
        run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    [mine] = [p for p in posts(emulator) if p.text == "mine"]
    assert target["status"] == "published" and target["external_url"] == mine.permalink
    assert len(posts(emulator)) == 31


def test_a_publish_whose_connection_drops_after_publishing_leaves_exactly_one_post(
        live, headers, account, emulator, rt, clock):
    emulator.drop("POST", r"/threads_publish$")
    post = upload(live, headers)
    run_queue(rt, clock)
    clock.advance(seconds=60)
    emulator.advance(60)
    run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    assert target["status"] == "published" and target["external_url"] == posts(emulator)[0].permalink
    assert len(posts(emulator)) == 1



def test_the_periodic_refresh_renews_a_token_whose_refresh_time_came(live, headers, account, emulator, rt, clock):
    before = stored(account)
    assert tokens.refresh_due_tokens(rt) == {}  # not due yet
    days = (before.refresh_at - clock.now).days + 1
    clock.advance(days=days)
    emulator.advance(days * 86400)
    assert tokens.refresh_due_tokens(rt) == {account: "refreshed"}
    after = stored(account)
    assert rt.keyring.decrypt(after.access_token) != rt.keyring.decrypt(before.access_token)
    assert after.token_expires_at > before.token_expires_at and after.refresh_at > clock.now
    post = upload(live, headers)  # the new token publishes
    run_queue(rt, clock)
    assert read(live, headers, post["id"])["targets"][0]["status"] == "published"


def test_a_refused_periodic_refresh_expires_the_account_with_its_event(
        live, headers, account, hook, httpserver, emulator, rt, clock):
    days = (stored(account).refresh_at - clock.now).days + 1
    clock.advance(days=days)
    emulator.advance(days * 86400)
    emulator.fail_refresh()
    assert tokens.refresh_due_tokens(rt) == {account: "expired"}
    run_queue(rt, clock)  # sends the event
    assert stored(account).status == "expired"
    assert [e["event"] for e in events(httpserver)] == ["account.expired"]


@pytest.mark.parametrize("status", [503, 429])
def test_a_refresh_the_platform_cannot_answer_leaves_the_account_active_and_tries_later(
        live, headers, account, emulator, rt, clock, status):
    days = (stored(account).refresh_at - clock.now).days + 1
    clock.advance(days=days)
    emulator.advance(days * 86400)
    emulator.fail("GET", r"/refresh_access_token$", status, {"error": {"message": "busy", "code": 2}})
    assert tokens.refresh_due_tokens(rt) == {account: "failed"}
    assert stored(account).status == "active" and stored(account).refresh_at > clock.now


def test_the_delivery_of_an_account_event_names_the_account_and_no_post(
        live, headers, account, hook, httpserver, emulator, rt, clock):
    emulator.revoke_tokens()
    upload(live, headers)
    run_queue(rt, clock)
    answer = requests.get(f"{live}/v1/webhooks/{hook['id']}/deliveries", headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text  # the answer is validated against openapi.yaml too
    [delivery] = [d for d in answer.json()["data"] if d["event"] == "account.expired"]
    assert (delivery["account_id"], delivery["post_id"], delivery["target_id"]) == (account, None, None)
