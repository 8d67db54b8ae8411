"""Media as the emulators fetch and judge it (tests/emulators/README.md#media)."""
from __future__ import annotations

import hashlib

import pytest

from . import (
    fetch,
    gif_bytes,
    gif_frames,
    image_size,
    jpeg_bytes,
    mp4_bytes,
    mp4_dimensions,
    mp4_seconds,
    png_bytes,
    sniff,
    webm_bytes,
)


@pytest.mark.parametrize("data,kind", [
    (jpeg_bytes(), "jpeg"), (png_bytes(), "png"), (mp4_bytes(), "mp4"), (mp4_bytes(brand=b"qt  "), "mov"),
    (b"\x00\x00\x00\x08wide\x00\x00\x00\x00mdat", "mov"), (b"GIF89a\x01\x00", "gif"),
    (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "webp"), (webm_bytes(), "webm"),
    (b"\x1a\x45\xdf\xa3\x93\x42\x82\x88matroska", None), (b"<html>", None), (b"", None),
])
def test_the_type_is_told_from_the_first_bytes(data, kind):
    assert sniff(data[:64]) == kind


def test_a_fetch_reports_the_type_size_and_sha256(media_server):
    data = png_bytes(300, 200)
    fetched = fetch(media_server.put("/p", data, "application/octet-stream"), limit=10**6)
    assert (fetched.ok, fetched.kind, fetched.size) == (True, "png", len(data))
    assert fetched.sha256 == hashlib.sha256(data).hexdigest()


def test_a_fetch_stops_reading_past_its_limit(media_server):
    fetched = fetch(media_server.put("/big", b"\x00" * 300_000), limit=1000)
    assert fetched.ok and 1000 < fetched.size < 300_000


def test_an_error_status_a_refused_connection_or_a_timeout_is_a_failed_fetch(media_server):
    assert fetch(media_server.url("/missing"), limit=100).error == "HTTP 404"
    media_server.delay("GET", "/slow", 30)
    assert fetch(media_server.put("/slow", b"x"), limit=100, timeout=(5, 0.2)).error == "ReadTimeout"
    url = media_server.url("/gone")
    media_server.stop()
    assert fetch(url, limit=100).error == "ConnectionError"


@pytest.mark.parametrize("data,size", [
    (jpeg_bytes(640, 480), (640, 480)), (png_bytes(300, 200), (300, 200)), (mp4_bytes(), None),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", None),  # a JPEG cut before its frame header
])
def test_an_images_width_and_height_are_read_from_its_header(data, size):
    assert image_size(data, sniff(data[:64])) == size


def test_a_fetch_reports_an_images_dimensions(media_server):
    fetched = fetch(media_server.put("/p.jpg", jpeg_bytes(1080, 1350)), limit=10**6)
    assert fetched.dimensions == (1080, 1350)


@pytest.mark.parametrize("data,frames", [
    (gif_bytes(), 1), (gif_bytes(frames=3), 3), (gif_bytes(frames=2)[:-10], None), (png_bytes(), None),
])
def test_a_gifs_frames_are_counted_from_its_blocks(data, frames):
    assert gif_frames(data) == frames


def test_an_mp4s_duration_and_picture_size_are_read_from_its_movie_and_track_headers():
    assert mp4_seconds(mp4_bytes(2.5)) == 2.5 and mp4_seconds(mp4_bytes(3, brand=b"qt  ")) == 3
    assert mp4_dimensions(mp4_bytes(3, size=(1080, 1920))) == (1080, 1920)
    assert mp4_seconds(mp4_bytes(3, size=(1080, 1920))) == 3
    assert mp4_dimensions(mp4_bytes(3)) is None and mp4_seconds(jpeg_bytes()) is None
