"""The README run as pasted: the quickstart's `sh` blocks in bash, one bash per shell they
name, against a real `fanout serve` and `fanout listen` on loopback; then, in the shells
the quickstart left, posts in time (scheduled, edited, cancelled, tried), the generated
client's blocks (its example saved as the README says), or live mode on one machine (the
emulators in a fourth shell). Only the ports change (to
free ones). Each `# → ` line under a command is what it prints, `...` standing for
anything; every such line must match a line of that shell's output, in order."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .conftest import free_port, free_ports, loopback_guarded, wait_for

README = Path(__file__).resolve().parent.parent / "README.md"
EXPECTED = "# → "


@dataclass(frozen=True)
class Block:
    shell: int
    text: str

    @property
    def expected(self) -> list[str]:
        return [line[len(EXPECTED):] for line in self.text.splitlines() if line.startswith(EXPECTED)]


def section(readme: str, title: str) -> str:
    return readme.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def shell_blocks(text: str) -> list[Block]:
    """The `sh` blocks of a section, each starting with `# Shell N: ...`."""
    blocks = []
    for code in re.findall(r"^```sh\n(.*?)^```$", text, flags=re.S | re.M):
        shell = re.match(r"# Shell (\d+):", code)
        assert shell, f"a block does not say which shell runs it:\n{code}"
        blocks.append(Block(int(shell.group(1)), code))
    return blocks


def quickstart_blocks(readme: str) -> list[Block]:
    return shell_blocks(section(readme, "Quickstart"))


def python_block(text: str) -> str:
    [code] = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
    return code


def matches(expected: str, line: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, line) is not None


def unmatched(expected: list[str], output: str) -> list[str]:
    """The expected lines that `output` does not show, in order; [] when it shows them all."""
    lines = iter(output.splitlines())
    return [want for want in expected if not any(matches(want, line) for line in lines)]


@dataclass
class Shell:
    """A bash fed commands on stdin, as a person types them; stdout and stderr together."""

    proc: subprocess.Popen
    output: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, cwd: Path, env: dict) -> "Shell":
        proc = subprocess.Popen(["bash"], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        shell = cls(proc)
        threading.Thread(target=shell._read, daemon=True).start()
        # Any failing command or unset variable ends the shell: the test sees it at once.
        shell.send("set -euo pipefail\n")
        return shell

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.output.append(line)

    def text(self) -> str:
        return "".join(self.output)

    def send(self, text: str) -> None:
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def run(self, block: Block, seconds: float = 60) -> None:
        """Run `block` to its end; AssertionError with the output if a command fails."""
        marker = f"__block_done_{len(self.output)}__"
        self.send(f"{block.text}\necho {marker}\n")
        wait_for(lambda: marker in self.text() or self.proc.poll() is not None, seconds, f"the block:\n{block.text}")
        assert marker in self.text(), f"the block failed:\n{block.text}\n--- output ---\n{self.text()}"

    def show(self, expected: list[str], seconds: float = 60) -> None:
        """Wait until the output shows every expected line, in order."""
        try:
            wait_for(lambda: not unmatched(expected, self.text()), seconds, "the expected output")
        except AssertionError:
            raise AssertionError(f"not shown: {unmatched(expected, self.text())}\n--- output ---\n{self.text()}") from None

    def interrupt(self) -> int:
        """Ctrl-C in the terminal: SIGINT to everything the shell runs, then end its input."""
        os.killpg(self.proc.pid, signal.SIGINT)
        self.proc.stdin.close()
        return self.proc.wait(40)


# The README's ports: the API, the webhook receiver, and the emulators' from 9200 on (each
# platform's, then the media server's).
EMULATOR_PORTS = [str(port) for port in range(9200, 9211)]
PORTS = ["8000", "9000", *EMULATOR_PORTS]


def with_free_ports(text: str) -> str:
    """`text` with each of the README's ports replaced by a free one (the emulators'
    consecutive, as `all --port` takes them), all at once."""
    emulators = free_ports(len(EMULATOR_PORTS))
    free = dict(zip(PORTS, [free_port(), free_port(), *range(emulators, emulators + len(EMULATOR_PORTS))]))
    return re.sub(r"\b(" + "|".join(PORTS) + r")\b", lambda m: str(free[m.group(1)]), text)


@dataclass
class Reader:
    """A reader's clone after the quickstart: its folder, its README (on this test's ports),
    and its shells, each where the quickstart left it."""

    folder: Path
    readme: str
    env: dict
    shells: dict[int, Shell]


@pytest.fixture
def quickstart(tmp_path):
    """The quickstart's blocks run as pasted, each checked against its `# →` lines; the
    shells stay as the quickstart leaves them (server and receiver running) and are killed
    after the test."""
    readme = with_free_ports(README.read_text())
    blocks = quickstart_blocks(readme)
    assert [b.shell for b in blocks] == [1, 2, 3, 2], "the quickstart's shells changed: update this test"
    # The clone's folder: its .venv is the one running the tests, its tests/ (the emulators) ours.
    venv = Path(sys.prefix)
    assert (venv / "bin" / "activate").exists(), "run the suite from the .venv the README installs"
    (tmp_path / ".venv").symlink_to(venv)
    (tmp_path / "tests").symlink_to(README.parent / "tests")
    env = loopback_guarded({k: v for k, v in os.environ.items() if not k.startswith("FANOUT_")})

    shells = {n: Shell.start(tmp_path, env) for n in (1, 2, 3)}
    try:
        server, setup, listen, post = blocks
        shells[1].send(server.text + "\n")
        shells[1].show(server.expected)
        shells[2].run(setup)
        shells[2].show(setup.expected)
        shells[3].send(listen.text + "\n")
        banner, *delivery = listen.expected
        shells[3].show([banner])
        shells[2].run(post)
        shells[2].show(post.expected)
        shells[3].show(listen.expected)
        yield Reader(tmp_path, readme, env, shells)
    finally:
        for shell in shells.values():
            if shell.proc.poll() is None:
                os.killpg(shell.proc.pid, signal.SIGKILL)
                shell.proc.wait()


def test_the_quickstart_works_as_pasted(quickstart):
    # Ctrl-C stops both, each exiting 0 (the shell exits with its last command's status).
    assert quickstart.shells[3].interrupt() == 0, quickstart.shells[3].text()
    assert quickstart.shells[1].interrupt() == 0, quickstart.shells[1].text()


def test_the_generated_client_works_as_pasted_after_the_quickstart(quickstart):
    """In the quickstart's second shell and workspace, which has an X account already."""
    client = section(quickstart.readme, "A generated Python client")
    generate, run_example = shell_blocks(client)
    assert (generate.shell, run_example.shell) == (2, 2), "the client's blocks changed: update this test"
    shell = quickstart.shells[2]
    shell.run(generate, seconds=120)
    (quickstart.folder / "sdk_example.py").write_text(python_block(client))  # "Save it as sdk_example.py"
    shell.run(run_example, seconds=120)
    shell.show(run_example.expected)


