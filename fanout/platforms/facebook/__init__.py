"""Facebook Pages (docs/platforms.md#facebook): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS, FacebookSettings

PLATFORM = Platform("facebook", "Facebook", RULES, adapter=adapter, settings=SETTINGS, config=FacebookSettings,
                    hosts=adapter.HOSTS, errors=MAPPING)
