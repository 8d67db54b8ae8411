"""The delivery lane: fair shares of the slots per workspace and per registration."""
import threading

import pytest

from fanout.tasks.lane import Lane, Owner

from .conftest import wait_for


class Endpoints:
    """A `send` for the lane whose attempts block until released; records what ran."""

    def __init__(self, owners: dict[str, Owner]):
        self.owners = owners
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running: list[str] = []
        self.started: list[str] = []
        self.most: dict[str, int] = {}

    def owner_of(self, delivery_id):
        return self.owners.get(delivery_id)

    def send(self, delivery_id):
        workspace = self.owners[delivery_id].workspace_id
        with self.lock:
            self.running.append(delivery_id)
            self.started.append(delivery_id)
            now = sum(self.owners[d].workspace_id == workspace for d in self.running)
            self.most[workspace] = max(self.most.get(workspace, 0), now)
        self.release.wait(5)
        with self.lock:
            self.running.remove(delivery_id)


def owners(workspace: str, count: int, webhooks: int = 1) -> dict[str, Owner]:
    return {f"{workspace}-{n}": Owner(workspace, f"{workspace}-wh{n % webhooks}") for n in range(count)}


@pytest.fixture
def lanes():
    started = []

    def make(endpoints, **options):
        lane = Lane(endpoints.send, endpoints.owner_of, **options).start()
        started.append((lane, endpoints))
        return lane

    yield make
    for lane, endpoints in started:
        endpoints.release.set()
        lane.stop(5)


@pytest.mark.parametrize("count, webhooks, slots, share", [
    (20, 10, 8, "per_workspace"),  # a quarter of 8 slots for the workspace
    (6, 1, 16, "per_registration"),  # 4 of 16 for the workspace, 2 for its one registration
])
def test_one_workspace_or_registration_holds_at_most_its_share(lanes, count, webhooks, slots, share):
    endpoints = Endpoints(owners("a", count, webhooks=webhooks))
    lane = lanes(endpoints, slots=slots)
    for delivery_id in endpoints.owners:
        lane.submit(delivery_id)
    wait_for(lambda: len(endpoints.running) == 2, 5, "two attempts")
    assert getattr(lane, share) == 2
    endpoints.release.set()
    wait_for(lambda: len(endpoints.started) == count, 5, "every attempt")
    assert endpoints.most["a"] == 2


def test_another_workspace_is_sent_while_one_workspaces_attempts_hang(lanes):
    endpoints = Endpoints({**owners("a", 20, webhooks=10), **owners("b", 1)})
    lane = lanes(endpoints, slots=8)
    for delivery_id in endpoints.owners:
        if delivery_id.startswith("a"):
            lane.submit(delivery_id)
    wait_for(lambda: len(endpoints.running) == 2, 5, "the hanging attempts")
    lane.submit("b-0")
    wait_for(lambda: "b-0" in endpoints.started, 5, "the other workspace's attempt")
    assert sum(d.startswith("a") for d in endpoints.started) == 2


def sent_in_order(endpoints, submitted: list[str], expected: int, **options) -> list[str]:
    """What a lane sends, in order, of ids all submitted before it starts (one slot unless told)."""
    endpoints.release.set()
    lane = Lane(endpoints.send, endpoints.owner_of, **{"slots": 1, **options})
    for delivery_id in submitted:
        lane.submit(delivery_id)
    lane.start()
    wait_for(lambda: len(endpoints.started) == expected, 5, f"{expected} attempts")
    lane.stop(5)
    return endpoints.started


def test_waiting_workspaces_take_turns():
    endpoints = Endpoints({**owners("a", 3, webhooks=3), **owners("b", 3, webhooks=3)})
    sent = sent_in_order(endpoints, ["a-0", "a-1", "a-2", "b-0", "b-1", "b-2"], 6)
    assert sent == ["a-0", "b-0", "a-1", "b-1", "a-2", "b-2"]


def test_an_id_already_waiting_is_not_queued_twice():
    endpoints = Endpoints(owners("a", 2, webhooks=1))
    assert sent_in_order(endpoints, ["a-0", "a-1", "a-1", "a-0"], 2) == ["a-0", "a-1"]


def test_a_full_backlog_leaves_the_rest_to_the_sweeper():
    endpoints = Endpoints(owners("a", 5, webhooks=5))
    assert sent_in_order(endpoints, list(endpoints.owners), 3, backlog=3) == ["a-0", "a-1", "a-2"]


def test_a_delivery_with_no_owner_is_not_queued():
    endpoints = Endpoints({})
    lane = Lane(endpoints.send, endpoints.owner_of, slots=1)
    lane.submit("gone")
    assert lane.stop(1) and endpoints.started == []


def test_stop_waits_for_running_attempts_and_drops_waiting_ones():
    endpoints = Endpoints(owners("a", 4, webhooks=4))
    lane = Lane(endpoints.send, endpoints.owner_of, slots=4, per_workspace=1).start()
    for delivery_id in endpoints.owners:
        lane.submit(delivery_id)
    wait_for(lambda: len(endpoints.running) == 1, 5, "the first attempt")
    assert lane.stop(0.2) is False  # still running
    endpoints.release.set()
    assert lane.stop(5) is True
    assert endpoints.started == ["a-0"]
