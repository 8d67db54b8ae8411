"""PlatformHttp (fanout/platforms/http.py) against the X emulator: every X host reaches it
through the FANOUT_PLATFORM_HOSTS it prints, and a post whose answer it drops is a failure
that may have been acted upon.

Here rather than in tests/emulators/x/, as tests/emulators never imports the service."""
from __future__ import annotations

import pytest

from fanout.platforms.http import PlatformHttp, PlatformUnreachable, parse_hosts

from ...emulators.conftest import Api, x  # noqa: F401 (fixtures)
from ...emulators.x import HOSTS

USER = "1600000000000000001"


@pytest.fixture
def api(x) -> Api:
    """Calls with the default user's access token (every publishing scope)."""
    return Api(x.base_url, x.issue_token()[0])


def test_a_post_dropped_after_its_effect_is_found_in_the_users_timeline(x, api):
    http = PlatformHttp(parse_hosts(x.hosts_setting))
    x.drop("POST", "/2/tweets$")
    with pytest.raises(PlatformUnreachable) as lost:
        http.post("https://api.x.com/2/tweets", json_body={"text": "lost answer"},
                  headers={"Authorization": f"Bearer {api.token}"})
    assert lost.value.sent is True
    [found] = api("GET", f"/2/users/{USER}/tweets").json()["data"]
    assert found["text"] == "lost answer" and found["id"] == x.posts[USER][0].id


def test_through_the_service_http_client_every_host_reaches_the_emulator(x, api):
    http = PlatformHttp(parse_hosts(x.hosts_setting))
    for host in HOSTS:
        answer = http.get(f"https://{host}/2/users/me", headers={"Authorization": f"Bearer {api.token}"})
        assert answer.json()["data"]["id"] == USER
