"""Mastodon's static caption and media rules (docs/platforms.md#mastodon), on
fanout/platforms/rules.py's `PlatformRules`.

Every number an instance states is the instance's (`configuration` of `/api/v2/instance`:
its character cap, media count, alt text and file sizes, its media types), read before
each publish and in a preflight (instance.py). These static rules are what holds on any
instance, so they never refuse what a bigger instance takes:
- the caption: 10,000 graphemes, the service's own bound on a caption (openapi.yaml
  `UploadRequest.caption`), so no request is refused here whatever an instance allows
  (Mastodon's own default is 500, and admins raise it: 1,000, 5,000... [S]);
- media: up to 35 items (the request's own bound) of the formats Mastodon takes by
  default, a video or audio alone [S] (Mastodon's code, not a setting), the file caps far
  above what instances state (16 MB and 99 MB by default).
"""
from ...media import MB, MediaLimits
from ..rules import AltText, JPEG, MOV, MP4, Needs, PlatformRules
from .text import grapheme_length

# The service's own bounds: a caption's characters and a post's media items (openapi.yaml).
CAPTION_BOUND, MEDIA_BOUND = 10_000, 35

RULES = PlatformRules(
    platform="mastodon",
    caption_limit=CAPTION_BOUND,
    caption_length=grapheme_length,
    caption_unit=" counted as graphemes (the instance's own cap, counted as Mastodon counts, applies before posting)",
    needs=Needs.TEXT_OR_MEDIA,
    # Mastodon's default `supported_mime_types`: JPEG, PNG, GIF, WebP, HEIC/HEIF, AVIF;
    # MP4, QuickTime, WebM (and audio, which Fanout does not send) [C].
    image_extensions=JPEG | {"png", "gif", "webp", "heic", "heif", "avif"},
    video_extensions=MP4 | MOV | {"webm"},
    max_items=MEDIA_BOUND,
    max_images=MEDIA_BOUND,
    max_videos=1,
    mixed=False,
    # `description` on each media upload, images and videos; its cap the instance's
    # `description_limit` (1,500 by default, the service's own): docs/platforms.md#alt-text.
    alt_text=AltText(frozenset({"image", "video"})),
    media_limits=MediaLimits(
        platform="mastodon",
        image_formats=frozenset({"jpeg", "mpo", "png", "gif", "webp", "heic", "avif"}),
        video_formats=frozenset({"mp4", "mov", "webm"}),
        image_max_bytes=1000 * MB,
        video_max_bytes=1000 * MB,
    ),
)
