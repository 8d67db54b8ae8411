"""What every emulator shares: its clock, its call log and its control API
(tests/emulators/README.md#the-shared-base)."""
from __future__ import annotations

import datetime as dt
import os
import re
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from ..conftest import free_ports
from .base import EmulatorServer, Request, Response
from .clock import EmulatorClock
from .conftest import START, run_by_hand

ROOT = Path(__file__).resolve().parents[2]


class Counter(EmulatorServer):
    """An emulator whose one call has a visible effect: POST /count adds one."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.count = 0
        self.route("POST", r"/count", self._count)
        self.route("GET", r"/broken", lambda request: 1 / 0)
        self.route("POST", r"/echo", lambda request: Response.json(200, request.params))

    def _count(self, request: Request) -> Response:
        with self.lock:
            self.count += 1
            return Response.json(200, {"count": self.count})

    def _reset_state(self) -> None:
        self.count = 0


@pytest.fixture
def counter():
    with Counter(clock=EmulatorClock(START)) as server:
        yield server


def count(server, **kwargs) -> requests.Response:
    return requests.post(server.base_url + "/count", timeout=kwargs.pop("timeout", 10), **kwargs)


# --- the clock -----------------------------------------------------------------------------------


def test_the_clock_stands_still_until_advanced_or_set():
    clock = EmulatorClock("2026-11-22T10:00:00Z")
    assert clock.now() == clock.now() == START
    assert clock.advance(90) == START + dt.timedelta(seconds=90)
    assert clock.set(dt.datetime(2027, 1, 1)) == dt.datetime(2027, 1, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_a_clock_following_real_time_moves_with_it_and_can_still_jump():
    ticks = iter([100.0, 102.5, 103.0])
    clock = EmulatorClock(START, follow_real_time=True, monotonic=lambda: next(ticks))
    assert clock.now() == START + dt.timedelta(seconds=2.5)
    assert clock.advance(60) == START + dt.timedelta(seconds=63)


# --- rules ----------------------------------------------------------------------------------------


def test_a_failing_call_answers_as_told_without_its_effect_for_the_next_n_calls(counter):
    counter.fail("POST", r"^/count$", 503, {"error": "busy"}, times=2)
    assert [(a.status_code, a.json()) for a in (count(counter), count(counter))] == [(503, {"error": "busy"})] * 2
    assert counter.count == 0
    assert count(counter).json() == {"count": 1}


def test_a_rule_matches_its_method_and_searches_its_path_pattern(counter):
    counter.fail("GET", "count", 500)
    assert count(counter).status_code == 200  # another method
    counter.fail(None, "oun", 500, times=None)  # any method, every call
    assert [count(counter).status_code for _ in range(3)] == [500] * 3


def test_a_garbled_call_has_its_effect_and_answers_as_told_in_place_of_its_own(counter):
    counter.garble("POST", r"^/count$", 201, "<html>not json</html>")
    answer = count(counter)
    assert (answer.status_code, answer.text, counter.count) == (201, "<html>not json</html>", 1)
    [call] = counter.calls
    assert (call.status, call.dropped) == (201, False)
    assert count(counter).json() == {"count": 2}


def test_a_call_dropped_after_its_effect_gets_no_answer_but_happened(counter):
    counter.drop("POST", "/count")
    with pytest.raises(requests.ConnectionError):
        count(counter)
    assert counter.count == 1
    [call] = counter.calls
    assert (call.status, call.dropped) == (None, True)
    assert count(counter).json() == {"count": 2}


def test_a_call_dropped_before_its_effect_did_nothing(counter):
    counter.drop("POST", "/count", after_effect=False)
    with pytest.raises(requests.ConnectionError):
        count(counter)
    assert counter.count == 0


def test_a_delayed_answer_times_the_client_out_after_the_effect(counter):
    counter.delay("POST", "/count", 30)
    with pytest.raises(requests.ReadTimeout):
        count(counter, timeout=(5, 0.2))
    assert counter.count == 1  # stopping the server ends the wait


def test_a_bad_pattern_is_refused_when_the_rule_is_made(counter):
    with pytest.raises(re.error):
        counter.fail("POST", "(", 500)


# --- the call log -----------------------------------------------------------------------------


def test_the_log_records_each_call_with_its_parameters_status_and_emulator_time(counter):
    counter.advance(5)
    requests.post(counter.base_url + "/echo?a=1", data={"b": "2"}, timeout=10)
    [call] = counter.calls
    assert (call.method, call.path, call.query, call.body, call.status) == ("POST", "/echo", {"a": "1"}, {"b": "2"}, 200)
    assert call.at == START + dt.timedelta(seconds=5)


def test_the_log_masks_tokens_and_secrets_wherever_they_are(counter):
    requests.post(counter.base_url + "/echo?access_token=tok", data={"client_secret": "sec", "text": "hi"}, timeout=10)
    requests.post(counter.base_url + "/echo", json={"nested": {"refresh_token": "r"}, "access_token": "t"}, timeout=10)
    first, second = counter.calls
    assert first.query == {"access_token": "***"} and first.body == {"client_secret": "***", "text": "hi"}
    assert second.body == {"nested": {"refresh_token": "***"}, "access_token": "***"}


def test_calls_to_filters_by_method_and_path(counter):
    count(counter)
    requests.post(counter.base_url + "/echo", timeout=10)
    assert [c.path for c in counter.calls_to("POST", "^/count")] == ["/count"]


def test_a_chunked_body_is_read(counter):
    answer = requests.post(counter.base_url + "/echo", data=iter([b"a=1&", b"b=2"]), timeout=10,
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.json() == {"a": "1", "b": "2"}


def test_a_bug_in_a_handler_answers_500_and_is_kept_for_the_test(counter):
    assert requests.get(counter.base_url + "/broken", timeout=10).status_code == 500
    assert "ZeroDivisionError" in counter.errors[0]
    counter.errors.clear()


def test_reset_forgets_rules_calls_and_state(counter):
    count(counter)
    counter.fail("POST", "/count", 500)
    counter.reset()
    assert (counter.calls, counter.count) == ([], 0)
    assert count(counter).status_code == 200


# --- control over HTTP --------------------------------------------------------------------------


def test_every_control_is_reachable_over_http_and_is_not_logged(counter):
    control = counter.base_url + "/_emulator/"
    answer = requests.post(control + "fail", json={"method": "POST", "path": "/count", "status": 429}, timeout=10)
    assert answer.status_code == 200
    assert count(counter).status_code == 429
    assert requests.post(control + "advance", json={"seconds": 60}, timeout=10).json() == {
        "result": "2026-11-22T10:01:00+00:00"}
    calls = requests.get(control + "calls", timeout=10).json()
    assert [(c["path"], c["status"], c["at"]) for c in calls] == [("/count", 429, "2026-11-22T10:00:00+00:00")]


def test_an_unknown_control_lists_those_there_are_and_bad_arguments_are_a_400(counter):
    unknown = requests.post(counter.base_url + "/_emulator/nope", json={}, timeout=10)
    assert unknown.status_code == 404 and "drop" in unknown.json()["controls"]
    assert requests.post(counter.base_url + "/_emulator/fail", json={"nope": 1}, timeout=10).status_code == 400


def test_a_control_takes_json_sent_as_curl_d_sends_it(counter):
    """`curl -X POST .../_emulator/advance -d '{"seconds": 60}'`, labelled a form."""
    answer = requests.post(counter.base_url + "/_emulator/advance", data=b'{"seconds": 60}',
                           headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=10)
    assert answer.json() == {"result": "2026-11-22T10:01:00+00:00"}
    refused = requests.post(counter.base_url + "/_emulator/advance", data=b"seconds=60",
                            headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=10)
    assert refused.status_code == 400 and "JSON object" in refused.json()["error"]


def test_the_media_server_serves_what_was_put_and_404_otherwise(media_server):
    url = media_server.put("/a/b.png", b"\x89PNG\r\n\x1a\n", "image/png")
    answer = requests.get(url, timeout=10)
    assert (answer.status_code, answer.headers["Content-Type"], answer.content[:4]) == (200, "image/png", b"\x89PNG")
    head = requests.head(url, timeout=10)
    assert (head.status_code, head.headers["Content-Length"], head.content) == (200, "8", b"")
    assert requests.get(media_server.url("/nothing.png"), timeout=10).status_code == 404


# --- running an emulator by hand ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("platform,prefix,first_host", [
    ("threads", "THREADS", "threads.net"), ("instagram", "INSTAGRAM", "www.instagram.com"), ("x", "X", "x.com"),
])
def test_each_emulator_runs_on_its_own_with_its_settings_and_stops_on_ctrl_c(platform, prefix, first_host):
    with run_by_hand(platform, "--port", "0", "--client-id", "cid", "--user", "42:someone") as (base_url, settings):
        assert settings["FANOUT_PLATFORM_HOSTS"].startswith(f"{first_host}={base_url},")
        assert (settings[f"FANOUT_{prefix}_CLIENT_ID"], settings[f"FANOUT_{prefix}_CLIENT_SECRET"]) == (
            "cid", f"{platform}-app-secret")
        users = requests.get(base_url + "/_emulator/users", timeout=10).json()
        assert [(u["id"], u["username"]) for u in users] == [("42", "someone")]


def by_hand(*arguments: str, cwd: Path = ROOT) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.emulators", *arguments], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def read_until(process: subprocess.Popen, last: str) -> list[str]:
    """The lines it prints, to the one starting with `last`."""
    lines = []
    while not lines or not lines[-1].startswith(last):
        line = process.stdout.readline()
        assert line, f"it ended: {lines} {process.stderr.read()}"
        lines.append(line.rstrip("\n"))
    return lines


def ctrl_c(process: subprocess.Popen) -> str:
    """SIGINT, as Ctrl-C sends; it must exit 0 within seconds. Answers what it printed then."""
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=10)
    assert process.returncode == 0
    return out


@pytest.mark.slow
def test_all_runs_every_platforms_emulator_and_a_media_server_and_writes_their_settings_while_they_run(tmp_path):
    first = free_ports(11)
    env_file = tmp_path / "var" / "emulators.env"
    process = by_hand("all", "--port", str(first), "--env-file", str(env_file))
    try:
        printed = read_until(process, "settings written to")
        platforms = ["threads", "instagram", "x", "tiktok", "bluesky", "linkedin", "facebook", "youtube", "pinterest",
                     "mastodon"]
        assert printed[:10] == [f"{name} emulator on http://127.0.0.1:{first + n} (control: http://127.0.0.1:{first + n}/_emulator/)"
                                for n, name in enumerate(platforms)]
        assert printed[10] == f"media server on http://127.0.0.1:{first + 10}: /clip.mp4, /photo.jpg, /photo.png, /square.jpg"
        assert stat.S_IMODE(env_file.stat().st_mode) == 0o600 and stat.S_IMODE(env_file.parent.stat().st_mode) == 0o700
        sourced = subprocess.run(["bash", "-c", f". {env_file} && env"], capture_output=True, text=True,
                                 check=True).stdout
        settings = dict(line.partition("=")[::2] for line in sourced.splitlines() if line.startswith("FANOUT_"))
        assert dict(line.removeprefix("export ").partition("=")[::2] for line in printed[11:-1]) == settings
        hosts = dict(pair.split("=") for pair in settings["FANOUT_PLATFORM_HOSTS"].split(","))
        assert (hosts["graph.threads.net"], hosts["graph.instagram.com"], hosts["api.x.com"], hosts["open.tiktokapis.com"],
                hosts["bsky.social"], hosts["api.linkedin.com"], hosts["graph.facebook.com"], hosts["www.googleapis.com"],
                hosts["api.pinterest.com"], hosts["mastodon.example"]) == tuple(
                    f"http://127.0.0.1:{first + n}" for n in range(10))
        apps = ("THREADS", "INSTAGRAM", "X", "TIKTOK", "LINKEDIN", "FACEBOOK", "YOUTUBE", "PINTEREST")
        assert {settings[f"FANOUT_{p}_CLIENT_ID"] for p in apps} == {
            "threads-app-id", "instagram-app-id", "x-app-id", "tiktok-app-id", "linkedin-app-id", "facebook-app-id",
            "youtube-app-id", "pinterest-app-id"}
        assert settings["FANOUT_TIKTOK_VERIFIED_DOMAINS"] == "127.0.0.1"
        photo = requests.get(f"http://127.0.0.1:{first + 10}/square.jpg", timeout=10)
        assert (photo.status_code, photo.headers["Content-Type"], photo.content[:2]) == (200, "image/jpeg", b"\xff\xd8")
        assert ctrl_c(process) == "stopped\n"
        assert not env_file.exists()
        with pytest.raises(requests.ConnectionError):
            requests.get(f"http://127.0.0.1:{first}/_emulator/clock", timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.mark.slow
def test_all_with_a_port_in_use_says_which_and_leaves_nothing_running():
    first = free_ports(11)
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # beside the port's holder
        taken.bind(("127.0.0.1", first + 2))
        taken.listen()
        process = by_hand("all", "--port", str(first))
        out, err = process.communicate(timeout=20)
    assert process.returncode == 1 and out == ""
    assert err == f"the x server cannot listen on 127.0.0.1:{first + 2}: Address already in use\n"
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://127.0.0.1:{first}/_emulator/clock", timeout=10)


@pytest.mark.slow
def test_the_media_server_runs_alone_and_serves_a_folder_too(tmp_path):
    (tmp_path / "launch.webp").write_bytes(b"RIFF\x00\x00\x00\x00WEBPVP8 ")
    process = by_hand("media", "--port", "0", "--media-dir", str(tmp_path))
    try:
        [line] = read_until(process, "media server on")
        base_url, paths = re.fullmatch(r"media server on (\S+): (.*)", line).groups()
        assert paths == "/clip.mp4, /launch.webp, /photo.jpg, /photo.png, /square.jpg"
        answer = requests.get(f"{base_url}/launch.webp", timeout=10)
        assert (answer.status_code, answer.headers["Content-Type"], answer.content[:4]) == (200, "image/webp", b"RIFF")
        assert ctrl_c(process) == "stopped\n"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
