"""Readiness and metrics across real processes: `fanout serve` and its worker, `fanout api
--processes 2`, a `fanout worker` beside a `fanout api`, all sharing a data folder."""
import signal
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor

import requests
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector

from ..conftest import Scrape, bearer, connect_on_server, start_worker, wait_for


def readyz(url: str) -> requests.Response:
    return requests.get(f"{url}/readyz", timeout=10)


def readiness_once(url: str, status: int, what: str) -> dict:
    """The body of the first /readyz answer with `status`, polled."""
    answer = wait_for(lambda: (r := readyz(url)).status_code == status and [r], what=what)[0]
    return answer.json()


def scrape(url: str) -> Scrape:
    answer = requests.get(f"{url}/metrics", timeout=10)
    assert answer.status_code == 200, answer.text
    return Scrape(answer.text)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_serve_is_ready_once_its_worker_beats_and_its_metrics_move_when_a_post_is_published(
        servers, cli, tmp_path):
    server = servers("serve")
    newest = readiness_once(server.url, 200, "serve to be ready")["checks"]["workers"]["newest"]
    assert newest["pid"] != server.proc.pid  # the worker process serve started, not serve itself

    workspace = cli.json("workspace", "create", "Metrics")
    headers = bearer(cli.json("key", "create", workspace["id"], "--mode", "sandbox")["key"])
    connect_on_server(server.url, headers, "x")
    before = scrape(server.url)
    post = requests.post(f"{server.url}/v1/upload", headers=headers, timeout=10,
                         json={"caption": "counted", "platforms": ["x"]}).json()
    wait_for(lambda: requests.get(f"{server.url}/v1/posts/{post['id']}", headers=headers, timeout=10)
             .json()["status"] == "completed", what="the post to be published")
    after = scrape(server.url)

    # Counted by the API process...
    assert after.value("fanout_posts_created_total", mode="sandbox") == before.value(
        "fanout_posts_created_total", mode="sandbox") + 1 == 1
    assert after.value("fanout_http_requests_total", method="POST", route="/v1/upload", status="201") == 1
    # ...and by the worker process, summed into the same answer.
    assert after.value("fanout_targets_finished_total", platform="x", status="published") == 1
    assert after.value("fanout_publish_latency_seconds_count", platform="x", status="published") == 1
    assert after.value("fanout_targets", status="pending") == 0
    assert after.value("fanout_workers_live") == 1

    folder = tmp_path / "metrics"
    assert mode(folder) == 0o700
    assert {mode(path) for path in folder.iterdir()} == {0o600}


def pid_of_a_finished_process() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def healthz_count(path) -> float:
    """This process file's count of GET /healthz."""
    return sum(sample.value for metric in MultiProcessCollector.merge([str(path)]) for sample in metric.samples
               if sample.name == "fanout_http_requests_total" and sample.labels.get("route") == "/healthz")


def test_two_api_processes_are_summed_and_the_folder_starts_clean(servers, tmp_path):
    folder = tmp_path / "metrics"
    folder.mkdir()
    leftover = folder / f"counter_{pid_of_a_finished_process()}.db"
    MmapedDict(str(leftover)).close()  # what a process of an earlier run left behind

    server = servers("api", args=("--processes", "2"))
    assert not leftover.exists()

    sent = 0
    with ThreadPoolExecutor(8) as pool:
        def serving_processes() -> set[str]:
            nonlocal sent
            answers = list(pool.map(lambda _: requests.get(f"{server.url}/healthz", timeout=10).status_code, range(40)))
            assert answers == [200] * 40
            sent += 40
            return {p.name for p in folder.glob("counter_*.db") if healthz_count(p) > 0}

        # Connections go to whichever process accepts first: send until both have served some.
        served_by = wait_for(lambda: len(found := serving_processes()) == 2 and found, what="both processes to serve")
    assert len(served_by) == 2
    assert scrape(server.url).value("fanout_http_requests_total", method="GET", route="/healthz", status="200") == sent


def test_a_killed_worker_goes_stale_turns_readiness_503_and_leaves_no_live_gauge(servers, process_env, tmp_path):
    env = {**process_env, "FANOUT_HEARTBEAT_INTERVAL": "1", "FANOUT_HEARTBEAT_STALE": "2"}
    server = servers("api", env=env)
    worker = start_worker(env, tmp_path / "worker.log")
    try:
        ready = readiness_once(server.url, 200, "the worker's first beat")
        assert ready["checks"]["workers"]["newest"]["pid"] == worker.pid
        live_gauge = tmp_path / "metrics" / f"gauge_livesum_{worker.pid}.db"
        assert live_gauge.exists()
    finally:
        worker.send_signal(signal.SIGKILL)  # no clean stop: its heartbeat stays, and goes stale
        worker.wait()
    body = readiness_once(server.url, 503, "the heartbeat to go stale")
    assert body["failing"] == ["workers"]
    assert f"pid {worker.pid}" in body["error"]["message"] and "stale after 2 s" in body["error"]["message"]
    scrape(server.url)
    assert not live_gauge.exists()  # marked dead at the scrape
    assert (tmp_path / "metrics" / f"counter_{worker.pid}.db").exists()  # its counts still count
