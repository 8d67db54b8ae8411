"""X (docs/platforms.md#x): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .rules import RULES
from .settings import SETTINGS

PLATFORM = Platform("x", "X", RULES, adapter=adapter, settings=SETTINGS, hosts=adapter.HOSTS,
                    errors=adapter.MAPPING)
