"""Fetching and checking one media file (fanout/outbound/media_fetch.py), against real servers on
loopback; the limits are the platforms' own from fanout/platforms/rules.py
(docs/platforms.md#media-files), or those scaled down where a test needs a small cap.

The redirect tests run the production path (https on 443, public addresses only), with
the `network` fixture routing the public addresses to a loopback server; the server that
stands for a private address records every connection it accepts.
"""
from __future__ import annotations

import ssl
import subprocess
import sys
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from fanout.media import FORMATS, MediaProblem
from fanout.outbound.media_fetch import describe, fetch, inspect, sniff
from fanout.outbound.client import Outbound
from fanout.platforms import RULES

from . import media_files as files
from .conftest import PUBLIC_IP, FakeResolver, LoopbackSite, serving

ANOTHER_PUBLIC_IP = "93.184.216.35"
DEAD_LOOPBACK = "127.0.0.2"  # nothing listens there
BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_media_fetch.py"


# -- servers -----------------------------------------------------------------------------


@dataclass
class Page:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    sized: bool = True  # send Content-Length (else the body ends when the server closes)
    declared: int | None = None  # a Content-Length to claim instead of the body's
    stall: bool = False  # after the body, hold the connection open until the test ends
    late: bool = False  # answer nothing until the test ends


class _Handler(BaseHTTPRequestHandler):
    server: Site

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        page = self.server.pages.get(urlsplit(self.path).path, Page(b"not found", status=404))
        if page.late and self.server.release.wait(30):
            return
        self.send_response(page.status)
        for name, value in page.headers.items():
            self.send_header(name, value)
        if page.sized:
            self.send_header("Content-Length", str(len(page.body) if page.declared is None else page.declared))
        self.end_headers()
        self.wfile.write(page.body)
        self.wfile.flush()
        if page.stall:
            self.server.release.wait(30)


class Site(LoopbackSite):
    """A loopback HTTP(S) server of `pages` by path, recording requests and connections."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(_Handler, tls)
        self.pages: dict[str, Page] = {}
        self.hits: list[str] = []

    def serve(self, path: str, body: bytes = b"", **page) -> str:
        self.pages[urlsplit(path).path] = Page(body, **page)
        return self.url(path)


@pytest.fixture
def site():
    yield from serving(Site())


@pytest.fixture
def private_site():
    """Stands for a server on the private network: no test may reach it."""
    yield from serving(Site())


@pytest.fixture
def public_site(ca, network):
    """An https site at media.example.com and cdn.example.com, public addresses both,
    reached (through `network`) on loopback."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("media.example.com", "cdn.example.com").configure_cert(context)
    for server in serving(Site(context)):
        network.routes[(PUBLIC_IP, 443)] = ("127.0.0.1", server.port)
        network.routes[(ANOTHER_PUBLIC_IP, 443)] = ("127.0.0.1", server.port)
        yield server


def loopback(deadline: float = 5.0) -> Outbound:
    return Outbound(resolve=FakeResolver(), insecure=True, deadline=deadline)


def guarded(ca_bundle: str) -> Outbound:
    """The production client: https on 443 and public addresses only."""
    resolve = FakeResolver({"media.example.com": [PUBLIC_IP], "cdn.example.com": [ANOTHER_PUBLIC_IP],
                            "internal.example.com": ["127.0.0.1"], "intranet.example.com": ["10.0.0.7"]})
    return Outbound(resolve=resolve, ca_bundle=ca_bundle, deadline=5.0)


def limits(platform: str):
    return RULES[platform].media_limits


def failure_of(call) -> MediaProblem:
    with pytest.raises(MediaProblem) as caught:
        call()
    return caught.value


# -- what the file is: from its bytes ----------------------------------------------------

SNIFFED = [
    pytest.param(files.jpeg(), "/photo.png", "image/png", "threads", "image", "jpeg", id="JPEG named .png"),
    pytest.param(files.png(), "/photo.jpg", "image/jpeg", "threads", "image", "png", id="PNG named .jpg"),
    pytest.param(files.mp4(), "/clip.mov", "application/octet-stream", "instagram", "video", "mp4", id="MP4 named .mov"),
    pytest.param(files.mov(), "/clip", "text/plain", "instagram", "video", "mov", id="MOV named nothing"),
]


