"""Threads (docs/platforms.md#threads): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS, ThreadsSettings

PLATFORM = Platform("threads", "Threads", RULES, adapter=adapter, settings=SETTINGS, config=ThreadsSettings, hosts=adapter.HOSTS,
                    errors=MAPPING)
