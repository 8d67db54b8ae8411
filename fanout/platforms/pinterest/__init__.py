"""Pinterest (docs/platforms.md#pinterest): what the rest of the service knows of it is `PLATFORM`."""
from ..description import Platform
from . import adapter
from .boards import board_problem, sandbox_details
from .errors import MAPPING
from .rules import RULES
from .settings import SETTINGS

PLATFORM = Platform("pinterest", "Pinterest", RULES, adapter=adapter, settings=SETTINGS, hosts=adapter.HOSTS,
                    errors=MAPPING, account_problem=board_problem, sandbox_details=sandbox_details)
