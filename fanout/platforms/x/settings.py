"""X's settings beyond its app's id and secret: names and defaults (parsed by fanout/settings.py,
documented in the README's settings table; contracts/test_platform_registry.py holds the three together)."""
from ..description import Setting

SETTINGS: tuple[Setting, ...] = ()  # only the app's FANOUT_X_CLIENT_ID and _SECRET
