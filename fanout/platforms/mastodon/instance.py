"""A Mastodon instance: where it is (the host its user named, which must still be one this
server may call) and what it states of itself (`GET /api/v2/instance`, `/api/v1/instance`
on servers before 4.0), read at connect and again before each publish, since an admin may
change it (docs/platforms.md#mastodon).

What Fanout reads of `configuration`: `statuses.max_characters` (500 when it states none),
`statuses.max_media_attachments` (4), `media_attachments.description_limit` (1,500),
`image_size_limit` and `video_size_limit` (16 MB and 99 MB, Mastodon's), and
`supported_mime_types` (Mastodon's defaults when absent). A value that is not a positive
number is taken as unstated: forks fill the document their own way.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...media import FORMATS
from ...outbound import guard
from ..rules import PlatformRules

TITLE = "Mastodon"
V2, V1 = "/api/v2/instance", "/api/v1/instance"
# What an instance that states nothing is held to: Mastodon's own numbers.
DEFAULT_CHARACTERS, DEFAULT_ATTACHMENTS, DEFAULT_DESCRIPTION = 500, 4, 1500
DEFAULT_IMAGE_BYTES, DEFAULT_VIDEO_BYTES = 16_777_216, 103_809_024
# A MIME type an instance lists -> the formats of fanout/media.py it names (HEIF is HEIC's).
_BY_MIME: dict[str, set[str]] = {}
for _format in FORMATS.values():
    _BY_MIME.setdefault(_format.mime, set()).add(_format.name)
_BY_MIME["image/heif"] = {"heic"}


@dataclass(frozen=True)
class Instance:
    """What one instance states (its defaults Mastodon's), as kept in a publish's state."""

    host: str
    max_characters: int = DEFAULT_CHARACTERS
    max_media_attachments: int = DEFAULT_ATTACHMENTS
    description_limit: int = DEFAULT_DESCRIPTION
    image_size_limit: int = DEFAULT_IMAGE_BYTES
    video_size_limit: int = DEFAULT_VIDEO_BYTES
    mime_types: tuple[str, ...] | None = None  # None: Mastodon's defaults (the static rules')

    def saved(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_saved(cls, saved: Mapping[str, Any]) -> "Instance":
        values = dict(saved)
        if values.get("mime_types") is not None:
            values["mime_types"] = tuple(values["mime_types"])
        return cls(**values)

    def rules(self, rules: PlatformRules) -> PlatformRules:
        """`rules` with the media limits this instance states: its file sizes, and of the
        formats the static rules take, those its MIME types name."""
        limits = rules.media_limits
        formats = {name for mime in self.mime_types or () for name in _BY_MIME.get(mime.lower(), ())}
        narrowed = dataclasses.replace(
            limits,
            image_formats=limits.image_formats & formats if self.mime_types is not None else limits.image_formats,
            video_formats=limits.video_formats & formats if self.mime_types is not None else limits.video_formats,
            image_max_bytes=min(limits.image_max_bytes, self.image_size_limit),
            video_max_bytes=min(limits.video_max_bytes, self.video_size_limit))
        return dataclasses.replace(rules, media_limits=narrowed)


def parse(host: str, body: Mapping[str, Any]) -> Instance:
    """The instance document of `host` (v2, or v1 with `configuration` since 3.4 and a
    fork's `max_toot_chars`), its unstated values Mastodon's."""
    configuration = _object(body.get("configuration"))
    statuses, media = _object(configuration.get("statuses")), _object(configuration.get("media_attachments"))
    mime_types = media.get("supported_mime_types")
    return Instance(
        host=host,
        max_characters=_positive(statuses.get("max_characters"), _positive(body.get("max_toot_chars"),
                                                                           DEFAULT_CHARACTERS)),
        max_media_attachments=_positive(statuses.get("max_media_attachments"), DEFAULT_ATTACHMENTS),
        description_limit=_positive(media.get("description_limit"), DEFAULT_DESCRIPTION),
        image_size_limit=_positive(media.get("image_size_limit"), DEFAULT_IMAGE_BYTES),
        video_size_limit=_positive(media.get("video_size_limit"), DEFAULT_VIDEO_BYTES),
        mime_types=tuple(m for m in mime_types if isinstance(m, str)) if isinstance(mime_types, list) else None,
    )


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _positive(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def host_problem(host: str, settings, resolve) -> str | None:
    """Why this server may not call `host` now, or None: a host FANOUT_PLATFORM_HOSTS lists
    may be called; any other must resolve, and only to public addresses, as every outbound
    host must (fanout/outbound/guard.py). The connect flow checked it when the user named
    it (fanout/connect_flow.py `server_named`); its addresses may have changed since.
    "unresolved" when it does not resolve now (perhaps for a moment)."""
    if host in settings.platform_hosts:
        return None
    addresses = guard.addresses_of(host, resolve)
    if not addresses:
        return "unresolved"
    if not all(guard.is_public_address(ip) for ip in addresses):
        return f"the instance's host {host} resolves to an address that is not public, which this server never calls"
    return None


def server_of(user_id: str) -> tuple[str, str]:
    """(account id, instance host) of an account's `user_id`, `<account id>@<host>`."""
    account, _, host = user_id.rpartition("@")
    return account, host
