"""Upload to the end of a post whose container takes a while, on `fanout serve`; prints it.

Run: python bench/bench_container_wait.py [--trials 10] [--ready 3] [--window 5] [--platform threads ...]
     [--scale-out]

A fresh data folder, a live key, and the Threads and Instagram emulators (tests/emulators/)
in this process on loopback, their clocks following real time, each with an account
connected through the connect flow, and a webhook to a receiver in this process. For each
platform, `--trials` posts of each case, one at a time, each after a random pause of up to
a second (so that uploads do not fall in step with the worker's once-a-second scheduler):
- ready: the container is IN_PROGRESS for `--ready` seconds, then FINISHED (the emulator's
  processing time: a text post on Threads, a photo from a loopback media server on
  Instagram), with the default windows; the time from sending the upload to the
  `post.completed` webhook;
- expired: the container stays IN_PROGRESS, with FANOUT_THREADS_CONTAINER_WINDOW and
  FANOUT_INSTAGRAM_CONTAINER_WINDOW set to `--window` (`fanout serve` is restarted for
  it); the time from sending the upload to the `post.failed` webhook, whose error must be
  `container_expired`;
- unreadable: the same, every read of the container answered 503 (last, since the
  emulator keeps that rule).
Prints each platform's and case's min, median and max, and the median number of reads of
the container's status. The embedded default (SQLite) unless `--scale-out`, which keeps
FANOUT_DATABASE_URL and FANOUT_QUEUE_URL from the environment (PostgreSQL and Redis).
Bounded: every wait has a deadline (60 s for a server, 90 s for a ready post, the window +
30 s for the others),
every process is stopped at the end, even on Ctrl-C.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_latency import FANOUT, ROOT, Receiver, fanout, free_port, serving  # noqa: E402

PLATFORMS = ("threads", "instagram")
# Seconds a ready post may take: past Instagram's former minute between two reads.
READY_TIMEOUT = 90


def start_emulators(ready: float):
    from tests.emulators.clock import EmulatorClock
    from tests.emulators.instagram import InstagramEmulator
    from tests.emulators.media import jpeg_bytes
    from tests.emulators.media.server import MediaServer
    from tests.emulators.threads import ThreadsEmulator

    media = MediaServer()
    media.start()
    photo = media.put("/photo.jpg", jpeg_bytes(640, 480), "image/jpeg")
    emulators = {
        "threads": ThreadsEmulator(clock=EmulatorClock(follow_real_time=True), processing_seconds={"TEXT": ready}),
        "instagram": InstagramEmulator(clock=EmulatorClock(follow_real_time=True),
                                       processing_seconds={"IMAGE": ready}),
    }
    for emulator in emulators.values():
        emulator.start()
    return media, photo, emulators


def connect(base: str, headers: dict, platform: str) -> str:
    """An account connected through the connect flow, the emulator consenting at once."""
    link = requests.post(f"{base}/v1/accounts/{platform}/connect", headers=headers, json={}, timeout=10)
    link.raise_for_status()
    landed = requests.get(link.json()["url"], timeout=10)
    query = {k: v[0] for k, v in parse_qs(urlsplit(landed.url).query).items()}
    if query.get("status") != "connected":
        sys.exit(f"connecting {platform} failed: {landed.url}")
    return query["account_id"]


def status_reads(emulator) -> int:
    """Reads of a container's status (Threads' `status`, Instagram's `status_code`)."""
    return len([c for c in emulator.calls if c.method == "GET" and "status" in str(c.query.get("fields", ""))])


def one_post(base, headers, receiver, emulator, account, photo, platform, timeout) -> tuple[float, str, int]:
    """(seconds from upload to webhook, `published` or the error code, container status reads);
    past `timeout` without a webhook, (`timeout`, "none within <timeout> s", reads)."""
    body = {"caption": f"container bench {time.monotonic_ns()}", "account_ids": [account]}
    if platform == "instagram":
        body["media"] = [{"url": photo, "type": "image"}]
    time.sleep(random.random())
    reads = status_reads(emulator)
    sent = time.monotonic()
    answer = requests.post(f"{base}/v1/upload", headers=headers, json=body, timeout=10)
    answer.raise_for_status()
    try:
        arrived, event = receiver.wait_for(answer.json()["id"], timeout)
    except TimeoutError:
        return timeout, f"none within {timeout:g} s", status_reads(emulator) - reads
    outcome = "published" if event["event"] == "post.completed" else event["target"]["error_code"]
    return arrived - sent, outcome, status_reads(emulator) - reads


