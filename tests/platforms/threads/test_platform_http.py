"""PlatformHttp (fanout/platforms/http.py) against the Threads emulator: every Threads host
reaches it through the FANOUT_PLATFORM_HOSTS it prints, and an answer it drops after
publishing is a failure that may have been acted upon.

Here rather than in tests/emulators/threads/, as tests/emulators never imports the service."""
from __future__ import annotations

import pytest

from fanout.platforms.http import PlatformHttp, PlatformUnreachable, parse_hosts

from ...emulators.conftest import threads, token  # noqa: F401 (fixtures)
from ...emulators.threads import HOSTS

USER = "17841400000000001"


def test_through_the_service_http_client_the_drop_is_an_ambiguous_failure(threads, token):
    http = PlatformHttp(parse_hosts(threads.hosts_setting))
    created = http.post(f"https://graph.threads.net/v1.0/{USER}/threads",
                        data={"media_type": "TEXT", "text": "x", "access_token": token}).json()
    threads.drop("POST", r"/threads_publish$")
    with pytest.raises(PlatformUnreachable) as lost:
        http.post(f"https://graph.threads.net/v1.0/{USER}/threads_publish",
                  data={"creation_id": created["id"], "access_token": token})
    assert lost.value.sent is True
    assert len(threads.posts[USER]) == 1


def test_every_threads_host_reaches_the_emulator_through_the_hosts_setting(threads, token):
    http = PlatformHttp(parse_hosts(threads.hosts_setting))
    for host in HOSTS:
        assert http.get(f"https://{host}/v1.0/me", params={"access_token": token}).json() == {"id": USER}
