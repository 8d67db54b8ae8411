"""Per-platform content live, through HTTP only (openapi.yaml `Overrides`): the app on a
real loopback server with apps for all four platforms and their emulators, a browser for
the connect flows, a media server; the queue run by the test as a worker would. One upload
with each platform's own content, read back from the emulators; a worker killed at every
call of a thread and of a first comment; a first comment the platform refuses, in the
webhook event.
"""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import requests


from ..adapter_steps import graph_error
from ..conftest import run_queue
from .threads.test_live import events, publish_with_a_death
from .live import insecure_urls, instagram_server, tiktok_server, x_server  # noqa: F401 (fixtures)
from .tiktok.test_live import OPEN_ID, media, settings, tt, upload_method, verified  # noqa: F401 (fixtures)
from ..threads_world import (  # noqa: F401 (fixtures)
    browser, connect, emulator, headers, hook, live, port, served_with, threads_server,
)
from ..threads_world import USER_ID as THREADS_USER

X_USER, IG_USER = "1600000000000000001", "17841400000000002"
EVENT_SCHEMA = Path(__file__).resolve().parents[2] / "contracts" / "events" / "post_event.schema.json"


@pytest.fixture
def verified() -> tuple[str, ...]:
    return ("127.0.0.1",)  # TikTok pulls the photos from the media server


# The four platforms whose emulators this world serves (Bluesky and LinkedIn have their
# own: tests/platforms/bluesky/, tests/platforms/linkedin/).
FOUR = ("instagram", "threads", "tiktok", "x")


@pytest.fixture
def ids(browser, live, headers, tt, emulator, x_server, instagram_server) -> dict:
    """An account on each platform, connected through the browser, by platform."""
    for server, name in ((x_server, "x"), (instagram_server, "instagram")):
        server.reset()
        server.redirect_uris = {f"{live}/connect/{name}/callback"}
    return {p: connect(browser, live, headers, p)["account_id"] for p in FOUR}


