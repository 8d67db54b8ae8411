"""Driving a platform adapter's `publish` step by step, as the engine would, against an
emulator over real HTTP on loopback (the vocabulary of tests/platforms/*/test_adapter.py).

A test module defines `emulator` (its platform's, reset) and imports the fixtures here:
`clocks`, `http` (the platform's hosts sent to the emulator), `app`, `outbound` and `step`.
`RecordingStep` is base.Step with a `save` that records every state as the engine would
store it (and may kill the worker right after one); `Clocks` moves our clock and the
emulator's together; `publish_to_the_end` runs steps, waiting and retrying with the saved
state, until one is Done.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
from dataclasses import dataclass, field

import pytest

from fanout.outbound.client import Outbound
from fanout.platforms.base import App, Done, Job, Wait
from fanout.platforms.http import PlatformHttp, parse_hosts

from .conftest import FakeClock, FakeResolver
from .emulators.clock import EmulatorClock


class Killed(Exception):
    """The worker died (in a test: right after a state was saved)."""


@dataclass
class Clocks:
    """Ours and the emulator's, moved together."""

    ours: FakeClock
    platform: EmulatorClock

    def advance(self, seconds: float) -> None:
        self.ours.advance(seconds=seconds)
        self.platform.advance(seconds)

    def to(self, moment: dt.datetime) -> None:
        if moment > self.ours.now:
            self.advance((moment - self.ours.now).total_seconds())


@dataclass
class RecordingStep:
    """base.Step as the engine gives it, with `save` recording what it would store, and
    how many calls the emulator had received at that moment."""

    http: PlatformHttp
    settings: object
    clock: FakeClock
    emulator: object  # an EmulatorServer
    kill_after_save: int | None = None  # die right after the save with this index
    saved: list = field(default_factory=list)
    calls_at_save: list = field(default_factory=list)
    outbound: object = None  # fanout.outbound.client.Outbound, for adapters that fetch media themselves
    # (since, workspace) -> how many posts the engine would count (base.Step.published).
    recent: object = None
    minute: dict = field(default_factory=dict)  # per_minute's log, by key

    def now(self) -> dt.datetime:
        return self.clock()

    def sleep(self, seconds: float) -> None:
        raise AssertionError("a platform adapter never sleeps")

    def published(self, since: dt.datetime, *, workspace: bool = False) -> int:
        return self.recent(since, workspace) if self.recent else 0

    def per_minute(self, key: str, limit: int) -> bool:
        """Calls counted per key over the step's clock, as the engine's limiter would."""
        now = self.clock()
        log = self.minute.setdefault(key, [])
        log[:] = [t for t in log if t > now - dt.timedelta(seconds=60)]
        if len(log) >= limit:
            return False
        log.append(now)
        return True

    def save(self, state) -> None:
        self.saved.append(json.loads(json.dumps(dict(state))))
        self.calls_at_save.append(len(self.emulator.calls))
        if self.kill_after_save is not None and len(self.saved) - 1 == self.kill_after_save:
            raise Killed()


def publish_to_the_end(adapter, make_step, job: Job, clocks: Clocks, *, steps: int = 30, **step_kwargs):
    """Steps of `adapter.publish` as the engine runs them, until one is Done; answers (the
    Done, the results before it, the step of the last run)."""
    results = []
    for _ in range(steps):
        run = make_step(**step_kwargs)
        result = adapter.publish(run, job)
        results.append(result)
        if isinstance(result, Done):
            return result, results, run
        clocks.to(result.until if isinstance(result, Wait) else result.after)
        job = dataclasses.replace(job, state=result.state)
    raise AssertionError(f"not done after {steps} steps: {results[-3:]}")


def publish_after_a_death(adapter, make_step, job: Job, clocks: Clocks, killed_after: int, *,
                          may_outlive: bool = False):
    """A worker killed right after save `killed_after` of `adapter.publish`, then the job
    resumed from the state stored last, to the end, as `publish_to_the_end` answers.
    `may_outlive`: the first step may end before that save, and so live."""
    run = make_step(kill_after_save=killed_after)
    if may_outlive:
        try:
            adapter.publish(run, job)
        except Killed:
            pass
    else:
        with pytest.raises(Killed):
            adapter.publish(run, job)
    resumed = dataclasses.replace(job, state=run.saved[-1] if run.saved else {})
    return publish_to_the_end(adapter, make_step, resumed, clocks)


def graph_error(code: int, message: str = "An unexpected error has occurred.", subcode: int | None = None) -> dict:
    """A Graph error envelope, as Meta sends it."""
    error = {"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "AbC"}
    if subcode is not None:
        error["error_subcode"] = subcode
    return {"error": error}


def image(media, name: str = "photo.jpg") -> dict:
    return {"url": media.url(name), "type": "image"}


def video(media, name: str = "clip.mp4") -> dict:
    return {"url": media.url(name), "type": "video"}


@pytest.fixture
def clocks(emulator) -> Clocks:
    return Clocks(FakeClock(emulator.clock.now().replace(tzinfo=None)), emulator.clock)


@pytest.fixture
def http(emulator) -> PlatformHttp:
    return PlatformHttp(parse_hosts(emulator.hosts_setting), timeout=(2.0, 5.0))


@pytest.fixture
def app() -> App:
    return App("app-id", "app-secret")


@pytest.fixture
def outbound() -> Outbound:
    """What adapters that fetch media themselves fetch it with: http allowed, the media
    server's name resolved on loopback."""
    return Outbound(resolve=FakeResolver(), insecure=True, deadline=30.0, user_agent="Fanout-Media/1")


@pytest.fixture
def step(http, settings, clocks, emulator, outbound):
    """Makes a RecordingStep on the test's settings (or others given) and clock (keyword
    arguments: its own)."""
    def make(settings=settings, **kwargs) -> RecordingStep:
        return RecordingStep(http, settings, clocks.ours, emulator, outbound=outbound, **kwargs)
    return make
