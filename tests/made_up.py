"""The vocabulary of platforms of the tests only (never shipped, not in the spec's enum):
rules that take text and nothing else, and an adapter's connect-side hooks that publishing
tests do not reach."""
from __future__ import annotations

from fanout.media import MediaLimits
from fanout.platforms.base import Grant
from fanout.platforms.rules import Needs, PlatformRules


def text_rules(platform: str, caption_limit: int = 300) -> PlatformRules:
    """A platform's rules that take a caption of up to `caption_limit` characters and no media."""
    return PlatformRules(
        platform=platform, caption_limit=caption_limit, caption_length=len, caption_unit="", needs=Needs.TEXT_OR_MEDIA,
        image_extensions=frozenset(), video_extensions=frozenset(), max_items=0, max_images=0, max_videos=0,
        mixed=False, media_limits=MediaLimits(platform=platform, image_formats=frozenset(), video_formats=frozenset(),
                                              image_max_bytes=0, video_max_bytes=0))


class ConnectOnly:
    """An adapter whose tests only connect: its token stays, and it never publishes."""

    __test__ = False

    def refresh(self, http, app, access_token, refresh_token=None, *, now) -> Grant:
        return Grant(access_token=access_token)

    def refresh_due(self, expires_at):
        return expires_at

    def publish(self, step, job):
        raise AssertionError("nothing is published here")
