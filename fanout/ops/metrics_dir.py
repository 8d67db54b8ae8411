"""The folder where every process sharing a data folder writes its metrics.

prometheus_client sums the processes of `fanout api --processes N`, `fanout serve` and its
worker, and `fanout worker` through files in one folder, PROMETHEUS_MULTIPROC_DIR (here
`<data folder>/metrics`, 0700). It picks that mode when it is first imported, so the
`fanout` command calls `prepare` before anything imports it; the processes it starts
inherit the variable. This module does not import prometheus_client for that reason.

Each file is named after the process that writes it (`counter_<pid>.db`). `serve` and
`api` start with a clean folder: files of processes that are no longer running are
removed, those of running ones (a `fanout worker` sharing the data folder) are kept.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

from ..datadir import private_file, private_folder

log = logging.getLogger(__name__)

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
FOLDER = "metrics"
# The files prometheus_client writes for the kinds of metric fanout.ops.metrics defines.
KINDS = ("counter", "histogram", "gauge_livesum")


def prepare(data_dir: Path, *, clean: bool) -> Path:
    """Make `<data_dir>/metrics` this process's (and its children's) metrics folder."""
    folder = private_folder(private_folder(Path(data_dir)) / FOLDER)  # the data folder 0700 too, if new
    if clean:
        removed = 0
        for path in folder.glob("*.db"):
            pid = pid_of(path)
            if pid is None or pid == os.getpid() or not is_running(pid):
                path.unlink(missing_ok=True)
                removed += 1
        if removed:
            log.info("removed %d metrics files of processes no longer running from %s", removed, folder)
    os.environ[VARIABLE] = str(folder)
    return folder


def current() -> Path | None:
    """The metrics folder of this process, or None: metrics stay in the process."""
    value = os.environ.get(VARIABLE)
    return Path(value) if value else None


def pid_of(path: Path) -> int | None:
    tail = path.stem.rpartition("_")[2]
    return int(tail) if tail.isdigit() else None


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def dead_pids(folder: Path) -> set[int]:
    """Processes that wrote metrics here and are no longer running."""
    return {pid for pid in map(pid_of, folder.glob("*.db")) if pid is not None and not is_running(pid)}


def claim_files(folder: Path) -> None:
    """Create this process's metrics files private (0600) before prometheus_client would
    create them with the umask's mode; each appears complete, never empty, for a scrape."""
    from prometheus_client.mmap_dict import MmapedDict

    for kind in KINDS:
        path = folder / f"{kind}_{os.getpid()}.db"
        if path.exists():
            continue
        partial = private_file(path.with_suffix(".db.new"))
        MmapedDict(str(partial)).close()  # writes the header a reader expects
        os.replace(partial, path)
