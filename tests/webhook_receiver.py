"""A webhook receiver for the in-process webhook tests: `httpserver` on loopback, which the
service may deliver to in the local-development setting, and registrations to it."""
import pytest

from fanout.outbound.client import Outbound


@pytest.fixture
def insecure_urls() -> bool:
    return True  # the receivers are http endpoints on loopback


def reachable(rt, resolver, httpserver):
    """`httpserver`, made a loopback endpoint the service delivers to."""
    resolver.names["localhost"] = ["127.0.0.1"]
    rt.outbound = Outbound(resolve=rt.resolve, insecure=True, deadline=2.0)
    return httpserver


@pytest.fixture
def receiver(rt, resolver, httpserver):
    """A loopback endpoint; the local-development setting lets the service reach it."""
    return reachable(rt, resolver, httpserver)


def register(client, auth, url, events=("post.completed", "post.failed")):
    answer = client.post("/v1/webhooks", headers=auth, json={"url": url, "events": list(events)})
    assert answer.status_code == 201, answer.text
    return answer.json()


def register_failing(client, auth, receiver, **kwargs) -> dict:
    """A registration to the receiver's /down, which answers every delivery 500."""
    receiver.expect_request("/down").respond_with_data("no", status=500)
    return register(client, auth, receiver.url_for("/down"), **kwargs)