@pytest.mark.parametrize("body, path, content_type, platform, kind, format", SNIFFED)
def test_the_format_comes_from_the_bytes_not_the_name_or_content_type(site, body, path, content_type, platform, kind, format):
    url = site.serve(path, body, headers={"Content-Type": content_type})
    info = inspect(loopback(), url, limits(platform), kind)
    assert (info.kind, info.format, info.mime, info.size) == (kind, format, FORMATS[format].mime, len(body))
    assert info.url == url


def test_a_jpg_that_is_really_html_is_unsupported(site):
    url = site.serve("/photo.jpg", files.HTML, headers={"Content-Type": "image/jpeg"})
    failure = failure_of(lambda: inspect(loopback(), url, limits("instagram"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert "not an image or video format" in failure.message


def test_a_body_that_is_no_media_stops_the_download_at_its_first_bytes(site):
    # Were the whole body awaited, the stalled connection would end in a timeout instead.
    url = site.serve("/photo.jpg", files.HTML * 200, sized=False, stall=True)
    failure = failure_of(lambda: inspect(loopback(deadline=3), url, limits("instagram"), "image"))
    assert failure.code == "unsupported_media_for_platform"


def test_a_format_the_platform_does_not_take_is_unsupported(site):
    url = site.serve("/photo.jpg", files.png())
    failure = failure_of(lambda: inspect(loopback(), url, limits("instagram"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert failure.message.endswith("it is PNG; instagram takes images as JPEG")


def test_a_video_declared_an_image_is_unsupported(site):
    url = site.serve("/photo.jpg", files.mp4())
    failure = failure_of(lambda: inspect(loopback(), url, limits("threads"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert "declared an image but is MP4 video" in failure.message


def test_instagram_refuses_a_multi_picture_jpeg_that_x_takes(site):
    url = site.serve("/stereo.jpg", files.mpo())
    failure = failure_of(lambda: inspect(loopback(), url, limits("instagram"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert "MPO" in failure.message
    assert inspect(loopback(), url, limits("x"), "image").format == "mpo"


# -- size: capped while streaming --------------------------------------------------------


def test_a_content_length_over_the_cap_is_refused_before_the_body(site):
    # The body never comes: only the header can have refused it (else: a timeout).
    url = site.serve("/big.jpg", files.jpeg(), declared=8_000_001, stall=True)
    failure = failure_of(lambda: inspect(loopback(deadline=3), url, limits("instagram"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert failure.message.endswith("it is over 8 MB; instagram takes images up to 8 MB")


def test_a_body_over_the_cap_is_refused_as_it_streams(site):
    # No Content-Length, and the body stalls after the cap: only counting stops it.
    small = replace(limits("instagram"), image_max_bytes=20_000)
    url = site.serve("/big.jpg", files.jpeg() + bytes(30_000), sized=False, stall=True)
    failure = failure_of(lambda: inspect(loopback(deadline=3), url, small, "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert failure.message.endswith("it is over 20 kB; instagram takes JPEG images up to 20 kB")


def test_an_animated_gif_may_be_larger_than_a_still_image_on_x(site):
    scaled = replace(limits("x"), image_max_bytes=5_000, animated_max_bytes=50_000)
    still = site.serve("/still.gif", files.gif(frames=1, noise=True))
    animated = site.serve("/animated.gif", files.gif(frames=3, noise=True))
    failure = failure_of(lambda: inspect(loopback(), still, scaled, "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert "x takes GIF images up to 5 kB" in failure.message
    info = inspect(loopback(), animated, scaled, "image")
    assert info.animated and info.size > 5_000


def test_x_takes_a_gif_declared_a_video(site):
    url = site.serve("/loop.gif", files.gif(frames=3))
    info = inspect(loopback(), url, limits("x"), "video")
    assert (info.kind, info.format, info.animated) == ("image", "gif", True)


# -- dimensions and duration -------------------------------------------------------------


def test_image_dimensions_are_read_from_the_header(site):
    info = inspect(loopback(), site.serve("/photo", files.jpeg(400, 300)), limits("threads"), "image")
    assert (info.width, info.height, info.duration) == (400, 300, None)


@pytest.mark.parametrize("width, height", [(1080, 1350), (1910, 1000)], ids=["4:5", "1.91:1"])
def test_instagram_takes_an_image_at_either_aspect_bound(site, width, height):
    info = inspect(loopback(), site.serve("/photo", files.jpeg(width, height)), limits("instagram"), "image")
    assert (info.width, info.height) == (width, height)


@pytest.mark.parametrize("width, height", [(1000, 2000), (2000, 1000)], ids=["too tall", "too wide"])
def test_instagram_refuses_an_image_outside_its_aspect_bounds(site, width, height):
    url = site.serve("/photo", files.jpeg(width, height))
    failure = failure_of(lambda: inspect(loopback(), url, limits("instagram"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert f"it is {width}x{height} pixels" in failure.message
    assert "instagram takes images from 0.80:1 to 1.91:1" in failure.message


def test_an_image_header_claiming_absurd_dimensions_is_refused_unread(site):
    url = site.serve("/bomb.png", files.png_claiming(30_000, 30_000))
    failure = failure_of(lambda: inspect(loopback(), url, limits("threads"), "image"))
    assert failure.code == "unsupported_media_for_platform"
    assert "pixels" in failure.message


def test_video_duration_is_read_from_the_movie_header(site):
    info = inspect(loopback(), site.serve("/clip.mp4", files.mp4(seconds=12.5)), limits("x"), "video")
    assert (info.duration, info.width, info.height) == (12.5, None, None)


def test_a_video_over_the_platforms_duration_cap_is_unsupported(site):
    url = site.serve("/clip.mp4", files.mp4(seconds=200))
    failure = failure_of(lambda: inspect(loopback(), url, limits("x"), "video"))
    assert failure.code == "unsupported_media_for_platform"
    assert failure.message.endswith("it is 200.0 s long; x takes videos of 0.5 s to 140 s")


def test_a_video_of_no_duration_is_unsupported(site):
    url = site.serve("/clip.mp4", files.mp4(seconds=0))
    failure = failure_of(lambda: inspect(loopback(), url, limits("threads"), "video"))
    assert failure.message.endswith("its duration is 0 s; threads takes videos of up to 300 s")


# -- downloads that fail -----------------------------------------------------------------


@pytest.mark.parametrize("status", [403, 404, 410, 500, 503])
def test_an_error_status_fails_the_download(site, status):
    url = site.serve("/photo.jpg", b"no", status=status)
    failure = failure_of(lambda: inspect(loopback(), url, limits("threads"), "image"))
    assert failure.code == "media_download_failed"
    assert failure.message.endswith(f"the server answered HTTP {status}")


def test_a_server_that_does_not_answer_in_time_fails_the_download(site):
    url = site.serve("/photo.jpg", files.jpeg(), late=True)
    failure = failure_of(lambda: inspect(loopback(deadline=1), url, limits("threads"), "image"))
    assert failure.code == "media_download_failed"
    assert "within" in failure.message


def test_a_host_that_does_not_resolve_fails_the_download(network, ca_bundle):
    failure = failure_of(lambda: inspect(guarded(ca_bundle), "https://nowhere.example.com/a.jpg", limits("x"), "image"))
    assert failure.code == "media_download_failed"
    assert network.connects == []


def test_a_refused_connection_fails_the_download(site):
    url = f"http://{DEAD_LOOPBACK}:{site.port}/a.jpg"
    failure = failure_of(lambda: inspect(loopback(), url, limits("x"), "image"))
    assert failure.code == "media_download_failed"


@pytest.mark.parametrize("url", ["https://10.0.0.7/a.jpg", "https://internal.example.com/a.jpg", "http://media.example.com/a.jpg"])
def test_a_url_that_is_not_public_https_fails_the_download_unconnected(network, ca_bundle, url):
    failure = failure_of(lambda: inspect(guarded(ca_bundle), url, limits("x"), "image"))
    assert failure.code == "media_download_failed"
    assert network.connects == []


# -- redirects, followed by the guard ----------------------------------------------------


def test_a_redirect_on_the_same_site_is_followed(site):
    site.serve("/new.jpg", files.jpeg())
    url = site.serve("/old.jpg", status=301, headers={"Location": "/new.jpg"})
    info = inspect(loopback(), url, limits("x"), "image")
    assert info.format == "jpeg" and info.url == url
    assert site.hits == ["/old.jpg", "/new.jpg"]


def test_a_redirect_to_another_public_host_is_followed(public_site, ca_bundle, network):
    public_site.serve("/files/a.jpg", files.jpeg())
    public_site.serve("/a.jpg", status=302, headers={"Location": "https://cdn.example.com/files/a.jpg"})
    info = inspect(guarded(ca_bundle), "https://media.example.com/a.jpg", limits("x"), "image")
    assert info.format == "jpeg"
    assert network.connects == [(PUBLIC_IP, 443), (ANOTHER_PUBLIC_IP, 443)]


@pytest.mark.parametrize("target", [
    "https://internal.example.com/a.jpg", "https://intranet.example.com/a.jpg",
    "https://127.0.0.1/a.jpg", "https://169.254.169.254/latest/meta-data/",
])
def test_a_redirect_to_a_private_address_fails_without_contacting_it(public_site, private_site, ca_bundle, network, target):
    # Were the guard to follow the redirect, the connection would land on private_site.
    for address in ("127.0.0.1", "10.0.0.7", "169.254.169.254"):
        network.routes[(address, 443)] = ("127.0.0.1", private_site.port)
    private_site.serve("/a.jpg", files.jpeg())
    public_site.serve("/a.jpg", status=302, headers={"Location": target})
    failure = failure_of(lambda: inspect(guarded(ca_bundle), "https://media.example.com/a.jpg", limits("x"), "image"))
    assert failure.code == "media_download_failed"
    assert "after 1 redirect" in failure.message and "non-public address" in failure.message
    assert private_site.connections == []
    assert network.connects == [(PUBLIC_IP, 443)]


def test_too_many_redirects_fail_the_download(site):
    url = site.serve("/loop.jpg", status=302, headers={"Location": "/loop.jpg"})
    failure = failure_of(lambda: inspect(loopback(), url, limits("x"), "image"))
    assert failure.code == "media_download_failed"
    assert "more than 5 redirects" in failure.message


# -- messages, and keeping the file ------------------------------------------------------


@pytest.mark.parametrize("page", [Page(b"gone", status=404), Page(files.HTML), Page(files.mp4(seconds=200))],
                         ids=["download failed", "not media", "too long"])
def test_messages_name_the_item_but_never_the_query(site, page):
    site.pages["/v/clip.mp4"] = page
    url = site.url("/v/clip.mp4?token=s3cr3t&sig=abc")
    failure = failure_of(lambda: inspect(loopback(), url, limits("x"), "video", label="media[2]"))
    assert failure.message.startswith("media[2] (127.0.0.1/v/clip.mp4)")
    assert "s3cr3t" not in str(failure) and "sig=" not in str(failure)


def test_describe_shows_host_and_path_only():
    assert describe("https://cdn.example.com/a/b.jpg?X-Amz-Signature=s3cr3t#frag") == "cdn.example.com/a/b.jpg"


def test_sniffing_needs_only_the_first_bytes():
    assert sniff(files.jpeg()[:64]) == "jpeg"
    assert sniff(files.HTML) is None


def test_fetch_keeps_the_file_until_closed(site, tmp_path):
    body = files.mp4(seconds=30, padding=2_000_000)  # over the in-memory threshold: on disk
    url = site.serve("/clip.mp4", body)
    with fetch(loopback(), url, limits("x"), "video", directory=str(tmp_path)) as media:
        assert media.info.size == len(body) and media.info.duration == 30
        assert media.file.read() == body
    assert media.file.closed


# -- memory: the body is streamed, never held whole -------------------------------------


@pytest.mark.slow
def test_a_50_mb_download_raises_peak_rss_by_less_than_16_mb():
    """Pins streaming (the bench prints the figure; this is a bound, not a speed)."""
    run = subprocess.run([sys.executable, str(BENCH), "--mb", "50", "--quiet"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    growth_kb = int(run.stdout.split()[0])
    assert growth_kb < 16 * 1024
