"""Threads's settings beyond its app's id and secret: names, defaults and how each is read
(documented in the README's settings table; contracts/test_platform_registry.py holds them
together)."""
from dataclasses import dataclass

from ...setting_parsers import WholeNumber
from ..description import Setting


@dataclass(frozen=True)
class ThreadsSettings:
    # Seconds a container may take to be ready before its target fails container_expired.
    container_window: int = 300


SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_THREADS_CONTAINER_WINDOW", "300",
            "seconds a container may take to be ready before its target fails",
            "container_window", WholeNumber("seconds", 86400)),
)
