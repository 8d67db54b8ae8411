"""The platforms Fanout publishes to: the registry of their packages, one `Platform`
(fanout/platforms/description.py) each, from which the platform list, the settings
(FANOUT_<P>_...), the connect pages, the rules and the publisher are derived.
contracts/test_platform_registry.py holds openapi.yaml and the event schemas to it;
docs/adding-a-platform.md says how a package is added.
"""
from __future__ import annotations

from importlib import import_module

from .description import Platform

# The packages, one a line: adding a platform adds its line (docs/adding-a-platform.md).
PACKAGES = (
    "bluesky",
    "facebook",
    "instagram",
    "linkedin",
    "mastodon",
    "pinterest",
    "threads",
    "tiktok",
    "x",
    "youtube",
)
REGISTRY: dict[str, Platform] = {p.name: p for p in (import_module(f"{__name__}.{name}").PLATFORM for name in PACKAGES)}
NAMES = {name: p.title for name, p in REGISTRY.items()}
PLATFORMS = tuple(REGISTRY)
RULES = {name: p.rules for name, p in REGISTRY.items()}


def caption_problem(platform: str, caption: str) -> str | None:
    """Why `caption` is over the caps of `platform` (a name of the registry), or None."""
    return RULES[platform].caption_problem(caption)


def media_problem(platform: str, media: list[dict] | None) -> str | None:
    """Why `platform` (a name of the registry) cannot take `media`, as far as the request
    alone shows; None if nothing is wrong with it before fetching."""
    return RULES[platform].media_problem(media)
