"""TikTok's Content Posting API as the TikTok emulator keeps it: creator info, video init
(FILE_UPLOAD and PULL_FROM_URL), photo init, the chunked PUT to the upload URL, the status
with its progression on the emulator clock, the per-token minute limits, the creator's
daily cap and the controls over them (tests/emulators/README.md#tiktok)."""
from __future__ import annotations

import datetime as dt
import hmac
import re
import secrets
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from ..media import HEAD_BYTES, fetch, sniff
from .state import (
    FAILED,
    FILE_UPLOAD,
    PRIVACY_LEVELS,
    PULL_FROM_URL,
    ApiError,
    PostView,
    Publish,
    Token,
    TikTokUser,
    Upload,
    UploadView,
    envelope,
    post_view,
    upload_view,
)
from ..wire import Request, Response

MB = 1024 * 1024  # [U] TikTok's "MB" read as MiB
SMALL_VIDEO, MIN_CHUNK, MAX_CHUNK, MAX_LAST_CHUNK, MAX_CHUNKS = 5 * MB, 5 * MB, 64 * MB, 128 * MB, 1000
VIDEO_MAX = 4096 * MB  # [U] "4 GB", read as GiB: how much of a pulled video is read
PHOTO_MAX = 20 * MB  # [U] "20 MB", read as MiB
MAX_PHOTOS = 35
UPLOAD_URL_TTL = dt.timedelta(hours=1)
UPLOAD_BASE = "https://open-upload.tiktokapis.com"  # where every upload_url points
MINUTE, DAY = dt.timedelta(minutes=1), dt.timedelta(hours=24)
# Calls per access token in a sliding minute, by endpoint.
LIMITS = {"creator_info": 20, "video_init": 6, "content_init": 6, "status": 30}
TITLE_LIMIT, PHOTO_TITLE_LIMIT, DESCRIPTION_LIMIT = 2200, 90, 4000
VIDEO_KINDS, PHOTO_KINDS = ("mp4", "mov", "webm"), ("jpeg", "webp")
VIDEO_TYPES = ("video/mp4", "video/quicktime", "video/webm")
CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")
# post_info's switches, each a boolean when sent.
FLAGS = ("disable_comment", "disable_duet", "disable_stitch", "brand_content_toggle", "brand_organic_toggle",
         "is_aigc", "auto_add_music")


