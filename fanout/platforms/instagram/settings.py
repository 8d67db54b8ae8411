"""Instagram's settings beyond its app's id and secret: names and defaults (parsed by fanout/settings.py,
documented in the README's settings table; contracts/test_platform_registry.py holds the three together)."""
from ..description import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_INSTAGRAM_CONTAINER_WINDOW", "86400",
            "seconds a container may take to be ready before its target fails"),
    Setting("FANOUT_GRAPH_API_VERSION", "v25.0", "the version of the Graph API the adapter calls"),
)
