"""What both Pinterest test modules share: the media server, with a video long enough for
Pinterest (its four seconds at least), and the fixtures they take from the shared worlds:
the adapter's steps (tests/adapter_steps.py) and the live server's browser and key
(tests/threads_world.py)."""
import pytest

from ...adapter_steps import clocks, http, outbound, step
from ...emulators.media.server import sample_media_server
from ...media_files import mp4
from ...threads_world import browser, headers, port
from ..live import insecure_urls

__all__ = ["browser", "clocks", "headers", "http", "insecure_urls", "media", "outbound", "port", "step"]

SIX_SECONDS = mp4(seconds=6, padding=300_000)


@pytest.fixture(scope="module")
def media():
    """The sample media server, and /six.mp4: a 6 s MP4 of about 300 KB."""
    with sample_media_server() as server:
        server.put("/six.mp4", SIX_SECONDS, "video/mp4")
        yield server
