"""When an adapter looks again at work a platform is still doing (fanout/platforms/polling.py):
one schedule for every platform, time given to it."""
from __future__ import annotations

import datetime as dt

from fanout.platforms.polling import next_check

START = dt.datetime(2026, 11, 22, 10, 0)


def seconds(*values: float) -> list[dt.timedelta]:
    return [dt.timedelta(seconds=v) for v in values]


def checks(count: int, *, most: float, deadline: float | None = None) -> list[dt.timedelta]:
    """The first `count` checks after START, each made the moment it was due."""
    now, found = START, []
    end = START + dt.timedelta(seconds=deadline) if deadline is not None else None
    for _ in range(count):
        now = next_check(START, now, most=dt.timedelta(seconds=most), deadline=end)
        found.append(now - START)
    return found


def test_checks_come_1_2_4_8_15_and_30_s_apart_then_at_the_platforms_pace():
    assert checks(9, most=30) == seconds(1, 3, 7, 15, 30, 60, 90, 120, 150)
    assert checks(9, most=60) == seconds(1, 3, 7, 15, 30, 60, 120, 180, 240)


def test_no_wait_is_longer_than_the_platforms_pace():
    assert checks(7, most=10) == seconds(1, 3, 7, 15, 25, 35, 45)


def test_a_check_made_late_does_not_push_the_next_ones_later():
    most = dt.timedelta(seconds=30)
    assert next_check(START, START + dt.timedelta(seconds=4.5), most=most) == START + dt.timedelta(seconds=7)
    assert next_check(START, START + dt.timedelta(seconds=100), most=most) == START + dt.timedelta(seconds=120)


def test_a_check_made_on_time_is_followed_by_the_next_one_not_by_itself():
    most = dt.timedelta(seconds=30)
    assert next_check(START, START + dt.timedelta(seconds=3), most=most) == START + dt.timedelta(seconds=7)
    assert next_check(START, START + dt.timedelta(seconds=60), most=most) == START + dt.timedelta(seconds=90)


def test_work_that_started_after_the_step_began_is_checked_a_second_after_it_started():
    started = START + dt.timedelta(milliseconds=40)  # the call that started it answered during the step
    assert next_check(started, START, most=dt.timedelta(seconds=30)) == started + dt.timedelta(seconds=1)


def test_the_last_check_falls_on_the_deadline():
    assert checks(4, most=30, deadline=5) == seconds(1, 3, 5, 5)
    assert checks(7, most=30, deadline=45) == seconds(1, 3, 7, 15, 30, 45, 45)


def test_the_platforms_hint_is_when_to_look_again_within_a_second_and_its_pace():
    most = dt.timedelta(seconds=60)
    now = START + dt.timedelta(seconds=20)
    assert next_check(START, now, most=most, hint=4) == now + dt.timedelta(seconds=4)
    assert next_check(START, now, most=most, hint=0) == now + dt.timedelta(seconds=1)
    assert next_check(START, now, most=most, hint=-30) == now + dt.timedelta(seconds=1)
    assert next_check(START, now, most=most, hint=600) == now + most
    assert next_check(START, now, most=most, hint=10 ** 30) == now + most  # no overflow
    soon = now + dt.timedelta(seconds=5)
    assert next_check(START, now, most=most, hint=30, deadline=soon) == soon
