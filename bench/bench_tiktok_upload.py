"""Peak memory of publishing one large video to TikTok by FILE_UPLOAD; prints it.

Run: python bench/bench_tiktok_upload.py [--mb 200] [--quiet]

This process serves an MP4 of the given size on loopback (its body made as it is sent,
never held whole) and runs the TikTok emulator (tests/emulators/tiktok/), which keeps a
count and a hash of what is uploaded, never the bytes. A fresh Python process plays the
worker: it publishes a small video first (imports and first-use allocations done), reads
its peak RSS (VmHWM), publishes the large one through fanout/platforms/tiktok/adapter.py (fetched
to a spooled file, uploaded in 10 MB chunks read in small blocks) and reads the peak
again; the difference is what the upload added. Linux only (/proc). `--quiet` prints the
increase in kB alone (tests/platforms/tiktok/test_adapter.py reads it).
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_media_fetch import MovieServer, peak_rss_kb  # noqa: E402


class Step:
    """base.Step as the engine gives it, without a database: saves are kept in memory."""

    def __init__(self, http, outbound, settings, clock):
        self.http, self.outbound, self.settings, self.clock = http, outbound, settings, clock
        self.state = {}

    def now(self) -> dt.datetime:
        return self.clock()

    def sleep(self, seconds: float) -> None:
        raise AssertionError("a platform adapter never sleeps")

    def save(self, state) -> None:
        self.state = dict(state)

    def published(self, since, *, workspace=False) -> int:
        return 0

    def per_minute(self, key: str, limit: int) -> bool:
        return True


def publish(base_url: str, hosts: str, token: str, path: str) -> dict:
    """Publish the video at `path` to the end, as the engine would; the result's outcome."""
    from fanout.outbound.client import Outbound
    from fanout.platforms.tiktok import adapter as tiktok
    from fanout.platforms.base import Done, Job
    from fanout.platforms.http import PlatformHttp, parse_hosts
    from fanout.settings import Settings

    now = [dt.datetime(2026, 11, 22, 10, 0)]
    settings = Settings.from_env({}).with_platform("tiktok", upload_method="file")
    step = Step(PlatformHttp(parse_hosts(hosts), timeout=(5.0, 120.0)),
                Outbound(resolve=lambda host: [], insecure=True, deadline=600), settings, lambda: now[0])
    job = Job(target_id="tgt_bench", platform="tiktok", user_id="-000emuTikTokOpenId0001", username="emu_tiktok",
              access_token=token, caption="bench", media=({"url": base_url + path, "type": "video"},), state={})
    for _ in range(100):
        result = tiktok.publish(step, job)
        if isinstance(result, Done):
            return {"published": result.outcome.published, "error": result.outcome.error_message}
        job = dataclasses.replace(job, state=result.state)
        # The emulator runs on real time here: a scheduled step comes after its wait.
        time.sleep(0.2)
        now[0] += dt.timedelta(seconds=30)
    raise RuntimeError("the post did not finish")


def measure(base_url: str, hosts: str, token: str) -> dict:
    """In the fresh process: the peak RSS before and after the large upload."""
    small = publish(base_url, hosts, token, "/small.mp4")
    before = peak_rss_kb()
    big = publish(base_url, hosts, token, "/big.mp4")
    after = peak_rss_kb()
    return {"before_kb": before, "after_kb": after, "small": small, "big": big}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("BASE_URL", "HOSTS", "TOKEN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child)))
        return

    from tests.emulators.clock import EmulatorClock
    from tests.emulators.tiktok import TikTokEmulator

    movies = MovieServer(args.mb * 1_000_000)
    movies.sizes["/small.mp4"] = 200_000
    thread = threading.Thread(target=movies.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        with TikTokEmulator(clock=EmulatorClock(follow_real_time=True)) as emulator:
            emulator.set_processing_time(0)
            access, _ = emulator.issue_token()
            base_url = f"http://127.0.0.1:{movies.server_address[1]}"
            child = subprocess.run([sys.executable, __file__, "--child", base_url, emulator.hosts_setting, access],
                                   capture_output=True, text=True, timeout=600)
            received = [post.bytes_received for posts in emulator.posts.values() for post in posts]
    finally:
        movies.shutdown()
        movies.server_close()
    if child.returncode:
        sys.exit(f"the publishing process failed:\n{child.stderr}")
    figures = json.loads(child.stdout)
    if not figures["big"]["published"]:
        sys.exit(f"the large video was not published: {figures['big']['error']}")
    growth = figures["after_kb"] - figures["before_kb"]
    if args.quiet:
        print(growth)
        return
    print(f"uploaded {max(received) / 1e6:.1f} MB to the TikTok emulator by FILE_UPLOAD")
    print(f"peak RSS before: {figures['before_kb'] / 1024:.1f} MiB, after: {figures['after_kb'] / 1024:.1f} MiB")
    print(f"peak RSS increase: {growth / 1024:.2f} MiB")


if __name__ == "__main__":
    main()
