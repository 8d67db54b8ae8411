"""Instagram (docs/platforms.md#instagram): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS, InstagramSettings

PLATFORM = Platform("instagram", "Instagram", RULES, adapter=adapter, settings=SETTINGS, config=InstagramSettings, hosts=adapter.HOSTS,
                    errors=MAPPING)