def test_posts_in_time_work_as_pasted_after_the_quickstart(quickstart):
    """In the quickstart's second shell: a post scheduled 5 s ahead, listed as scheduled and
    then published; one edited, then cancelled; an edit refused once published; two preflights."""
    blocks = shell_blocks(section(quickstart.readme, "Posts in time"))
    assert [b.shell for b in blocks] == [2, 2, 2, 2], "the blocks' shells changed: update this test"
    shell = quickstart.shells[2]
    for block in blocks:
        start = len(shell.output)
        shell.run(block)
        shown = "".join(shell.output[start:])  # this block's, not the quickstart's like it
        assert not unmatched(block.expected, shown), f"not shown: {unmatched(block.expected, shown)}\n{shown}"


def test_catching_up_after_downtime_works_as_pasted(quickstart):
    """After the quickstart: the newest event noted, the receiver stopped (Ctrl-C in shell 3,
    as the README says), a post published while it is down, then every event after the
    one noted, read from the events log."""
    note, catch_up = shell_blocks(section(quickstart.readme, "Catching up after downtime"))
    assert (note.shell, catch_up.shell) == (2, 2), "the section's blocks changed: update this test"
    shell = quickstart.shells[2]
    shell.run(note)
    shell.show(note.expected)
    assert quickstart.shells[3].interrupt() == 0, quickstart.shells[3].text()
    shell.run(catch_up, seconds=120)
    shell.show(catch_up.expected)


def test_live_mode_on_one_machine_works_as_pasted(quickstart):
    """After the quickstart: the emulators in a fourth shell, the server restarted in the
    first with their settings, then in the second a live account on each platform through
    each emulator's consent (Bluesky's through Fanout's own form, Mastodon's after it), one post to all eight, completed, and one with each platform's
    own content, read back from the emulators."""
    emulators, server, trial, content = shell_blocks(section(quickstart.readme, "Live mode on one machine"))
    assert (emulators.shell, server.shell, trial.shell, content.shell) == (4, 1, 2, 2), \
        "the live blocks' shells changed: update this test"
    shells, settings = quickstart.shells, quickstart.folder / "var" / "emulators.env"
    assert shells[1].interrupt() == 0, shells[1].text()  # Ctrl-C the quickstart's server
    shells[4] = Shell.start(quickstart.folder, quickstart.env)
    shells[4].send(emulators.text + "\n")
    shells[4].show(emulators.expected)
    shells[1] = Shell.start(quickstart.folder, quickstart.env)
    shells[1].send(server.text + "\n")
    shells[1].show(server.expected)
    shells[2].run(trial, seconds=120)
    shells[2].show(trial.expected)
    shells[2].run(content, seconds=120)
    shells[2].show(content.expected)
    # Ctrl-C stops the server and the emulators, each exiting 0; the settings file goes.
    assert shells[1].interrupt() == 0, shells[1].text()
    assert shells[4].interrupt() == 0, shells[4].text()
    assert shells[4].text().endswith("stopped\n") and not settings.exists()


def test_the_readmes_ports_are_replaced_whole_and_at_once():
    text = " ".join(PORTS) + " 18000 92001"
    replaced = with_free_ports(text).split()
    api, receiver, *emulators = map(int, replaced[:len(PORTS)])
    assert emulators == list(range(emulators[0], emulators[0] + len(EMULATOR_PORTS)))
    assert len({api, receiver, *emulators}) == len(PORTS) and replaced[len(PORTS):] == ["18000", "92001"]


def test_expected_lines_match_with_dots_standing_for_anything():
    assert matches('{"id": "ws_...", "plan": "FREE"}', '{"id": "ws_01ABC", "plan": "FREE"}')
    assert not matches('{"id": "ws_...", "plan": "FREE"}', '{"id": "ws_01ABC", "plan": "PRO"}')
    assert unmatched(["a...", "b"], "b\na1\n") == ["b"]  # order counts
