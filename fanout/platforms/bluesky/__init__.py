"""Bluesky (docs/platforms.md#bluesky): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS

PLATFORM = Platform("bluesky", "Bluesky", RULES, adapter=adapter, settings=SETTINGS, hosts=adapter.HOSTS,
                    errors=MAPPING)
