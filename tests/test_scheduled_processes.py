"""Posts in time on real processes, through HTTP (docs/decisions.md#posts-in-time): a post
scheduled a few seconds ahead on `fanout serve`, one scheduled while no worker runs, and
edits and cancels racing the due time. On the embedded default, and on PostgreSQL + Redis
when the suite runs there (FANOUT_DATABASE_URL, FANOUT_QUEUE_URL)."""
import datetime as dt
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from fanout.models import Event, db
from fanout.tasks import make_queue
from fanout.times import isoformat, parse_isoformat

from .conftest import connect_on_server, start_worker, wait_for, workspace_with_key

LONG = "x" * 300  # over x's 280: a target publishing it fails caption_too_long


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def sandbox_workspace(rt, server) -> dict:
    """A BUSINESS workspace's sandbox key, made in this test's database (the server shares
    it), and an x account connected through the server."""
    _, headers = workspace_with_key(rt, "BUSINESS", "Later")
    connect_on_server(server.url, headers, "x")
    return headers


def schedule(server, headers, at: dt.datetime, caption="on time") -> dict:
    answer = requests.post(f"{server.url}/v1/upload", headers=headers, timeout=10, json={
        "caption": caption, "platforms": ["x"], "scheduled_at": isoformat(at)})
    assert answer.status_code == 201, answer.text
    return answer.json()


def read(server, headers, post_id) -> requests.Response:
    return requests.get(f"{server.url}/v1/posts/{post_id}", headers=headers, timeout=10)


def test_a_post_scheduled_2_s_ahead_is_pending_until_then_and_completed_within_3_s_after(rt, servers,
                                                                                         process_env):
    """A real process: its queue's scheduler wakes the post at its time, by the real clock
    (no claim before it, on a test clock: tests/test_scheduling.py)."""
    server = servers("serve", process_env)
    headers = sandbox_workspace(rt, server)
    at = utc_now() + dt.timedelta(seconds=2)  # the upload's answer takes a small part of it
    post = schedule(server, headers, at)
    time.sleep(max((at - utc_now()).total_seconds() - 0.5, 0))
    assert read(server, headers, post["id"]).json()["status"] == "pending"  # half a second before its time

    def completed():
        got = read(server, headers, post["id"]).json()
        return got if got["status"] == "completed" else None

    done = wait_for(completed, 10, "the post to publish")
    assert utc_now() <= at + dt.timedelta(seconds=3)
    published_at = parse_isoformat(done["targets"][0]["published_at"])
    assert at <= published_at <= at + dt.timedelta(seconds=3)


def test_a_post_scheduled_while_no_worker_runs_publishes_once_one_starts(servers, process_env, rt, tmp_path):
    """Real processes: a worker process, on starting, takes what fell due while none ran
    (on a test clock: tests/test_scheduling.py)."""
    server = servers("api", process_env)  # the API alone
    headers = sandbox_workspace(rt, server)
    at = utc_now() + dt.timedelta(seconds=0.5)
    post = schedule(server, headers, at)
    make_queue(rt.settings).flush()  # and its wake-up lost too: the database is the truth
    time.sleep(max((at - utc_now()).total_seconds(), 0) + 0.5)  # its time passes with no worker
    assert read(server, headers, post["id"]).json()["status"] == "pending"
    worker = start_worker(process_env, tmp_path / "worker.log")
    try:
        wait_for(lambda: read(server, headers, post["id"]).json()["status"] == "completed", 15,
                 "the post to publish once a worker runs")
    finally:
        worker.send_signal(2)
        worker.wait(30)


def test_edits_and_cancels_racing_the_due_time_never_contradict_their_answers(rt, servers, process_env):
    """100 posts due at one instant; around it, for each, a PATCH that would make its target
    fail (a caption over x's cap) and a DELETE, 200 requests at once. Whatever each answer,
    what happened must agree with it: a 204 leaves nothing published; a 200 to the edit
    (without a 204) publishes the new caption; two 409s publish the old one. A real
    process: the requests race its worker's claims at once, on its threads (one order at a
    time: tests/test_edits.py)."""
    server = servers("serve", process_env, args=("--threads", "4"))
    headers = sandbox_workspace(rt, server)
    at = utc_now() + dt.timedelta(seconds=6)
    with ThreadPoolExecutor(8) as pool:  # side by side: about 2 s on a busy machine
        posts = list(pool.map(lambda _: schedule(server, headers, at, caption="the old words"), range(100)))
    assert utc_now() < at - dt.timedelta(seconds=1), "the uploads took too long for the race to start before the time"
    rng = random.Random(20261122)
    requests_ = [(post["id"], kind, rng.uniform(-0.4, 0.4)) for post in posts for kind in ("edit", "cancel")]
    rng.shuffle(requests_)
    answers: dict[tuple[str, str], int] = {}
    lock = threading.Lock()
    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=32))

    def send(item) -> None:
        post_id, kind, offset = item
        time.sleep(max((at - utc_now()).total_seconds() + offset, 0))
        url = f"{server.url}/v1/posts/{post_id}"
        answer = (session.patch(url, headers=headers, json={"caption": LONG}, timeout=30) if kind == "edit"
                  else session.delete(url, headers=headers, timeout=30))
        with lock:
            answers[(post_id, kind)] = answer.status_code

    with ThreadPoolExecutor(32) as pool:
        list(pool.map(send, requests_))
    assert set(answers.values()) <= {200, 204, 404, 409}, answers

    def settled(post) -> bool:
        got = read(server, headers, post["id"])
        return got.status_code == 404 or got.json()["status"] in ("completed", "failed")

    wait_for(lambda: all(settled(p) for p in posts), 30, "every post to be published or gone")
    seen = {"cancelled": 0, "edited": 0, "old": 0}
    for post in posts:
        edit, cancel = answers[(post["id"], "edit")], answers[(post["id"], "cancel")]
        got = read(server, headers, post["id"])
        target_id = post["targets"][0]["id"]
        if cancel == 204:
            assert got.status_code == 404, (post["id"], edit, got.text)
            with db.connection_context():
                assert Event.select().where(Event.target == target_id).count() == 0  # nothing was published
            seen["cancelled"] += 1
            continue
        assert cancel == 409 and got.status_code == 200, (post["id"], edit, cancel, got.text)
        [target] = got.json()["targets"]
        if edit == 200:
            assert (target["status"], target["error_code"]) == ("failed", "caption_too_long"), (post["id"], target)
            seen["edited"] += 1
        else:
            assert edit == 409 and target["status"] == "published", (post["id"], edit, target)
            seen["old"] += 1
    assert sum(seen.values()) == 100
