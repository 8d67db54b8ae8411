"""Instagram's settings beyond its app's id and secret: names, defaults and how each is read
(documented in the README's settings table; contracts/test_platform_registry.py holds them
together)."""
from dataclasses import dataclass

from ...setting_parsers import Matching, WholeNumber
from ..description import Setting


@dataclass(frozen=True)
class InstagramSettings:
    # Seconds a container may take to be ready before its target fails container_expired:
    # Instagram's containers live 24 hours.
    container_window: int = 86400
    # The version of Instagram's Graph API the adapter calls (`v25.0`).
    graph_api_version: str = "v25.0"


SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_INSTAGRAM_CONTAINER_WINDOW", "86400",
            "seconds a container may take to be ready before its target fails",
            "container_window", WholeNumber("seconds", 86400)),
    Setting("FANOUT_GRAPH_API_VERSION", "v25.0", "the version of the Graph API the adapter calls",
            "graph_api_version", Matching(r"v[0-9]{1,3}\.[0-9]{1,3}", "a Graph API version such as v25.0")),
)
