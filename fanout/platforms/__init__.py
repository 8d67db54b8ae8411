"""The platforms Fanout publishes to: the registry of their `Platform` descriptions
(fanout/platforms/description.py), from which the platform list, the settings
(FANOUT_<P>_...), the connect pages, the rules and the publisher are derived.
contracts/test_platform_registry.py holds openapi.yaml and the event schemas to it.
"""
from __future__ import annotations

from . import instagram, threads, tiktok, x
from .description import Platform, Setting
from .rules import RULES

REGISTRY: dict[str, Platform] = {
    p.name: p
    for p in (
        Platform("instagram", "Instagram", RULES["instagram"], adapter=instagram, hosts=instagram.HOSTS,
                 errors=instagram.MAPPING, settings=(
                     Setting("FANOUT_INSTAGRAM_CONTAINER_WINDOW", "86400",
                             "seconds a container may take to be ready before its target fails"),
                     Setting("FANOUT_GRAPH_API_VERSION", "v25.0", "the version of the Graph API the adapter calls"),
                 )),
        Platform("threads", "Threads", RULES["threads"], adapter=threads, hosts=threads.HOSTS,
                 errors=threads.MAPPING, settings=(
                     Setting("FANOUT_THREADS_CONTAINER_WINDOW", "300",
                             "seconds a container may take to be ready before its target fails"),)),
        Platform("tiktok", "TikTok", RULES["tiktok"], adapter=tiktok, hosts=tiktok.HOSTS,
                 errors=tiktok.MAPPING, settings=(
                     Setting("FANOUT_TIKTOK_PRIVACY_LEVEL", "", "the privacy level of every post, if the creator offers it"),
                     Setting("FANOUT_TIKTOK_UPLOAD_METHOD", "auto", "auto, pull or file"),
                     Setting("FANOUT_TIKTOK_VERIFIED_DOMAINS", "",
                             "media hosts or URL prefixes verified with TikTok for PULL_FROM_URL"),
                 )),
        Platform("x", "X", RULES["x"], adapter=x, hosts=x.HOSTS, errors=x.MAPPING),
    )
}
NAMES = {name: p.title for name, p in REGISTRY.items()}
PLATFORMS = tuple(REGISTRY)
