"""Pinterest's settings beyond its app's id and secret: none (contracts/test_platform_registry.py
holds the package, the README's settings table and fanout/settings.py together)."""
from ..description import Setting

SETTINGS: tuple[Setting, ...] = ()  # only the app's FANOUT_PINTEREST_CLIENT_ID and _SECRET
