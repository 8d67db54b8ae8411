"""PlatformHttp (fanout/platforms/http.py) against the Instagram emulator: every Instagram
host reaches it through the FANOUT_PLATFORM_HOSTS it prints, and an answer it drops after
publishing is a failure that may have been acted upon.

Here rather than in tests/emulators/instagram/, as tests/emulators never imports the service."""
from __future__ import annotations

import pytest

from fanout.platforms.http import PlatformHttp, PlatformUnreachable, parse_hosts

from ...emulators.conftest import instagram, media_server  # noqa: F401 (fixtures)
from ...emulators.instagram import HOSTS

USER = "17841400000000002"


@pytest.fixture
def token(instagram) -> str:
    """A long-lived token of the default user with both publishing scopes."""
    return instagram.issue_token()


def test_through_the_service_http_client_every_host_reaches_the_emulator(instagram, token, media_server):
    http = PlatformHttp(parse_hosts(instagram.hosts_setting))
    for host in HOSTS:
        assert http.get(f"https://{host}/v25.0/me", params={"access_token": token}).json() == {"id": USER}
    created = http.post(f"https://graph.instagram.com/v25.0/{USER}/media",
                        data={"image_url": media_server.url("/photo.jpg"), "access_token": token}).json()
    instagram.drop("POST", r"/media_publish$")
    with pytest.raises(PlatformUnreachable) as lost:
        http.post(f"https://graph.instagram.com/v25.0/{USER}/media_publish",
                  data={"creation_id": created["id"], "access_token": token})
    assert lost.value.sent is True and len(instagram.posts[USER]) == 1
