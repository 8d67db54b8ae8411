"""The base URL a server of a data folder announces, for the commands run beside it.

`fanout serve` and `fanout api` write the URL their links point at (FANOUT_BASE_URL, or
the address they listen on) to `server-url` in the data folder as they start; `fanout
dashboard-link` prints its link on it, so the link names the port the server was given
(README "The dashboard").
"""
from __future__ import annotations

from pathlib import Path

from ..datadir import private_file

FILE = "server-url"


def announce(data_dir: Path, base_url: str) -> None:
    path = private_file(Path(data_dir) / FILE)
    path.write_text(base_url + "\n")


def announced(data_dir: Path) -> str | None:
    """The URL the data folder's server last announced, or None if none ever started there."""
    try:
        return (Path(data_dir) / FILE).read_text().strip() or None
    except FileNotFoundError:
        return None
