"""TikTok's settings beyond its app's id and secret: names, defaults and how each is read
(documented in the README's "TikTok" section and settings table;
contracts/test_platform_registry.py holds them together)."""
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..description import Setting

PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
UPLOAD_METHODS = ("auto", "pull", "file")


@dataclass(frozen=True)
class TiktokSettings:
    # The privacy level posts ask for; None: the most public the creator offers.
    privacy_level: str | None = None
    # How videos go: auto (pull from a verified host, else upload), pull, or file.
    upload_method: str = "auto"
    # The media hosts or URL prefixes verified with TikTok for PULL_FROM_URL.
    verified_domains: tuple[str, ...] = ()


def _privacy_level(text: str) -> str | None:
    level = text.upper() or None
    if level is not None and level not in PRIVACY_LEVELS:
        raise ValueError(f"must be one of {', '.join(PRIVACY_LEVELS)}, not {text!r}")
    return level


def _upload_method(text: str) -> str:
    if text.lower() not in UPLOAD_METHODS:
        raise ValueError(f"must be auto, pull or file, not {text!r}")
    return text.lower()


def _verified_domains(text: str) -> tuple[str, ...]:
    verified = []
    for entry in filter(None, (e.strip() for e in text.split(","))):
        # A domain (media.example.com) or a URL prefix (https://cdn.example.com/videos/).
        parts = urlsplit(entry if "://" in entry else f"https://{entry}")
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise ValueError(f"must be domains or URL prefixes, separated by commas: {entry!r} is neither")
        verified.append(entry.lower() if "://" not in entry else entry)
    return tuple(verified)


SETTINGS: tuple[Setting, ...] = (
    Setting("FANOUT_TIKTOK_PRIVACY_LEVEL", "", "the privacy level of every post, if the creator offers it",
            "privacy_level", _privacy_level),
    Setting("FANOUT_TIKTOK_UPLOAD_METHOD", "auto", "auto, pull or file", "upload_method", _upload_method),
    Setting("FANOUT_TIKTOK_VERIFIED_DOMAINS", "", "media hosts or URL prefixes verified with TikTok for PULL_FROM_URL",
            "verified_domains", _verified_domains),
)
