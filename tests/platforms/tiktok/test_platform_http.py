"""PlatformHttp (fanout/platforms/http.py) against the TikTok emulator: every TikTok host
reaches it through the FANOUT_PLATFORM_HOSTS it prints, and an init whose answer it drops is
a failure that may have been acted upon.

Here rather than in tests/emulators/tiktok/, as tests/emulators never imports the service."""
from __future__ import annotations

import pytest

from fanout.platforms.http import PlatformHttp, PlatformUnreachable, parse_hosts

from ...emulators.conftest import Api, tiktok  # noqa: F401 (fixtures)
from ...emulators.tiktok import HOSTS
from ...emulators.tiktok.test_tiktok_emulator import INIT, OPEN_ID, file_source, post_info


@pytest.fixture
def api(tiktok) -> Api:
    """Calls with the default creator's access token (every scope)."""
    return Api(tiktok.base_url, tiktok.issue_token()[0])


def test_an_init_dropped_after_its_effect_leaves_a_publish_the_client_never_heard_of(tiktok, api):
    http = PlatformHttp(parse_hosts(tiktok.hosts_setting))
    tiktok.drop("POST", "/video/init/$")
    with pytest.raises(PlatformUnreachable) as lost:
        http.post("https://open.tiktokapis.com" + INIT, json_body={"post_info": post_info(),
                                                                    "source_info": file_source(1000)},
                  headers={"Authorization": f"Bearer {api.token}"})
    assert lost.value.sent is True and len(tiktok.posts[OPEN_ID]) == 1


def test_through_the_service_http_client_every_host_reaches_the_emulator(tiktok, api):
    http = PlatformHttp(parse_hosts(tiktok.hosts_setting))
    for host in HOSTS:
        answer = http.get(f"https://{host}/v2/user/info/?fields=open_id",
                          headers={"Authorization": f"Bearer {api.token}"})
        assert answer.json()["data"]["user"]["open_id"] == OPEN_ID
