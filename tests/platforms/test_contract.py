"""The adapter kit's contract checks (fanout/platforms/contract.py), one kind of break a
test, and what a step makes of a break (fanout/platforms/steps.py): the target failed at
once with `unknown_platform_error` and what the platform answered, never a retry.
"""
from __future__ import annotations

import datetime as dt
import re

import pytest

from fanout.platforms import REGISTRY
from fanout.platforms.base import Done, Job, Outcome, Part
from fanout.platforms.contract import (
    UnusableAnswer, document, identifier, may_be_out, member, on_hosts, one_of, outcome,
)
from fanout.platforms.http import PlatformResponse
from fanout.platforms.steps import Steps, ThreadSteps

HOSTS = ("open.tiktokapis.com", "open-upload.tiktokapis.com")
DIGITS = re.compile(r"[0-9]{1,20}")


def answer(body: bytes, status: int = 200) -> PlatformResponse:
    return PlatformResponse(status, {"Content-Type": "application/json"}, body)


def broken(check, *args) -> str:
    with pytest.raises(UnusableAnswer) as error:
        check(*args)
    return error.value.what


# --- one kind of break a test ---------------------------------------------------------------

def test_a_body_that_is_not_json_breaks_it_quoting_the_body_without_the_token():
    what = broken(document, answer(b"<html>502 from a proxy for act.secret</html>", 201), "the post", "act.secret")
    assert what == "the post with a body that is not JSON (HTTP 201: <html>502 from a proxy for [hidden]</html>)"


def test_json_that_is_not_an_object_breaks_it():
    assert "JSON that is not an object" in broken(document, answer(b"[1, 2]"), "the post")


def test_a_json_object_is_the_answer():
    assert document(answer(b'{"data": {"id": "1"}}'), "the post") == {"data": {"id": "1"}}


@pytest.mark.parametrize("body, said", [({}, "the init without its data object"),
                                        ({"data": ["x"]}, "the init with its data not an object")])
def test_a_required_object_missing_or_of_another_type_breaks_it(body, said):
    assert broken(member, body, "data", "the init") == said


def test_a_required_id_missing_breaks_it():
    assert broken(identifier, {"id": ""}, "id", "the post", DIGITS) == "the post without its id"


@pytest.mark.parametrize("value", ["../../users/me", {"id": 1}, True, "1" * 21])
def test_an_id_of_the_wrong_shape_breaks_it_quoting_it_short(value):
    what = broken(identifier, {"id": value}, "id", "the post", DIGITS)
    assert what.startswith("the post with its id of the wrong shape (") and len(what) < 120


def test_a_number_where_ids_are_digits_is_taken_as_its_digits():
    assert identifier({"id": 1870000000000000001}, "id", "the post", DIGITS) == "1870000000000000001"


def test_a_status_the_reference_does_not_list_breaks_it_naming_those_it_does():
    what = broken(one_of, "MAYBE_LATER", ("PROCESSING_UPLOAD", "FAILED"), "the post's status")
    assert what == "the post's status with status 'MAYBE_LATER', not one of PROCESSING_UPLOAD, FAILED"


@pytest.mark.parametrize("url, where", [
    ("http://open-upload.tiktokapis.com/video/?upload_token=t0k", "http://open-upload.tiktokapis.com"),
    ("https://127.0.0.2:9/video/?upload_token=t0k", "https://127.0.0.2:9"),
    ("https://open-upload.tiktokapis.com@127.0.0.1/video/?upload_token=t0k", "https://127.0.0.1"),
], ids=["plain-http", "another-host", "a-host-behind-userinfo"])
def test_a_url_off_the_platforms_hosts_breaks_it_naming_where_without_the_query(url, where):
    what = broken(on_hosts, url, HOSTS, "the video's init", "an upload URL")
    assert what == (f"the video's init with an upload URL at {where}, not https on one of its hosts "
                    "(open.tiktokapis.com, open-upload.tiktokapis.com)")


@pytest.mark.parametrize("url, said", [(None, "without an upload URL"), ("https://[upload", "that is not a URL")])
def test_a_url_missing_or_unreadable_breaks_it(url, said):
    assert broken(on_hosts, url, HOSTS, "the video's init", "an upload URL").endswith(said)


def test_a_url_on_one_of_the_hosts_is_the_answer():
    url = "https://open-upload.tiktokapis.com/video/?upload_id=1&upload_token=t"
    assert on_hosts(url, HOSTS, "the video's init") == url


# --- what a break comes to ----------------------------------------------------------------------

def test_a_break_fails_with_unknown_platform_error_saying_it_was_not_retried_and_what_may_be_out():
    failure = outcome("X", UnusableAnswer("the post without its id").after(may_be_out("X")))
    assert failure.error_code == "unknown_platform_error"
    assert failure.error_message == (
        "X answered the post without its id; this server cannot use that answer, so it did not try again; "
        "X may have published it all the same: check the account before posting it again")


START = dt.datetime(2026, 11, 22, 10, 0)


class Step:
    """base.Step enough for a step that calls nothing."""

    def now(self) -> dt.datetime:
        return START


def job(state=None, **kwargs) -> Job:
    return Job(target_id="tgt_1", platform="x", user_id="1", username="someone", access_token="t",
               caption="part one", media=(), state=state or {}, **kwargs)


class Breaking(Steps):
    title = "X"

    def next(self):
        raise UnusableAnswer("the post without its id")


def test_a_step_that_meets_a_break_is_done_failed_at_once():
    result = Breaking(Step(), job()).run()
    assert isinstance(result, Done) and result.outcome.error_code == "unknown_platform_error"
    assert result.outcome.error_message.startswith("X answered the post without its id; ")


class Thread(ThreadSteps):
    """Part one is out; the next post (a part, or the first comment) meets a break."""

    title = "X"

    def next(self):
        self.index = int(self.job.state["at"])
        return self.within_part(self.publish)

    def publish(self):
        raise UnusableAnswer("the post without its id")

    def published(self) -> Outcome:
        return Outcome(external_url="https://x.com/someone/status/1")

    def where(self) -> str:
        return "part 2 of 2 (thread[0]) was not posted; already published: https://x.com/someone/status/1"


def test_a_break_in_a_later_part_fails_naming_the_part_and_what_is_out():
    result = Thread(Step(), job(thread=(Part("part two"),), state={"at": 1})).run()
    assert result.outcome.error_code == "unknown_platform_error"
    assert result.outcome.error_message.startswith("part 2 of 2 (thread[0]) was not posted; already published: "
                                                   "https://x.com/someone/status/1: X answered the post without")


def test_a_break_in_the_first_comment_leaves_the_target_published_saying_why():
    result = Thread(Step(), job(first_comment="first!", state={"at": 1})).run()
    assert result.outcome.published and result.outcome.external_url == "https://x.com/someone/status/1"
    assert result.outcome.first_comment_error.startswith("X answered the post without its id; ")


@pytest.mark.parametrize("platform", sorted(REGISTRY))
def test_every_adapters_steps_name_their_platform_in_what_a_break_says(platform):
    module = REGISTRY[platform].adapter  # the adapter module
    kinds = [k for k in vars(module).values() if isinstance(k, type) and issubclass(k, Steps) and k.__module__ ==
             module.__name__]
    assert kinds and all(k.title == REGISTRY[platform].title for k in kinds), kinds
