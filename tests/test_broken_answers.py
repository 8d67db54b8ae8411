"""What the engine does with an answer that breaks a platform's contract, raised out of any
adapter, on the kit's steps or not (fanout/tasks/publishing.py, fanout/platforms/contract.py):
the target fails at once with `unknown_platform_error` and the reason, never retried, while
an exception it does not expect is retried (tests/test_unexpected_errors.py). TestSky's
adapter (tests/testsky_world.py) is not built on the kit's steps; the platform client here
refuses its record's answer as the kit's checks do.
"""
from __future__ import annotations

from fanout.models import Target, db
from fanout.models.upload import Draft, create_post
from fanout.platforms.contract import UnusableAnswer
from fanout.tasks import publishing

from .conftest import run_queue
from .test_credentials_connect import link, send  # noqa: F401 (fixtures)
from .testsky_world import live, platforms, port, settings, sky, sky_server  # noqa: F401 (fixtures)
from .threads_world import query_of

CREATE = "/xrpc/com.atproto.repo.createRecord"


class Refusing:
    """The platform client of a worker whose record's answer, once it came back, breaks
    the contract: the record is written, its answer unusable."""

    def __init__(self, inner):
        self.inner = inner

    def url(self, url):
        return self.inner.url(url)

    def request(self, method, url, **kwargs):
        answer = self.inner.request(method, url, **kwargs)
        if url.endswith(CREATE):
            raise UnusableAnswer("the record with a body that is not JSON (HTTP 200: <html>)")
        return answer

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)


def test_a_broken_answer_out_of_an_adapter_fails_the_target_at_once_and_it_is_never_tried_again(
        client, rt, clock, link, sky, workspace):
    account_id = query_of(send(client, link).headers["location"])["account_id"]
    rt.platform_http = Refusing(rt.platform_http)
    draft = Draft(caption="broken once", media=[], sandbox=False, simulate_error=None, account_ids=[account_id],
                  platforms=None, accounts={})
    with db.connection_context():
        _, [target] = create_post(rt, workspace.id, draft)
    publishing.publish_target(rt, target.id)
    with db.connection_context():
        failed = Target.get_by_id(target.id)
    assert (failed.status, failed.error_code) == ("failed", "unknown_platform_error")
    assert failed.error_message == ("TestSky answered the record with a body that is not JSON (HTTP 200: <html>); "
                                    "this server cannot use that answer, so it did not try again")
    for _ in range(30):  # an hour, two minutes at a time: past every retry the engine gives
        clock.advance(seconds=120)
        publishing.sweep(rt)
        run_queue(rt, clock)
    assert len(sky.calls_to("POST", CREATE)) == 1 and len(sky.records) == 1
