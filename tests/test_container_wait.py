"""Waiting for a Threads container through a real `fanout worker` process and the Threads
emulator on loopback, its clock following real time (docs/platforms.md#waiting-for-a-platform):
when the worker reads a container again, as the times it parks the target until, and when
it gives up. Nothing is timed: the times come from the database, the reads from the
emulator's call log."""
from __future__ import annotations

import datetime as dt
import signal

import pytest

from fanout.models import Target, db
from fanout.models.account import connect_account

from .conftest import bearer, start_worker, wait_for
from .emulators.clock import EmulatorClock
from .emulators.threads import ThreadsEmulator

USER_ID, USERNAME = "25025320001", "emu_threads"
WINDOW = 5  # FANOUT_THREADS_CONTAINER_WINDOW of the worker


@pytest.fixture(scope="module")
def threads_server():
    with ThreadsEmulator("app-id", "app-secret", users=[(USER_ID, USERNAME)],
                         clock=EmulatorClock(follow_real_time=True)) as server:
        yield server


@pytest.fixture
def emulator(threads_server):
    threads_server.reset()
    for media_type, seconds in ThreadsEmulator.DEFAULT_PROCESSING.items():  # reset() keeps them
        threads_server.set_processing_time(media_type, seconds)
    yield threads_server
    assert not threads_server.errors, threads_server.errors[0]


@pytest.fixture
def account(rt, workspace, emulator):
    with db.connection_context():
        return connect_account(rt, workspace.id, platform="threads", sandbox=False, platform_user_id=USER_ID,
                               username=USERNAME, access_token=emulator.issue_token(USER_ID))


@pytest.fixture
def worker(process_env, emulator, tmp_path):
    """A worker publishing to the emulator, with a Threads app and a 5-second window."""
    process = start_worker({**process_env, "FANOUT_PLATFORM_HOSTS": emulator.hosts_setting,
                            "FANOUT_THREADS_CLIENT_ID": "app-id", "FANOUT_THREADS_CLIENT_SECRET": "app-secret",
                            "FANOUT_THREADS_CONTAINER_WINDOW": str(WINDOW)}, tmp_path / "worker.log")
    yield process
    process.send_signal(signal.SIGINT)
    process.wait(30)


def publish(client, live_key, real_queue, account, caption: str) -> str:
    answer = client.post("/v1/upload", headers=bearer(live_key), json={"caption": caption, "account_ids": [account.id]})
    assert answer.status_code == 201, answer.text
    target_id = answer.json()["targets"][0]["id"]
    real_queue.publish(target_id)
    return target_id


def watch(target_id: str) -> tuple[Target, list[dt.timedelta]]:
    """The target once final, and each time it was parked until, from its container's creation."""
    parks: list[dt.datetime] = []

    def final():
        with db.connection_context():
            row = Target.get_by_id(target_id)
        if row.next_check_at is not None and row.next_check_at not in parks:
            parks.append(row.next_check_at)
        return row if row.status in ("published", "failed") else None

    row = wait_for(final, seconds=60, what="the target to be published or failed")
    state = row.saved_state  # a published post's container is kept with it in `thread`
    container = state["container"] if "container" in state else state["thread"][0]["container"]
    created = dt.datetime.fromisoformat(container["created_at"])
    return row, [moment - created for moment in parks]


def status_reads(emulator) -> int:
    return len([c for c in emulator.calls if c.method == "GET" and c.query.get("fields") == "status,error_message"])


def test_a_container_never_ready_is_read_1_and_3_s_after_it_was_made_and_given_up_at_the_windows_end(
        client, live_key, real_queue, account, emulator, worker):
    emulator.force_next_container("IN_PROGRESS")
    row, parks = watch(publish(client, live_key, real_queue, account, "never ready"))
    assert (row.status, row.error_code) == ("failed", "container_expired")
    assert parks[0] == dt.timedelta(seconds=1) and parks[-1] == dt.timedelta(seconds=WINDOW)
    # A check that ran late may skip one: the rest are on the schedule, the window's end the last.
    assert set(parks) <= {dt.timedelta(seconds=s) for s in (1, 3, WINDOW)}
    assert status_reads(emulator) == len(parks) + 1 and emulator.calls_to("POST", "/threads_publish$") == []


def test_a_container_ready_after_3_s_is_published_at_the_check_3_s_after_it_was_made(
        client, live_key, real_queue, account, emulator, worker):
    emulator.set_processing_time("TEXT", 3)
    row, parks = watch(publish(client, live_key, real_queue, account, "a few seconds"))
    assert row.status == "published" and row.external_url == emulator.posts[USER_ID][0].permalink
    assert parks[0] == dt.timedelta(seconds=1)
    assert set(parks) <= {dt.timedelta(seconds=1), dt.timedelta(seconds=3)}
    assert status_reads(emulator) == len(parks) + 1