def upload(live, headers, **body) -> dict:
    answer = requests.post(f"{live}/v1/upload", headers=headers, timeout=10, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def read(live, headers, post_id) -> dict:
    return requests.get(f"{live}/v1/posts/{post_id}", headers=headers, timeout=10).json()


def run_a_while(rt, clock, servers, minutes: int = 3) -> None:
    for _ in range(minutes):
        run_queue(rt, clock)
        clock.advance(seconds=60)
        for server in servers:
            server.advance(60)
    run_queue(rt, clock)


def test_one_upload_to_all_four_publishes_each_platforms_own_content(
        live, headers, ids, tt, emulator, x_server, instagram_server, media, rt, clock):
    photo = {"url": media.url("photo.jpg"), "type": "image"}
    post = upload(live, headers, caption="Launch day", media=[photo],
                  platforms=list(FOUR), overrides={
                      "x": {"caption": "Launch day, short for X", "media": [],
                            "thread": [{"caption": "X part two"}, {"caption": "X part three"}]},
                      "threads": {"thread": [{"caption": "Threads part two"}, {"caption": "Threads part three"}]},
                      "instagram": {"first_comment": "The link: https://shop.example.com/launch"},
                      "tiktok": {"options": {"privacy_level": "MUTUAL_FOLLOW_FRIENDS"}},
                  })
    shown = {t["platform"]: (t["caption"], t["media"]) for t in post["targets"]}
    assert shown == {"x": ("Launch day, short for X", []), "threads": (None, None), "instagram": (None, None),
                     "tiktok": (None, None)}
    run_a_while(rt, clock, (tt, emulator, x_server, instagram_server))
    done = read(live, headers, post["id"])
    assert done["status"] == "completed", done
    urls = {t["platform"]: t["external_url"] for t in done["targets"]}

    on_x = x_server.posts[X_USER]
    assert [p.text for p in on_x] == ["Launch day, short for X", "X part two", "X part three"]
    assert x_server.chain(on_x[-1].id) == on_x and on_x[0].media_ids == ()
    assert urls["x"].endswith(f"/status/{on_x[0].id}")

    on_threads = emulator.posts[THREADS_USER]
    assert [(p.text, p.media_type) for p in on_threads] == [
        ("Launch day", "IMAGE"), ("Threads part two", "TEXT_POST"), ("Threads part three", "TEXT_POST")]
    assert emulator.chain(on_threads[-1].id) == on_threads and urls["threads"] == on_threads[0].permalink

    [on_instagram] = instagram_server.posts[IG_USER]
    [comment] = instagram_server.comments[on_instagram.id]
    assert on_instagram.caption == "Launch day" and urls["instagram"] == on_instagram.permalink
    assert comment.text == "The link: https://shop.example.com/launch"

    [on_tiktok] = tt.posts[OPEN_ID]
    assert (on_tiktok.description, on_tiktok.privacy_level, on_tiktok.media) == (
        "Launch day", "MUTUAL_FOLLOW_FRIENDS", "photo")
    assert all(t["first_comment_error"] is None for t in done["targets"])


def test_overrides_changed_by_a_patch_are_what_each_platform_gets(
        live, headers, ids, emulator, x_server, rt, clock):
    post = upload(live, headers, caption="Launch day", platforms=["x", "threads"],
                  overrides={"x": {"caption": "the old words for X"}})
    answer = requests.patch(f"{live}/v1/posts/{post['id']}", headers=headers, timeout=10, json={"overrides": {
        "x": {"caption": "the new words for X", "thread": [{"caption": "X part two"}]},
        "threads": {"first_comment": "a reply on Threads"}}})
    assert answer.status_code == 200, answer.text
    assert {t["platform"]: t["caption"] for t in answer.json()["targets"]} == {
        "x": "the new words for X", "threads": None}
    run_a_while(rt, clock, (emulator, x_server))
    assert read(live, headers, post["id"])["status"] == "completed"
    on_x = x_server.posts[X_USER]
    assert [p.text for p in on_x] == ["the new words for X", "X part two"] and x_server.chain(on_x[1].id) == on_x
    on_threads = emulator.posts[THREADS_USER]
    assert [p.text for p in on_threads] == ["Launch day", "a reply on Threads"]
    assert on_threads[1].reply_to_id == on_threads[0].id


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_x_thread_and_its_comment_leaves_each_post_once(
        live, headers, ids, x_server, rt, clock, after):
    n = 1
    while True:
        before = len(x_server.posts[X_USER])
        post = upload(live, headers, caption=f"one {n} {after}", platforms=["x"], overrides={"x": {
            "thread": [{"caption": f"two {n} {after}"}, {"caption": f"three {n} {after}"}],
            "first_comment": f"comment {n} {after}"}})
        died = publish_with_a_death(rt, clock, n, after)
        [target] = read(live, headers, post["id"])["targets"]
        made = x_server.posts[X_USER][before:]
        assert [p.text for p in made] == [f"one {n} {after}", f"two {n} {after}", f"three {n} {after}",
                                          f"comment {n} {after}"], f"death at call {n}"
        assert x_server.chain(made[2].id) == made[:3] and made[3].in_reply_to == made[0].id
        assert (target["status"], target["first_comment_error"]) == ("published", None), (n, target)
        assert target["external_url"].endswith(made[0].id)
        if not died:
            break  # the thread needs fewer calls than n: every boundary was tried
        n += 1
    assert n > 4  # four posts, one call each


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_a_threads_thread_leaves_each_part_once(
        live, headers, ids, emulator, rt, clock, after):
    n = 1
    while True:
        before = len(emulator.posts[THREADS_USER])
        post = upload(live, headers, caption=f"one {n} {after}", platforms=["threads"], overrides={"threads": {
            "thread": [{"caption": f"two {n} {after}"}, {"caption": f"three {n} {after}"}]}})
        died = publish_with_a_death(rt, clock, n, after)
        [target] = read(live, headers, post["id"])["targets"]
        made = emulator.posts[THREADS_USER][before:]
        assert [p.text for p in made] == [f"one {n} {after}", f"two {n} {after}", f"three {n} {after}"], n
        assert emulator.chain(made[2].id) == made
        assert (target["status"], target["external_url"]) == ("published", made[0].permalink), (n, target)
        if not died:
            break
        n += 1
    assert n > 12


@pytest.mark.parametrize("after", [False, True], ids=["before-the-call", "after-the-answer"])
def test_a_worker_killed_at_any_call_of_an_instagram_post_and_its_first_comment_leaves_one_of_each(
        live, headers, ids, instagram_server, media, rt, clock, after):
    photo = {"url": media.url("photo.jpg"), "type": "image"}
    n = 1
    while True:
        before = len(instagram_server.posts[IG_USER])
        post = upload(live, headers, caption=f"post {n} {after}", media=[photo], platforms=["instagram"],
                      overrides={"instagram": {"first_comment": f"comment {n} {after}"}})
        died = publish_with_a_death(rt, clock, n, after)
        [target] = read(live, headers, post["id"])["targets"]
        [made] = instagram_server.posts[IG_USER][before:]
        assert [c.text for c in instagram_server.comments.get(made.id, [])] == [f"comment {n} {after}"], n
        assert (target["status"], target["external_url"]) == ("published", made.permalink), (n, target)
        if not died:
            break
        n += 1
    assert n > 6


def test_a_first_comment_the_platform_refuses_leaves_the_target_published_and_says_so_in_the_event(
        live, headers, ids, hook, httpserver, instagram_server, media, rt, clock):
    instagram_server.fail("POST", r"/comments$", 400, graph_error(100, "(#100) Comments are turned off."))
    post = upload(live, headers, caption="comments off", media=[{"url": media.url("photo.jpg"), "type": "image"}],
                  platforms=["instagram"], overrides={"instagram": {"first_comment": "nobody sees this"}})
    run_queue(rt, clock)
    [target] = read(live, headers, post["id"])["targets"]
    assert target["status"] == "published" and read(live, headers, post["id"])["status"] == "completed"
    said = target["first_comment_error"]
    assert said.startswith("Instagram answered HTTP 400") and "Comments are turned off." in said
    [event] = [e for e in events(httpserver) if e.get("post_id") == post["id"]]
    assert event["event"] == "post.completed" and event["target"]["first_comment_error"] == said
    jsonschema.validate(event, json.loads(EVENT_SCHEMA.read_text()))


def test_a_first_comment_that_keeps_meeting_5xx_is_given_up_and_the_target_stays_published(
        live, headers, ids, instagram_server, media, rt, clock):
    instagram_server.fail("POST", r"/comments$", 503, graph_error(2, "Service temporarily unavailable"), times=None)
    post = upload(live, headers, caption="busy", media=[{"url": media.url("photo.jpg"), "type": "image"}],
                  platforms=["instagram"], overrides={"instagram": {"first_comment": "later, maybe"}})
    run_a_while(rt, clock, (instagram_server,), minutes=60)
    [target] = read(live, headers, post["id"])["targets"]
    assert (target["status"], target["external_url"]) == ("published", instagram_server.posts[IG_USER][0].permalink)
    assert target["first_comment_error"].startswith("gave up after 5 retries: ")
    assert instagram_server.comments == {}


def an_x_thread_whose_second_part_keeps_meeting_5xx(live, headers, x_server, rt, clock):
    """A two-part X thread whose first part goes out and whose second meets 5xx until the
    engine gives up: (the post, its target as read, the part that is out)."""
    post = upload(live, headers, caption="part one", platforms=["x"],
                  overrides={"x": {"thread": [{"caption": "part two"}]}})
    healthy = rt.platform_http
    rt.platform_http = FirstOnly(healthy, x_server)
    run_a_while(rt, clock, (x_server,), minutes=60)
    rt.platform_http = healthy
    [failed] = read(live, headers, post["id"])["targets"]
    [first] = x_server.posts[X_USER]
    return post, failed, first


def test_a_thread_part_that_keeps_meeting_5xx_fails_the_target_naming_the_part_and_what_is_out(
        live, headers, ids, x_server, rt, clock):
    post, failed, first = an_x_thread_whose_second_part_keeps_meeting_5xx(live, headers, x_server, rt, clock)
    assert (failed["status"], failed["error_code"]) == ("failed", "unknown_platform_error")
    assert failed["error_message"].startswith("gave up after 5 retries: ")
    assert failed["error_message"].endswith(f"; part 2 of 2 (thread[0]) was not posted; already published: "
                                            f"https://x.com/emu_x/status/{first.id}")


def test_a_thread_that_fails_after_part_one_gives_the_target_and_its_event_the_part_that_is_out(
        live, headers, ids, hook, httpserver, x_server, rt, clock):
    post, failed, first = an_x_thread_whose_second_part_keeps_meeting_5xx(live, headers, x_server, rt, clock)
    out = [{"index": 0, "external_url": f"https://x.com/emu_x/status/{first.id}"}]
    assert (failed["status"], failed["external_url"], failed["published_parts"]) == ("failed", None, out)
    [event] = [e for e in events(httpserver) if e.get("post_id") == post["id"]]
    assert event["event"] == "post.failed" and event["target"]["published_parts"] == out
    jsonschema.validate(event, json.loads(EVENT_SCHEMA.read_text()))


def test_a_thread_retrying_its_second_part_shows_the_first_as_published_meanwhile(
        live, headers, ids, x_server, rt, clock):
    post = upload(live, headers, caption="part one", platforms=["x"],
                  overrides={"x": {"thread": [{"caption": "part two"}]}})
    healthy = rt.platform_http
    rt.platform_http = FirstOnly(healthy, x_server)
    run_queue(rt, clock)
    rt.platform_http = healthy
    [retrying] = read(live, headers, post["id"])["targets"]
    [first] = x_server.posts[X_USER]
    assert (retrying["status"], retrying["published_parts"]) == (
        "processing", [{"index": 0, "external_url": f"https://x.com/emu_x/status/{first.id}"}])


def test_a_threads_part_refused_fails_the_target_with_the_parts_before_it_in_published_parts(
        live, headers, ids, emulator, rt, clock):
    post = upload(live, headers, caption="part one", platforms=["threads"], overrides={"threads": {
        "thread": [{"caption": "part two"}, {"caption": "part three"}]}})
    healthy = rt.platform_http
    rt.platform_http = RefusedFrom(healthy, emulator, "/threads", 3)
    run_a_while(rt, clock, (emulator,))
    rt.platform_http = healthy
    [failed] = read(live, headers, post["id"])["targets"]
    made = emulator.posts[THREADS_USER]
    assert [p.text for p in made] == ["part one", "part two"]
    assert (failed["status"], failed["error_code"]) == ("failed", "unknown_platform_error")
    assert failed["published_parts"] == [{"index": 0, "external_url": made[0].permalink},
                                         {"index": 1, "external_url": made[1].permalink}]


class RefusedFrom:
    """The platform client of a worker whose Threads refuses the `nth` POST to a path ending
    in `suffix`, and every one after it (a Graph refusal: not retried)."""

    def __init__(self, inner, emulator, suffix: str, nth: int):
        self.inner, self.emulator, self.suffix, self.nth, self.seen = inner, emulator, suffix, nth, 0

    def url(self, url):
        return self.inner.url(url)

    def request(self, method, url, **kwargs):
        if method == "POST" and url.split("?")[0].endswith(self.suffix):
            self.seen += 1
            if self.seen == self.nth:
                self.emulator.fail_graph("POST", rf"{self.suffix}$", 4279013, "User restricted", times=None)
        return self.inner.request(method, url, **kwargs)

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)


class FirstOnly:
    """The platform client of a worker whose X answers every post after the first with 503."""

    def __init__(self, inner, x_server):
        self.inner, self.x_server, self.posted = inner, x_server, 0

    def url(self, url):
        return self.inner.url(url)

    def request(self, method, url, **kwargs):
        if method == "POST" and url.endswith("/2/tweets"):
            self.posted += 1
            if self.posted > 1:
                self.x_server.fail("POST", r"/2/tweets$", 503, {"title": "Service Unavailable", "detail": "busy",
                                                                "type": "about:blank", "status": 503})
        return self.inner.request(method, url, **kwargs)

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)