def utf16_units(text: str) -> int:
    """TikTok's "UTF-16 runes" for titles and descriptions: code units, a lone surrogate
    (a JSON "\\ud800" escape) counting one."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class TikTokPosting:
    """Posting handlers and controls of the TikTok emulator, which holds the state they use:
    `clock`, `lock`, `_users`, `_ids`, `_publishes`, `_uploads`, `_hits`, `_forced`,
    `processing_seconds`, `moderation_seconds`, `daily_cap`, `unaudited`,
    `verified_domains`, `verified_prefixes`, `upload_base`; and `_auth` (the token and its scopes)."""

    # --- controls -----------------------------------------------------------------------------

    def force_next_publish(self, status: str = "FAILED", fail_reason: str | None = None) -> None:
        """The next publish made ends FAILED with `fail_reason` (default `internal`) once
        processed, or stays processing forever (`status="PROCESSING"`)."""
        if status not in (FAILED, "PROCESSING"):
            raise ValueError("status is FAILED or PROCESSING")
        with self.lock:
            self._forced.append((status, fail_reason or "internal"))

    def set_processing_time(self, seconds: float, moderation_seconds: float | None = None) -> None:
        """For publishes made from now: emulator seconds from the last byte to PUBLISH_COMPLETE,
        and from then to the public post id (None: unchanged)."""
        self.processing_seconds = float(seconds)
        if moderation_seconds is not None:
            self.moderation_seconds = float(moderation_seconds)

    def set_verified(self, domains: Iterable[str] = (), prefixes: Iterable[str] = ()) -> None:
        """The hosts (exactly: not their subdomains [U]) and URL prefixes PULL_FROM_URL may
        use, in place of those before."""
        self.verified_domains = tuple(d.lower().strip(".") for d in domains)
        self.verified_prefixes = tuple(prefixes)

    def set_daily_cap(self, n: int) -> None:
        """Posts a creator may make in 24 hours, from now."""
        self.daily_cap = int(n)

    def set_upload_base(self, base: str = UPLOAD_BASE) -> None:
        """Where the `upload_url` of FILE_UPLOAD inits made from now points: TikTok's upload
        host (the reference's), or, to play a TikTok that breaks its own contract, any other
        scheme and host (`http://127.0.0.1:9`); the PUT is served here whatever it names."""
        self.upload_base = base.rstrip("/")

    def set_unaudited(self, unaudited: bool = True) -> None:
        """An unaudited app may only post SELF_ONLY."""
        self.unaudited = bool(unaudited)

    @property
    def posts(self) -> dict[str, list[PostView]]:
        """Publishes by open_id, oldest first, at the emulator's now; every user has an entry."""
        with self.lock:
            now = self.clock.now()
            mine = {uid: [] for uid in self._users}
            for publish in self._publishes.values():
                mine.setdefault(publish.open_id, []).append(post_view(publish, now))
            return mine

    @property
    def uploads(self) -> dict[str, UploadView]:
        with self.lock:
            return {uid: upload_view(u) for uid, u in self._uploads.items()}

    # --- handlers -----------------------------------------------------------------------------

    def _creator_info(self, request: Request) -> Response:
        with self.lock:
            token, now = self._api(request, "creator_info")
            user = self._users[token.open_id]
        return Response.json(200, envelope({
            "creator_avatar_url": avatar_url(user), "creator_username": user.username,
            "creator_nickname": user.nickname, "privacy_level_options": list(self._options(user)),
            "comment_disabled": user.comment_disabled, "duet_disabled": user.duet_disabled,
            "stitch_disabled": user.stitch_disabled,
            "max_video_post_duration_sec": user.max_video_post_duration_sec}, now))

    def _video_init(self, request: Request) -> Response:
        token, now, body, post_info, source_info = self._init_request(request, "video_init")
        source = source_info.get("source")
        if source not in (FILE_UPLOAD, PULL_FROM_URL):
            raise _invalid(f"source_info.source must be {FILE_UPLOAD} or {PULL_FROM_URL}.", now)
        self._check_post_info(token, post_info, {"title": TITLE_LIMIT}, now)
        if source == FILE_UPLOAD:
            sizes = _chunk_plan(source_info, now)
        else:
            video_url = source_info.get("video_url")
            self._check_verified([video_url], now)
        with self.lock:
            self._check_cap(token.open_id, now)
            number = next(self._ids)
            publish_id = f"v_pub_file~v2-1.{number}" if source == FILE_UPLOAD else f"v_pub_url~v2.{number}"
            publish = self._publish(publish_id, token.open_id, "video", source, post_info, now)
            if source == PULL_FROM_URL:
                publish.video_url = video_url
                data = {"publish_id": publish_id}
            else:
                publish.upload = Upload(str(next(self._ids)), secrets.token_urlsafe(24), publish_id, token.open_id,
                                        *sizes, expires_at=now + UPLOAD_URL_TTL)
                self._uploads[publish.upload.upload_id] = publish.upload
                data = {"publish_id": publish_id, "upload_url": f"{self.upload_base}/video/?upload_id="
                        f"{publish.upload.upload_id}&upload_token={publish.upload.upload_token}"}
        if source == PULL_FROM_URL:
            self._pull(publish, [video_url])
        return Response.json(200, envelope(data, now))

    def _content_init(self, request: Request) -> Response:
        """A photo post, DIRECT_POST from verified URLs (the only kind emulated)."""
        token, now, body, post_info, source_info = self._init_request(request, "content_init")
        if body.get("media_type") != "PHOTO":
            raise _invalid("media_type must be PHOTO.", now)
        if body.get("post_mode") != "DIRECT_POST":
            raise _invalid("post_mode must be DIRECT_POST (MEDIA_UPLOAD is not emulated).", now)
        if source_info.get("source") != PULL_FROM_URL:
            raise _invalid(f"source_info.source must be {PULL_FROM_URL} for photos.", now)
        photos = source_info.get("photo_images")
        if not isinstance(photos, list) or not 1 <= len(photos) <= MAX_PHOTOS:
            raise _invalid(f"source_info.photo_images must list 1 to {MAX_PHOTOS} image URLs.", now)
        cover = source_info.get("photo_cover_index", 0)
        if isinstance(cover, bool) or not isinstance(cover, int) or not 0 <= cover < len(photos):
            raise _invalid(f"source_info.photo_cover_index must be an index of photo_images (0 to {len(photos) - 1}).",
                           now)
        self._check_post_info(token, post_info, {"title": PHOTO_TITLE_LIMIT, "description": DESCRIPTION_LIMIT}, now)
        self._check_verified(photos, now)
        with self.lock:
            self._check_cap(token.open_id, now)
            publish_id = f"p_pub_url~v2.{next(self._ids)}"
            publish = self._publish(publish_id, token.open_id, "photo", PULL_FROM_URL, post_info, now)
            publish.photo_urls, publish.cover_index = tuple(photos), cover
        self._pull(publish, photos)
        return Response.json(200, envelope({"publish_id": publish_id}, now))

    def _status(self, request: Request) -> Response:
        with self.lock:
            token, now = self._api(request, "status")
            body = request.json if isinstance(request.json, dict) else {}
            publish = self._publishes.get(str(body.get("publish_id", "")))
            if publish is None or publish.open_id != token.open_id:
                raise _invalid(f"publish_id {body.get('publish_id')!r} does not exist.", now)
            status, reason, post_id = publish.status_at(now)
            received = publish.upload.bytes_received if publish.upload is not None else publish.bytes_received
        data: dict[str, Any] = {"status": status}
        if reason is not None:
            data["fail_reason"] = reason
        data["publicaly_available_post_id"] = [post_id] if post_id is not None else []
        data["uploaded_bytes" if publish.source == FILE_UPLOAD else "downloaded_bytes"] = received
        return Response.json(200, envelope(data, now))

    def _put_chunk(self, request: Request) -> Response:
        """A chunk of a FILE_UPLOAD: sequential, of the announced size; counted and hashed,
        never kept. 206 for a chunk, 201 for the last, with empty bodies."""
        q = request.query
        with self.lock:
            now = self.clock.now()
            upload = self._uploads.get(q.get("upload_id", ""))
            if upload is None or not hmac.compare_digest(q.get("upload_token", ""), upload.upload_token):
                raise ApiError(404, "not_found", "No upload has this upload_id and upload_token.", now)  # [U]
            if now >= upload.expires_at:
                raise ApiError(403, "invalid_param", "The upload URL has expired: it is valid for one hour.", now)
            if upload.complete:
                raise _invalid("The upload is already complete.", now)
            self._check_chunk(request, upload, now)
            chunk = request.raw_body
            if upload.chunks_received == 0:
                upload.head, upload.content_type = chunk[:HEAD_BYTES], request.headers.get_content_type()
            upload.digest.update(chunk)
            upload.bytes_received += len(chunk)
            upload.chunks_received += 1
            if not upload.complete:
                return Response(206)
            publish = self._publishes[upload.publish_id]
            publish.bytes_received, publish.sha256, publish.received_at = (upload.bytes_received,
                                                                          upload.digest.hexdigest(), now)
            if sniff(upload.head) not in VIDEO_KINDS:
                publish.failure = "file_format_check_failed"
        return Response(201)

    # --- checks -------------------------------------------------------------------------------

    def _api(self, request: Request, endpoint: str) -> tuple[Token, dt.datetime]:
        """The token (with `video.publish`), then the endpoint's calls per token in a sliding
        minute: past it 429, else the call counts. Under the lock."""
        now = self.clock.now()
        token = self._auth(request, now, "video.publish")
        hits = self._hits.setdefault((endpoint, token.value), [])
        hits[:] = [t for t in hits if now - t < MINUTE]
        if len(hits) >= LIMITS[endpoint]:
            raise ApiError(429, "rate_limit_exceeded", "API rate limit exceeded, please retry later.", now)
        hits.append(now)
        return token, now

    def _init_request(self, request: Request, endpoint: str) -> tuple[Token, dt.datetime, dict, dict, dict]:
        """An init's token and time (see `_api`), then its body, `post_info` and `source_info`,
        each a JSON object."""
        with self.lock:
            token, now = self._api(request, endpoint)
        body = _object(request.json, "The body", now)
        return (token, now, body, _object(body.get("post_info"), "post_info", now),
                _object(body.get("source_info"), "source_info", now))

    def _options(self, user: TikTokUser) -> tuple[str, ...]:
        return ("SELF_ONLY",) if self.unaudited else user.privacy_level_options

    def _check_post_info(self, token: Token, post_info: dict, limits: dict[str, int], now: dt.datetime) -> None:
        """The privacy level among the creator's options, then the texts' lengths in UTF-16 units."""
        with self.lock:
            user = self._users[token.open_id]
        level = post_info.get("privacy_level")
        if self.unaudited and level in PRIVACY_LEVELS and level != "SELF_ONLY":
            raise ApiError(403, "unaudited_client_can_only_post_to_private_accounts",
                           "This app is not audited: it may only post with privacy_level SELF_ONLY.", now)
        if level not in self._options(user):
            raise ApiError(403, "privacy_level_option_mismatch", f"privacy_level {level!r} is not one of the "
                           f"creator's privacy_level_options: {', '.join(self._options(user))}.", now)
        for name in FLAGS:
            if name in post_info and not isinstance(post_info[name], bool):
                raise _invalid(f"post_info.{name} must be a boolean.", now)
        for name, setting in (("disable_comment", "comment_disabled"), ("disable_duet", "duet_disabled"),
                              ("disable_stitch", "stitch_disabled")):
            if getattr(user, setting) and post_info.get(name) is False:  # [U] the guidelines made a rule
                raise _invalid(f"post_info.{name} must be true: the creator turned that off ({setting}).", now)
        if post_info.get("brand_content_toggle") and level == "SELF_ONLY":
            raise _invalid("brand_content_toggle: branded content cannot be posted with privacy_level SELF_ONLY.", now)
        for name, limit in limits.items():
            text = post_info.get(name, "")
            if not isinstance(text, str):
                raise _invalid(f"post_info.{name} must be a string.", now)
            if utf16_units(text) > limit:
                raise _invalid(f"post_info.{name} is {utf16_units(text)} UTF-16 code units long; at most {limit} "
                               "are allowed.", now)

    def _check_verified(self, urls: list[Any], now: dt.datetime) -> None:
        for url in urls:
            parts = urlsplit(url) if isinstance(url, str) else None
            if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
                raise _invalid(f"{url!r} is not an http(s) URL.", now)
            if not (parts.hostname.lower() in self.verified_domains
                    or any(url.startswith(prefix) for prefix in self.verified_prefixes)):
                raise ApiError(403, "url_ownership_unverified", f"The domain or URL prefix of {url} is not "
                               "verified for this app.", now)

    def _check_cap(self, open_id: str, now: dt.datetime) -> None:
        """The creator's posts in the last 24 hours that are processing or complete. Under the lock."""
        counted = [p for p in self._publishes.values()
                   if p.open_id == open_id and now - p.created_at < DAY and p.status_at(now)[0] != FAILED]
        if len(counted) >= self.daily_cap:
            raise ApiError(403, "spam_risk_too_many_posts",
                           "The daily post cap from the API is reached for the current user.", now)

    def _check_chunk(self, request: Request, upload: Upload, now: dt.datetime) -> None:
        content_type = request.headers.get_content_type() if request.headers.get("Content-Type") else ""
        if content_type not in VIDEO_TYPES:
            raise _invalid(f"Content-Type must be one of {', '.join(VIDEO_TYPES)}.", now)
        found = CONTENT_RANGE.fullmatch(request.headers.get("Content-Range", "").strip())
        if found is None:
            raise _invalid("Content-Range must be bytes <first>-<last>/<total>.", now)
        first, last, total = map(int, found.groups())
        index, length = upload.chunks_received, upload.chunk_length(upload.chunks_received)
        expected = (upload.bytes_received, upload.bytes_received + length - 1, upload.video_size)
        if (first, last, total) != expected:
            raise _invalid(f"Chunk {index + 1} of {upload.total_chunk_count} is bytes {expected[0]}-{expected[1]}/"
                           f"{expected[2]}; got {first}-{last}/{total}.", now)
        if len(request.raw_body) != length:
            raise _invalid(f"The body has {len(request.raw_body)} bytes; Content-Range announces {length}.", now)

    # --- publishes ----------------------------------------------------------------------------

    def _publish(self, publish_id: str, open_id: str, media: str, source: str, post_info: dict,
                 now: dt.datetime) -> Publish:
        """A new publish, taking the next forced outcome. Under the lock."""
        publish = Publish(publish_id, open_id, media, source, dict(post_info), now,
                          dt.timedelta(seconds=self.processing_seconds), dt.timedelta(seconds=self.moderation_seconds),
                          next(self._ids), self._forced.pop(0) if self._forced else None)
        self._publishes[publish_id] = publish
        return publish

    def _pull(self, publish: Publish, urls: list[str]) -> None:
        """GET each URL as TikTok would (the lock released meanwhile): the first that fails
        decides the publish's fail_reason, shown at once."""
        video = publish.media == "video"
        failure, received, digest = None, 0, None
        for url in urls:
            fetched = fetch(url, limit=VIDEO_MAX if video else PHOTO_MAX)
            received += fetched.size
            if not fetched.ok:
                failure = "video_pull_failed" if video else "photo_pull_failed"
            elif fetched.kind not in (VIDEO_KINDS if video else PHOTO_KINDS):
                failure = "file_format_check_failed"
            elif not video and fetched.size > PHOTO_MAX:
                failure = "picture_size_check_failed"
            digest = fetched.sha256 if video else None
            if failure:
                break
        with self.lock:
            publish.bytes_received, publish.sha256, publish.failure = received, digest, failure
            publish.received_at = self.clock.now()


def avatar_url(user: TikTokUser) -> str:
    """A made-up CDN address: nothing serves it [U]."""
    return f"https://p16-sign.tiktokcdn-us.com/emu/{user.open_id}~c5_168x168.jpeg"


def _object(value: Any, name: str, now: dt.datetime) -> dict:
    if not isinstance(value, dict):
        raise _invalid(f"{name} must be a JSON object.", now)
    return value


def _invalid(message: str, now: dt.datetime) -> ApiError:
    return ApiError(400, "invalid_param", message, now)


def _chunk_plan(source_info: dict, now: dt.datetime) -> tuple[int, int, int]:
    """(video_size, chunk_size, total_chunk_count), checked against TikTok's media transfer rules."""
    values = [source_info.get(name) for name in ("video_size", "chunk_size", "total_chunk_count")]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        raise _invalid("video_size, chunk_size and total_chunk_count must be positive integers.", now)
    size, chunk, count = values
    if size < SMALL_VIDEO:
        if (chunk, count) != (size, 1):
            raise _invalid(f"A video under {SMALL_VIDEO} bytes is sent whole: chunk_size = video_size, "
                           "total_chunk_count = 1.", now)
        return size, chunk, count
    if not MIN_CHUNK <= chunk <= MAX_CHUNK:
        raise _invalid(f"chunk_size must be {MIN_CHUNK} to {MAX_CHUNK} bytes.", now)
    if count != size // chunk:
        raise _invalid(f"total_chunk_count must be floor(video_size / chunk_size) = {size // chunk}.", now)
    if not 1 <= count <= MAX_CHUNKS:
        raise _invalid(f"total_chunk_count must be 1 to {MAX_CHUNKS}.", now)
    if size - (count - 1) * chunk > MAX_LAST_CHUNK:
        raise _invalid(f"The last chunk would be {size - (count - 1) * chunk} bytes; at most {MAX_LAST_CHUNK}.", now)
    return size, chunk, count
