"""Mastodon (docs/platforms.md#mastodon): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS

PLATFORM = Platform("mastodon", "Mastodon", RULES, adapter=adapter, settings=SETTINGS, hosts=adapter.HOSTS,
                    errors=MAPPING)
