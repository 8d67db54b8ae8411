"""`fanout serve` and its queue worker: stopped together, never a worker left behind, the
README's exit codes."""
import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

from fanout.ops.supervise import Backoff, WorkerProcess

from ..conftest import wait_for


def running(pid: int) -> bool:
    """Whether `pid` is a live process (an exited one that nobody reaped is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel, which counts a zombie as alive
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def serve_with_worker(servers, process_env):
    """A running `fanout serve` and the pid of its queue worker, once that is consuming."""
    srv = servers("serve", process_env)
    wait_for(lambda: "queue worker running" in srv.log(), 30, "the queue worker")
    return srv, int(re.search(r"started the queue worker \(pid (\d+)\)", srv.log()).group(1))


def test_sigterm_stops_the_worker_gracefully_and_serve_exits_0(servers, process_env):
    srv, worker_pid = serve_with_worker(servers, process_env)
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(35) == 0
    assert not running(worker_pid)
    assert "Consumer exiting" in srv.log()


def test_a_worker_whose_serve_was_killed_exits_within_10_s(servers, process_env):
    srv, worker_pid = serve_with_worker(servers, process_env)
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    wait_for(lambda: not running(worker_pid), 10, "the orphaned worker to exit")


def children_of(pid: int) -> set[int]:
    """The pids of the live processes whose parent is `pid`."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.add(int(stat.parent.name))
    return found


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as a server binding it would
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError:
            return False
    return True


def test_the_server_processes_of_a_killed_api_exit_within_10_s_and_free_the_port(servers):
    srv = servers("api", args=("--processes", "2"))
    port = int(srv.url.rsplit(":", 1)[1])
    children = wait_for(lambda: len(children_of(srv.proc.pid)) >= 2 and children_of(srv.proc.pid), 30, "two server processes")
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    try:
        wait_for(lambda: not any(running(pid) for pid in children), 10, "the orphaned server processes to exit")
        assert port_is_free(port)
    finally:
        for pid in filter(running, children):  # none, unless the test failed
            os.kill(pid, signal.SIGKILL)


def test_serve_on_a_busy_port_exits_1_with_a_one_line_reason(cli):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        failed = cli("serve", "--port", str(port), check=False)
    assert failed.returncode == 1
    assert failed.stderr.splitlines()[-1] == f"fanout: the API did not start on 127.0.0.1:{port} (the reason is logged above)"
    assert "address already in use" in failed.stderr.lower()


def test_no_worker_is_started_once_stop_has_begun(tmp_path):
    runs = tmp_path / "runs"
    worker = WorkerProcess([sys.executable, "-c", f"open({str(runs)!r}, 'a').write('run\\n')"])
    worker.start()
    wait_for(lambda: runs.exists() and worker.proc.poll() is not None, 10, "the first run to end")
    worker.stop()  # while the restart waits out its delay
    time.sleep(Backoff().first + 0.5)  # past the moment it would have restarted
    assert runs.read_text() == "run\n"


def test_a_worker_that_keeps_dying_at_once_is_restarted_less_and_less_often():
    backoff = Backoff(first=1, longest=60, healthy=30)
    assert [backoff.after(lived=0.2) for _ in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]


def test_after_a_healthy_run_the_restart_delay_starts_again():
    backoff = Backoff(first=1, longest=60, healthy=30)
    for _ in range(5):
        backoff.after(lived=0.2)
    assert backoff.after(lived=45) == 1
