"""LinkedIn (docs/platforms.md#linkedin): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS, LinkedInSettings

PLATFORM = Platform("linkedin", "LinkedIn", RULES, adapter=adapter, settings=SETTINGS, config=LinkedInSettings,
                    hosts=adapter.HOSTS, errors=MAPPING)
