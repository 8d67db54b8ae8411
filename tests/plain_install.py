"""A plain install, as a user makes one: the wheel built from this tree, installed (not
editable) into a fresh venv without the system's packages, and run from a folder outside
the checkout, with its data in that folder's `./var`.

`python -m tests.plain_install` (CI's `.ci/wheel-check`) installs the wheel with its
dependencies from the package index, serves it and makes authenticated requests.
tests/test_wheel.py does the same with the dependencies of the venv running it (a `.pth`
line), which takes a second instead of a dozen; the fanout package comes from the wheel
either way.

Standard library only: it runs before anything but the build tools is known to work.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What a checkout holds besides its files: never copied into the build's source.
LOCAL_STATE = shutil.ignore_patterns(".git", ".venv", "var", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".hypothesis", "schemathesis-report")
# Bounds, so a hung step fails the check instead of the CI job's own timeout.
STEP_SECONDS = 300
START_SECONDS = 60
STOP_SECONDS = 40


def run(args: list, **kwargs) -> subprocess.CompletedProcess:
    """`args`, which must succeed within STEP_SECONDS; its output is shown only if it fails."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=STEP_SECONDS, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def build_wheel(folder: Path) -> Path:
    """The wheel of this tree, built from a copy of it in `folder`: a build writes `build/`
    and `*.egg-info` where it runs, and CI runs two test passes at once."""
    source = folder / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=LOCAL_STATE)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
         "-w", folder / "dist", source])
    [wheel] = (folder / "dist").glob("fanout-*.whl")
    return wheel


def site_packages(venv: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))


def install(wheel: Path, venv: Path, deps_from: Path | None = None) -> Path:
    """A fresh venv with `wheel` installed, and its bin folder. Dependencies come from the
    package index, or, given `deps_from`, from that site-packages folder."""
    if deps_from is None:
        run([sys.executable, "-m", "venv", venv])
        run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel])
        return venv / "bin"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps", "--no-index", wheel])
    # Added after the install, so pip never meets the editable fanout there. A folder named
    # in a .pth is only put on sys.path: the .pth files in it (that editable install's) do
    # not run, so `import fanout` finds the wheel's package and nothing else.
    (site_packages(venv) / "fanout-test-dependencies.pth").write_text(f"{deps_from}\n")
    return venv / "bin"


def plain_env(extra: dict | None = None) -> dict:
    """The environment of a user's shell: no PYTHONPATH, no FANOUT_ setting, but `extra`."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    return {**{k: os.environ[k] for k in keep if k in os.environ}, **(extra or {})}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, headers: dict | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class Serving:
    """A running `fanout serve` of an install: its URL, and its log so far."""

    def __init__(self, url: str, proc: subprocess.Popen, log_path: Path):
        self.url, self.proc, self.log_path = url, proc, log_path
        self.exit_code: int | None = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def serving(bin: Path, cwd: Path, port: int, env: dict):
    """`fanout serve --port PORT` of the install in `bin`, run in `cwd`; stopped with SIGTERM
    on leaving, its exit status then in `exit_code`."""
    log_path = cwd / "serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([bin / "fanout", "serve", "--port", str(port)], cwd=cwd, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    server = Serving(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"fanout serve exited {proc.returncode}:\n{server.log()}")
            try:
                get(f"{server.url}/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"fanout serve did not answer within {START_SECONDS} s:\n{server.log()}") from None
                time.sleep(0.2)
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            server.exit_code = proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            server.exit_code = proc.wait()


def fanout_json(bin: Path, cwd: Path, env: dict, *args: str):
    """One `fanout` command of the install, run like `serve` (same folder, same data): its JSON."""
    return json.loads(run([bin / "fanout", *args, "--json"], cwd=cwd, env=env).stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder, and say where it is")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fanout-wheel-check-"))
    started = time.monotonic()
    try:
        wheel = build_wheel(folder)
        print(f"built {wheel.name}", flush=True)
        bin = install(wheel, folder / "venv")
        print(f"installed it with its dependencies into a fresh venv ({time.monotonic() - started:.0f} s so far)", flush=True)
        elsewhere = folder / "elsewhere"
        elsewhere.mkdir()
        env = plain_env()
        where = run([bin / "python", "-c", "import fanout; print(fanout.__file__)"], cwd=elsewhere, env=env).stdout.strip()
        if not Path(where).is_relative_to(site_packages(folder / "venv")):
            raise RuntimeError(f"fanout was imported from {where}, not from the installed wheel")
        with serving(bin, elsewhere, free_port(), env) as server:
            status, body = get(f"{server.url}/v1/openapi.json")
            if status != 200 or json.loads(body).get("openapi", "")[:2] != "3.":
                raise RuntimeError(f"GET /v1/openapi.json answered {status}: {body[:300]!r}")
            ws = fanout_json(bin, elsewhere, env, "workspace", "create", "Wheel check")
            key = fanout_json(bin, elsewhere, env, "key", "create", ws["id"], "--mode", "sandbox")["key"]
            status, body = get(f"{server.url}/v1/accounts", {"Authorization": f"Bearer {key}"})
            if (status, json.loads(body)) != (200, {"data": []}):
                raise RuntimeError(f"GET /v1/accounts answered {status}: {body[:300]!r}")
        if server.exit_code != 0:
            raise RuntimeError(f"fanout serve exited {server.exit_code} on SIGTERM:\n{server.log()}")
        print(f"fanout serve of the wheel, run from {elsewhere}, answered GET /v1/openapi.json and an "
              f"authenticated GET /v1/accounts, and stopped with exit 0 ({time.monotonic() - started:.0f} s in all)")
        return 0
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"wheel check failed: {e}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
