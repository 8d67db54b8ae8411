"""A plain `st run` against `fanout serve`: the spec alone, no config file, reaches every operation.

What a newcomer runs: `st run --header 'Authorization: Bearer <key>' <url>/v1/openapi.json`.
Everything it learns comes from openapi.yaml: the documented examples (the examples phase)
and the links (the stateful phase follows them from what one request made to the requests
on it). contracts/test_st_run.py runs the configured suite (every phase, every check,
webhooks kept to a receiver); this run pins what the spec gives a tool by itself:

- the examples phase sends every operation that takes input its documented examples, each
  passes every check, and each example of an operation on no particular resource reaches
  its logic (a 2xx) on a sandbox workspace: the examples name platforms, never ids that
  exist only in the spec, and each upload example has an Idempotency-Key of its own. The
  operations that take no input (no parameter, no body) have nothing to give an example
  of, so the phase skips them; coverage and fuzzing send them their one request
  (contracts/test_st_run.py).
- the stateful phase takes up every declared link (the run's summary counts them beside
  the ones it infers) and follows them. Which ones, and how many, is the draw's on a
  server whose state moves: a suite of scenarios ends early when Hypothesis replays a
  choice and the server's answer has changed (`FlakyStrategyDefinition`, "Inconsistent
  data generation"), and once the run spends the workspace's minute every answer is a 429
  that leads nowhere. So the run is bounded by time (`--max-time`: the phase starts again
  after a suite ends early, until the time is spent), a floor is asserted, and
  contracts/test_links.py follows every link.
- no check fails but `positive_data_acceptance` on the rules no schema can state, the same
  ones contracts/schemathesis.toml allows: an upload (a preflight, a change of a post)
  naming accounts the workspace does not have, or media a platform does not take (422), or
  a `scheduled_at` out of its range around now (400), and a `cursor` the service did not
  issue (400). Without a config file these count as failures, so the run's exit status is not
  what is asserted; each failure is.

The workspace is the one a quickstart leaves: a sandbox key and one sandbox account on each
platform, on the BUSINESS plan (600 requests a minute). The run sends as fast as the server
answers, so on a fast machine it spends the minute within some 15 s and is answered 429
from then on, as a newcomer's would be. The run disconnects accounts as
it goes (links lead there), so while it lasts the test connects again any platform left
without one, as end users would; never two on one platform, where an upload by
`platforms` would be ambiguous (422).

Phases: examples and stateful. Coverage and fuzzing, with no config, add uploads and
webhook registrations the data rules refuse; the configured run covers them. The server
runs with FANOUT_INSECURE_URLS=1: a webhook example's host is then only looked up when an
event is delivered, which fails here (the loopback guard resolves no name), so nothing
leaves the machine. The run's ndjson report is the output read here: which checks failed
on which answer, which links were applied.
"""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import requests
import yaml

from fanout.models import db
from fanout.models.workspace import create_workspace
from tests.conftest import bearer, loopback_guarded, make_key
from tests.loopback_site.loopback_guard import MARK

# Seconds for the whole run, the examples phase included (some 2 s of it).
MAX_TIME = 15
SPEC = yaml.safe_load((Path(__file__).resolve().parent.parent / "openapi.yaml").read_text())
PLATFORMS = ("x", "threads", "instagram", "tiktok")
METHODS = ("get", "put", "post", "delete", "patch")

# (operation, status, error code, a word of the message): the answers to schema-valid
# requests that only the data can refuse (contracts/schemathesis.toml says why for each).
# An upload, its preflight and a change of a post share the upload's rules: the accounts and
# media above, a `scheduled_at` within 60 s ago and 365 days ahead (a rule of the clock), and
# `accounts` and `overrides` naming only platforms the post reaches (checked by the service,
# not one schema rule per platform: openapi.yaml, `UploadRequest`).
DATA_RULES = {
    *((operation, status, code, word)
      for operation in ("POST /v1/upload", "POST /v1/upload/preflight", "PATCH /v1/posts/{id}")
      for status, code, word in ((422, "account_not_connected", ""), (422, "unsupported_media_for_platform", ""),
                                 (400, "validation_error", "scheduled_at"),
                                 (400, "validation_error", "which is not in platforms"),
                                 (400, "validation_error", "which this post does not reach"),
                                 # What each reached platform needs (fanout/content.py, empty_problem).
                                 (400, "validation_error", "no text and no media"),
                                 (400, "validation_error", "is blank"))),
    ("GET /v1/posts", 400, "validation_error", "cursor"),
    ("GET /v1/webhooks/{id}/deliveries", 400, "validation_error", "cursor"),
    ("GET /v1/events", 400, "validation_error", "cursor"),
    ("GET /v1/events", 400, "validation_error", "after names no event"),
}


