"""YouTube (docs/platforms.md#youtube): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS, YoutubeSettings

PLATFORM = Platform("youtube", "YouTube", RULES, adapter=adapter, settings=SETTINGS, config=YoutubeSettings,
                    hosts=adapter.HOSTS, errors=MAPPING)