def trials(count: int, post, case: str, emulator) -> str:
    if case == "unreadable":
        emulator.fail("GET", r"^/v[0-9.]+/[0-9]+$", 503, "busy", times=None)  # a container's node, not /me
    values, outcomes, reads = [], [], []
    for _ in range(count):
        if case != "ready":
            emulator.force_next_container("IN_PROGRESS")
        seconds, outcome, read = post()
        values.append(seconds)
        outcomes.append(outcome)
        reads.append(read)
    return (f"{count} posts, min {min(values):.2f} s, median {statistics.median(values):.2f} s, "
            f"max {max(values):.2f} s; status reads median {statistics.median(reads):g}; "
            f"outcomes {', '.join(sorted(set(outcomes)))}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--ready", type=float, default=3.0, help="seconds a container stays IN_PROGRESS")
    parser.add_argument("--window", type=int, default=5, help="FANOUT_<P>_CONTAINER_WINDOW of the expired case")
    parser.add_argument("--platform", action="append", choices=PLATFORMS)
    parser.add_argument("--scale-out", action="store_true",
                        help="keep FANOUT_DATABASE_URL and FANOUT_QUEUE_URL from the environment (PostgreSQL, Redis)")
    args = parser.parse_args()
    platforms = args.platform or list(PLATFORMS)

    media, photo, emulators = start_emulators(args.ready)
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        port = free_port()
        env = {**os.environ, "FANOUT_DATA_DIR": tempfile.mkdtemp(prefix="fanout-bench-"), "FANOUT_INSECURE_URLS": "1",
               "FANOUT_BASE_URL": f"http://127.0.0.1:{port}",
               "FANOUT_PLATFORM_HOSTS": ",".join(e.hosts_setting for e in emulators.values())}
        for name, emulator in emulators.items():
            env[f"FANOUT_{name.upper()}_CLIENT_ID"] = emulator.client_id
            env[f"FANOUT_{name.upper()}_CLIENT_SECRET"] = emulator.client_secret
        for name in ("FANOUT_THREADS_CONTAINER_WINDOW", "FANOUT_INSTAGRAM_CONTAINER_WINDOW"):
            env.pop(name, None)  # the defaults, for the ready case
        if not args.scale_out:
            for name in ("FANOUT_DATABASE_URL", "FANOUT_QUEUE_URL"):
                env.pop(name, None)  # the embedded default
        subprocess.run([*FANOUT, "migrate"], env=env, cwd=ROOT, check=True, capture_output=True)
        workspace = fanout(env, "workspace", "create", "container bench", "--plan", "BUSINESS")["id"]
        headers = {"Authorization": f"Bearer {fanout(env, 'key', 'create', workspace, '--mode', 'live')['key']}"}
        accounts = {}
        windowed = {**env, "FANOUT_THREADS_CONTAINER_WINDOW": str(args.window),
                    "FANOUT_INSTAGRAM_CONTAINER_WINDOW": str(args.window)}
        for cases, settings in ((("ready",), env), (("expired", "unreadable"), windowed)):
            with serving(settings, port):
                base = f"http://127.0.0.1:{port}"
                if not accounts:
                    hook = requests.post(f"{base}/v1/webhooks", headers=headers, timeout=10, json={
                        "url": f"http://127.0.0.1:{receiver.server_address[1]}/hook",
                        "events": ["post.completed", "post.failed"]})
                    hook.raise_for_status()
                    accounts = {platform: connect(base, headers, platform) for platform in platforms}
                for platform in platforms:
                    emulator = emulators[platform]
                    for case in cases:
                        def post():
                            return one_post(base, headers, receiver, emulator, accounts[platform], photo, platform,
                                            READY_TIMEOUT if case == "ready" else args.window + 30)

                        name = {"ready": f"ready after {args.ready:g} s",
                                "expired": f"never ready, {args.window} s window",
                                "unreadable": f"never read, {args.window} s window"}[case]
                        print(f"{platform}, {name}: {trials(args.trials, post, case, emulator)}", flush=True)
    finally:
        receiver.shutdown()
        for emulator in emulators.values():
            emulator.stop()
        media.stop()


if __name__ == "__main__":
    main()