def operations() -> dict[str, dict]:
    """'METHOD /path' -> its operation in openapi.yaml."""
    return {f"{method.upper()} {path}": item[method] for path, item in SPEC["paths"].items()
            for method in METHODS if method in item}


def takes_input(operation: dict) -> bool:
    return bool(operation.get("parameters") or operation.get("requestBody"))


def declared_links() -> set[str]:
    """Every link of the spec, named as Schemathesis names a transition."""
    by_id = {operation["operationId"]: label for label, operation in operations().items()}
    found = set()
    for label, operation in operations().items():
        for status, response in operation["responses"].items():
            for name, link in (response.get("links") or {}).items():
                found.add(f"{label} -> [{status}] {name} -> {by_id[link['operationId']]}")
    return found


class AccountsKeptConnected:
    """While it runs, a platform left without an active sandbox account gets one again."""

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url, self.headers = base_url, bearer(key)
        self.stop = threading.Event()
        self.connected = Counter()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def missing(self) -> list[str]:
        answer = requests.get(f"{self.base_url}/v1/accounts?status=active", headers=self.headers, timeout=10)
        if answer.status_code == 429:  # the run spent the workspace's minute: next round
            return []
        answer.raise_for_status()
        return [p for p in PLATFORMS if p not in {a["platform"] for a in answer.json()["data"]}]

    def connect_missing(self) -> None:
        for platform in self.missing():
            started = requests.post(f"{self.base_url}/v1/accounts/{platform}/connect", headers=self.headers, json={},
                                    timeout=10)
            if started.status_code == 429:
                return
            started.raise_for_status()
            link = urlsplit(started.json()["url"])
            landed = requests.get(f"{self.base_url}{link.path}?{link.query}", allow_redirects=False, timeout=10)
            assert landed.status_code == 302, landed.text
            self.connected[platform] += 1

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            self.connect_missing()

    def __enter__(self):
        self.connect_missing()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(15)


def run_report(report_dir: Path) -> list[dict]:
    [path] = report_dir.glob("*.ndjson")
    return [json.loads(line) for line in path.read_text().splitlines()]


def finished_scenarios(events: list[dict], phase: str) -> list[dict]:
    return [e["ScenarioFinished"] for e in events if "ScenarioFinished" in e and e["ScenarioFinished"]["phase"] == phase]


def failed_checks(events: list[dict]):
    """(check name, 'METHOD /path' of the operation, status, error object) of each failed check."""
    for event in events:
        recorder = (event.get("ScenarioFinished") or {}).get("recorder") or {}
        for case_id, checks in (recorder.get("checks") or {}).items():
            for check in checks:
                if check["status"] != "failure":
                    continue
                case = recorder["cases"][case_id]["value"]
                response = recorder["interactions"][case_id]["response"] or {}
                yield check["name"], f"{case['method']} {case['path']}", response.get("status_code"), error_of(response)


def error_of(response: dict) -> dict:
    """The error object of a recorded response, {} when it has none."""
    content = base64.b64decode((response.get("content") or {}).get("$base64", "")) or b"{}"
    try:
        return json.loads(content).get("error") or {}
    except (ValueError, AttributeError):
        return {}


def refused_by_data_rules(scenario: dict) -> bool:
    """Whether every check that failed in `scenario` is a schema-valid request refused by a
    rule of the data."""
    failures = list(failed_checks([{"ScenarioFinished": scenario}]))
    return bool(failures) and all(name == "positive_data_acceptance" and is_a_data_rule(*rest)
                                  for name, *rest in failures)


