"""The pages an end user sees name each platform as people know it, never by its API id."""
import pytest

from fanout.platforms import NAMES as TITLES

from ..conftest import open_connect_url, run_queue, upload_post

NAMES = {"instagram": "Instagram", "threads": "Threads", "tiktok": "TikTok", "x": "X"}


@pytest.mark.parametrize("platform", ["tiktok", "x"])
def test_the_confirmation_page_names_the_platform(client, auth, platform):
    started = client.post(f"/v1/accounts/{platform}/connect", headers=auth, json={})
    landed = open_connect_url(client, started.json()["url"])
    page = client.get(landed.headers["location"].replace("http://connect.testserver", ""))
    assert f"Your {NAMES[platform]} account is connected." in page.text


def test_the_unknown_platform_page_names_the_platforms_there_are(client):
    page = client.get("/connect/myspace?session=abc")
    assert page.status_code == 404
    titles = list(TITLES.values())
    assert f"Fanout connects {', '.join(titles[:-1])} and {titles[-1]}." in page.text


def test_the_sandbox_page_names_the_platform(client, auth, accounts, rt, clock):
    post = upload_post(client, auth)  # to x, threads and instagram
    run_queue(rt, clock)
    for target in client.get(f"/v1/posts/{post['id']}", headers=auth).json()["targets"]:
        page = client.get(target["external_url"].replace("http://testserver", ""))
        assert f"<title>Sandbox {NAMES[target['platform']]} post" in page.text
