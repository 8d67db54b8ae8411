"""One workspace's requests per minute are counted across server processes.

Two `fanout api` processes share the test's database and limiter store: a SQLite file on
the embedded default, Redis when FANOUT_QUEUE_URL points at it.
"""
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import requests

from .conftest import parse_sf_list


def test_100_concurrent_requests_through_two_servers_admit_exactly_the_plan(servers, free):
    _, headers = free  # 30 requests a minute
    urls = [servers().url, servers().url]
    barrier = Barrier(100)

    def send(i):
        barrier.wait()
        return requests.get(f"{urls[i % 2]}/v1/accounts", headers=headers, timeout=30)

    with ThreadPoolExecutor(max_workers=100) as pool:
        answers = list(pool.map(send, range(100)))

    codes = [a.status_code for a in answers]
    assert (codes.count(200), codes.count(429)) == (30, 70)
    for answer in answers:
        [(_, params)] = parse_sf_list(answer.headers["ratelimit"])
        if answer.status_code == 429:
            assert answer.json()["error"]["code"] == "rate_limited"
            assert 1 <= int(answer.headers["retry-after"]) <= 60
            assert params == {"r": 0, "t": int(answer.headers["retry-after"])}
    remaining = sorted(parse_sf_list(a.headers["ratelimit"])[0][1]["r"] for a in answers if a.status_code == 200)
    assert remaining == list(range(30))  # each admitted request saw its own place in the count
