"""TikTok's settings beyond its app's id and secret: names and defaults (parsed by fanout/settings.py,
documented in the README's settings table; contracts/test_platform_registry.py holds the three together)."""
from ..description import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_TIKTOK_PRIVACY_LEVEL", "", "the privacy level of every post, if the creator offers it"),
    Setting("FANOUT_TIKTOK_UPLOAD_METHOD", "auto", "auto, pull or file"),
    Setting("FANOUT_TIKTOK_VERIFIED_DOMAINS", "", "media hosts or URL prefixes verified with TikTok for PULL_FROM_URL"),
)
