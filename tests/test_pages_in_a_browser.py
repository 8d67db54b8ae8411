"""The pages people look at, in a real browser (the `page` fixture, tests/conftest.py): the
connect flow's pages as the end user meets them, and the sandbox post page with its media.
/docs is in tests/test_docs_page.py. Each test leaves a screenshot in its folder."""
from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
import requests
from PIL import Image, ImageDraw

from .conftest import bearer, connect_on_server, is_loopback_url, run_queue
from .threads_world import (  # noqa: F401 (fixtures)
    connect_link, emulator, live, port, query_of, settings, threads_server,
)

MEDIA_HOST = "https://cdn.example.com"  # answered by the test inside the browser: nothing connects


def keep(page, name: str) -> None:
    """A screenshot for a reviewer, in the folder DASHBOARD_SCREENSHOTS names, if it does."""
    if os.environ.get("DASHBOARD_SCREENSHOTS"):
        page.screenshot(path=Path(os.environ["DASHBOARD_SCREENSHOTS"]) / name, full_page=True)


def heading(page) -> str:
    return page.locator("h1").inner_text()


def text(page) -> str:
    return page.locator("body").inner_text()


def test_a_sandbox_connect_ends_on_the_account_connected_page(page, live, sandbox_key):
    page.goto(connect_link(live, bearer(sandbox_key), "x"))
    assert query_of(page.url)["status"] == "connected"
    assert heading(page) == "Account connected"
    assert "Your X account is connected. You can close this window." in text(page)


def test_a_connect_link_opened_again_says_it_was_already_used(page, live, sandbox_key):
    link = connect_link(live, bearer(sandbox_key), "x")
    page.goto(link)
    again = page.goto(link)
    assert again.status == 410
    assert heading(page) == "This connect link was already used"
    assert "Each link works once" in text(page)


def test_refused_consent_ends_on_the_access_was_not_granted_page(page, live, live_key, emulator):
    emulator.deny_consent()
    page.goto(connect_link(live, bearer(live_key), "threads"))
    assert query_of(page.url)["error"] == "access_denied"
    assert heading(page) == "Access was not granted"
    assert "Connecting Threads did not finish (access_denied)." in text(page)


def test_the_retry_link_of_the_access_was_not_granted_page_connects_when_clicked(page, live, live_key, emulator):
    emulator.deny_consent()
    page.goto(connect_link(live, bearer(live_key), "threads"))
    emulator.deny_consent(False)
    page.get_by_role("link", name="Try connecting Threads again").click()
    page.wait_for_load_state()
    assert query_of(page.url)["status"] == "connected"
    assert heading(page) == "Account connected"


def photo(width: int, height: int) -> bytes:
    """A JPEG a person can tell apart on a screenshot: blue, with a white diagonal."""
    image = Image.new("RGB", (width, height), "#2563eb")
    ImageDraw.Draw(image).line([(0, 0), (width, height)], fill="white", width=12)
    out = io.BytesIO()
    image.save(out, "JPEG")
    return out.getvalue()


def test_the_sandbox_post_page_shows_the_posts_image_and_a_player_for_its_video(
        page, live, sandbox_key, rt, clock, tmp_path):
    headers = bearer(sandbox_key)
    connect_on_server(live, headers, "instagram")
    media = [{"url": f"{MEDIA_HOST}/launch.jpg", "type": "image"}, {"url": f"{MEDIA_HOST}/launch.mp4", "type": "video"}]
    created = requests.post(f"{live}/v1/upload", headers=headers, timeout=10,
                            json={"caption": "Launch day", "platforms": ["instagram"], "media": media})
    assert created.status_code == 201, created.text
    run_queue(rt, clock)
    [target] = requests.get(f"{live}/v1/posts/{created.json()['id']}", headers=headers, timeout=10).json()["targets"]
    assert target["status"] == "published", target

    served = []

    def media_host(route) -> None:
        served.append(route.request.url)
        route.fulfill(status=200, content_type="image/jpeg", body=photo(640, 360))

    page.route(f"{MEDIA_HOST}/**", media_host)
    page.goto(target["external_url"])
    image = page.locator("img")
    page.wait_for_function("document.querySelector('img').complete")
    # Rendered, so the page's policy let an https image load.
    assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [640, 360]
    assert image.get_attribute("alt") == "Image 1 of the post"
    video = page.locator("video")
    assert video.is_visible() and video.get_attribute("src") == f"{MEDIA_HOST}/launch.mp4"
    assert page.locator("figcaption a").all_inner_texts() == [item["url"] for item in media]
    assert served == [f"{MEDIA_HOST}/launch.jpg"]  # the video loads only when played
    page.screenshot(path=tmp_path / "sandbox-post.png", full_page=True)


def test_the_browser_reaches_nothing_but_loopback(page, refused_requests):
    from playwright.sync_api import Error

    with pytest.raises(Error, match="ERR_BLOCKED_BY_CLIENT"):
        page.goto("http://fanout.invalid/")
    assert refused_requests == ["http://fanout.invalid/"]
    refused_requests.clear()  # seen: the fixture would fail the test for it


def test_loopback_is_127_0_0_0_8_and_ipv6_one_by_address():
    assert is_loopback_url("http://127.0.0.1:8000/docs") and is_loopback_url("http://127.8.9.10/")
    assert is_loopback_url("http://[::1]:9000/")
    assert not is_loopback_url("http://localhost/") and not is_loopback_url("https://cdn.example.com/a.jpg")
    assert not is_loopback_url("http://fanout.invalid/") and not is_loopback_url("data:,x")


def test_the_bluesky_app_password_box_looks_like_the_identifier_box(page, live, live_key):
    page.goto(connect_link(live, bearer(live_key), "bluesky"))
    assert heading(page) == "Connect your Bluesky account"
    password = page.locator("input[type=password]")
    identifier = page.locator("input[type=text]")
    look = "e => [getComputedStyle(e).width, getComputedStyle(e).border, getComputedStyle(e).padding]"
    assert password.evaluate(look) == identifier.evaluate(look)
    assert password.bounding_box()["width"] > 300  # the card's width, not the browser's 180 px default
    keep(page, "bluesky-connect.png")
