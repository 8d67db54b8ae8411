"""TikTok (docs/platforms.md#tiktok): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS, TiktokSettings

PLATFORM = Platform("tiktok", "TikTok", RULES, adapter=adapter, settings=SETTINGS, config=TiktokSettings, hosts=adapter.HOSTS,
                    errors=MAPPING)
