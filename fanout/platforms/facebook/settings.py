"""Facebook's settings beyond its app's id and secret: names, defaults and how each is read
(documented in the README's settings table; contracts/test_platform_registry.py holds them
together)."""
from dataclasses import dataclass

from ...setting_parsers import Matching
from ..description import Setting

DEFAULT_API_VERSION = "v25.0"


@dataclass(frozen=True)
class FacebookSettings:
    # The version of the Graph API every call after the login dialog names (`/v25.0/...`).
    api_version: str = DEFAULT_API_VERSION


SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_FACEBOOK_API_VERSION", DEFAULT_API_VERSION,
            "the version of Facebook's Graph API the adapter calls", "api_version",
            Matching(r"v[0-9]{1,3}\.[0-9]{1,3}", "a Graph API version such as v25.0")),
)
