"""LinkedIn's settings beyond its app's id and secret: names, defaults and how each is read
(documented in the README's settings table; contracts/test_platform_registry.py holds them
together)."""
from dataclasses import dataclass

from ...setting_parsers import Matching
from ..description import Setting

# A month LinkedIn serves its versioned API for (each version lives about a year).
DEFAULT_API_VERSION = "202610"


@dataclass(frozen=True)
class LinkedInSettings:
    # The `LinkedIn-Version` header of every /rest/ call: YYYYMM (or YYYYMM.RR).
    api_version: str = DEFAULT_API_VERSION


SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_LINKEDIN_API_VERSION", DEFAULT_API_VERSION,
            "the version of LinkedIn's REST API every call names (its LinkedIn-Version header)",
            "api_version", Matching(r"20\d{2}(0[1-9]|1[0-2])(\.\d{2})?", "a month as YYYYMM, such as 202610")),
)