def example_answers(events: list[dict]):
    """('METHOD /path', status) of every request the examples phase sent but those a rule of
    the data refused (`refused_by_data_rules`)."""
    for scenario in finished_scenarios(events, "examples"):
        recorder = scenario["recorder"]
        for case_id, case in (recorder.get("cases") or {}).items():
            response = (recorder.get("interactions") or {}).get(case_id, {}).get("response") or {}
            label, status = f"{case['value']['method']} {case['value']['path']}", response.get("status_code")
            if not is_a_data_rule(label, status, error_of(response)):
                yield label, status


def applied_links(events: list[dict]) -> set[str]:
    return {case["transition"]["id"]
            for scenario in finished_scenarios(events, "stateful")
            for case in (scenario["recorder"].get("cases") or {}).values()
            if case.get("transition") and case.get("is_transition_applied")}


def is_a_data_rule(operation: str, status: int, error: dict) -> bool:
    return any(operation == op and status == code and error.get("code") == name and word in error.get("message", "")
               for op, code, name, word in DATA_RULES)


def test_a_plain_st_run_runs_every_example_and_follows_the_links(rt, servers, insecure_env, tmp_path):
    server = servers("serve", env=insecure_env)
    # Made in this process, in the database the server shares (tests/test_cli.py runs the
    # `fanout workspace` and `fanout key` commands a quickstart uses).
    with db.connection_context():
        workspace = create_workspace(rt, "Plain", "BUSINESS")  # 600 requests a minute
    key = make_key(rt, workspace.id, "sandbox")
    report = tmp_path / "report"
    command = [
        sys.executable, "-m", "schemathesis.cli", "run",
        "--header", f"Authorization: Bearer {key}", f"{server.url}/v1/openapi.json",
        "--phases", "examples,stateful", "--continue-on-failure", "--max-time", str(MAX_TIME),
        "--report", "ndjson", "--report-dir", str(report), "--no-color",
    ]
    env = loopback_guarded({**os.environ, "NO_COLOR": "1"})
    with AccountsKeptConnected(server.url, key):
        done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    print(done.stdout)  # the run's summary, shown with `pytest -rP`
    assert done.returncode in (0, 1), f"st run did not complete:\n{done.stdout}\n{done.stderr}"
    events = run_report(report)

    # Examples: every operation that takes input ran its examples and passed; only the
    # operations without input were skipped. An example Schemathesis completed with values
    # it captured (a board id into a post to other platforms) and the API refused by a rule
    # of the data passed too, as such refusals do below.
    examples = {s["recorder"]["label"]: "success" if s["status"] == "failure" and refused_by_data_rules(s)
                else s["status"] for s in finished_scenarios(events, "examples") if s["is_final"] is False}
    expected = {label: "success" if takes_input(op) else "skip" for label, op in operations().items()}
    assert examples == expected, done.stdout
    # And each reached the operation's logic: every example of an operation on no particular
    # resource was answered with success (the ids in a path's examples name nothing here:
    # 404). 401 answers the requests the `ignored_auth` check sends without the key.
    answers = [(label, status) for label, status in example_answers(events) if "{" not in label and status != 401]
    assert answers and all(200 <= status < 300 for _, status in answers), f"{answers}\n{done.stdout}"

    # Stateful: the run took up every declared link, the spec alone telling it of them
    # ("API Links: 23 covered / 82 selected / 82 total (44 inferred)"); the rest it infers.
    covered, selected, total, inferred = map(int, re.search(
        r"API Links:\s+(\d+) covered / (\d+) selected / (\d+) total \((\d+) inferred\)", done.stdout).groups())
    assert selected == total and total - inferred == len(declared_links()), done.stdout
    # And it followed them. Which ones is the draw's: unbounded, a run followed 6 to 23 of
    # 38 (52 runs), the 6 when a suite ended early and the phase with it; bounded at 15 s,
    # 12 to 20 (eight runs, four of them beside three busy processes, as on CI's two cores;
    # 13 to 21 at 25-30 s). A fifth is the floor; contracts/test_links.py follows every one.
    followed = declared_links() & applied_links(events)
    assert len(followed) * 5 >= len(declared_links()), f"links followed: {sorted(followed)}\n{done.stdout}"

    # No failure but a schema-valid request refused by a rule of the data.
    unexpected = [failure for failure in failed_checks(events)
                  if failure[0] != "positive_data_acceptance" or not is_a_data_rule(*failure[1:])]
    assert not unexpected, f"{unexpected}\n{done.stdout}"
    assert MARK not in server.log(), server.log()[-5000:]
