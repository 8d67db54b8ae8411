"""Peak memory of fetching one large media file through fanout/outbound/media_fetch.py; prints it.

Run: python bench/bench_media_fetch.py [--mb 50] [--quiet]

This process serves an MP4 of the given size on loopback (its body made as it is sent,
never held whole) and starts a fresh Python process that fetches it with `inspect` as an
adapter would. That process first fetches a small file (so imports and first-use
allocations are done), reads its peak RSS (VmHWM), fetches the large file, and reads the
peak again; the difference is what the download itself added. Linux only (/proc).
`--quiet` prints the increase in kB alone (tests/test_media.py reads it).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.media_files import MP4_FTYP, mdat_header, movie_header  # noqa: E402

CHUNK = 64 * 1024
SECONDS = 60.0  # within Instagram's Reels bounds, whose limits the fetch uses


class _Handler(BaseHTTPRequestHandler):
    server: "MovieServer"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        payload = self.server.sizes.get(self.path)
        if payload is None:
            self.send_error(404)
            return
        head = MP4_FTYP + movie_header(SECONDS) + mdat_header(payload)
        self.send_response(200)
        self.send_header("Content-Type", "video/mp4")
        self.send_header("Content-Length", str(len(head) + payload))
        self.end_headers()
        self.wfile.write(head)
        zeros = bytes(CHUNK)
        for start in range(0, payload, CHUNK):
            self.wfile.write(zeros[: min(CHUNK, payload - start)])


class MovieServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, big_bytes: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.sizes = {"/small.mp4": 1000, "/big.mp4": big_bytes}


def peak_rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def fetch_and_measure(base_url: str) -> dict:
    """In the fresh process: the peak RSS before and after the large fetch."""
    from fanout.outbound.media_fetch import inspect
    from fanout.outbound.client import Outbound
    from fanout.platforms import RULES

    outbound = Outbound(resolve=lambda host: [], insecure=True, deadline=120)
    limits = RULES["instagram"].media_limits
    inspect(outbound, base_url + "/small.mp4", limits, "video")
    before = peak_rss_kb()
    info = inspect(outbound, base_url + "/big.mp4", limits, "video")
    after = peak_rss_kb()
    return {"before_kb": before, "after_kb": after, "bytes": info.size, "duration": info.duration}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--child", metavar="BASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(fetch_and_measure(args.child)))
        return

    server = MovieServer(args.mb * 1_000_000)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        child = subprocess.run(
            [sys.executable, __file__, "--child", f"http://127.0.0.1:{server.server_address[1]}"],
            capture_output=True, text=True, timeout=300,
        )
    finally:
        server.shutdown()
        server.server_close()
    if child.returncode:
        sys.exit(f"the fetching process failed:\n{child.stderr}")
    figures = json.loads(child.stdout)
    growth = figures["after_kb"] - figures["before_kb"]
    if args.quiet:
        print(growth)
        return
    print(f"fetched {figures['bytes'] / 1e6:.1f} MB ({figures['duration']:g} s of video) through inspect()")
    print(f"peak RSS before: {figures['before_kb'] / 1024:.1f} MiB, after: {figures['after_kb'] / 1024:.1f} MiB")
    print(f"peak RSS increase: {growth / 1024:.2f} MiB")


if __name__ == "__main__":
    main()
