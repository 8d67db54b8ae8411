"""TikTok's media steps (docs/platforms.md#the-tiktok-adapter): each file checked as it is
fetched (fanout/outbound/media_fetch.py); what TikTok pulls, only from the hosts verified
for the app; a FILE_UPLOAD video's bytes sent to the upload URL its init answered, in
chunks by TikTok's media transfer rules, each a `PUT` with its `Content-Range`, streamed
from the fetched file."""
from __future__ import annotations

from urllib.parse import urlsplit

from ...target_errors import EXPIRED, UNVERIFIED
from ..base import Outcome, Stop, failed
from ..mapping import classify
from ..steps import Steps
from ..transfer import byte_ranges
from .oauth import TITLE

# The media transfer rules: one chunk under 5 MB, else chunks of 5 to 64 MB, the last one
# taking the remainder (up to 128 MB). 10 MB keeps a 4 GB video within 1,000 chunks.
MB = 1024 * 1024
CHUNK = 10 * MB
VIDEO_TYPES = {"mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm"}
TAKEN = (200, 201, 206)  # a chunk's answers: 206 while more are due, 201 (or 200) for the last
GONE = (403, 404, 410)  # an upload URL past its hour


def verified(url: str, entries: tuple[str, ...]) -> bool:
    """Whether `url` is under a verified domain (or one of its subdomains) or URL prefix."""
    host = (urlsplit(url).hostname or "").lower()
    for entry in entries:
        if "://" in entry:
            if url.startswith(entry):
                return True
        elif host == entry or host.endswith("." + entry):
            return True
    return False


def chunk_plan(size: int) -> tuple[int, int]:
    """(chunk_size, total_chunk_count) by TikTok's media transfer rules."""
    if size < CHUNK:  # under 5 MB it must be whole; up to 10 MB one chunk is simplest
        return size, 1
    return CHUNK, size // CHUNK


class Uploads(Steps):
    """The media of a post (fanout/platforms/tiktok/adapter.py has the sequence)."""

    def checked(self, item, index: int, *, whole: bool):
        """Media `item`, checked as fetched (type, size, duration): `whole`, the file to
        upload (a context manager); else only what it is, for TikTok to pull. The state is
        not saved first: the init's marker is the first save (the never-twice tests)."""
        return self.fetch(item, f"media[{index}]", whole=whole, renew=False)

    def unverified_pull(self) -> Outcome | None:
        """url_ownership_unverified for the first item TikTok would pull (photos always, a
        video by `pull`, or by `auto` from a verified host) from a host not verified."""
        ours = self.step.settings.of("tiktok")
        photos = [item for item in self.job.media if item.get("type") == "image"]
        pulled = photos or (list(self.job.media) if ours.upload_method == "pull" else [])
        for index, item in enumerate(pulled):
            if not verified(item["url"], ours.verified_domains):
                host = urlsplit(item["url"]).hostname or item["url"]
                return Outcome(error_code=UNVERIFIED, error_message=(
                    f"{TITLE} pulls media[{index}] from {host}, which is not a verified domain or URL prefix of this "
                    "app (FANOUT_TIKTOK_VERIFIED_DOMAINS); verify it with TikTok, or post videos by upload "
                    "(FANOUT_TIKTOK_UPLOAD_METHOD)"))
        return None

    def send_chunks(self, url: str, media, chunk_size: int, count: int) -> None:
        """The fetched video's bytes to the upload URL, chunk after chunk. Unanswered, the
        last chunk may still have arrived: the next step reads the status, and starts again
        if the post is not complete."""
        size = media.info.size
        self.put_ranges(url, media.file, size, byte_ranges(size, chunk_size, count), accepted=TAKEN,
                        mime=VIDEO_TYPES.get(media.info.format, "video/mp4"), special=self.chunk_refused)

    def chunk_refused(self, response, answer) -> None:
        """A chunk refused: when TikTok says to try again, the post starts over (this one
        never publishes without its bytes); an upload URL past its hour ends the target."""
        rule = classify(self.table, answer)
        if rule is not None and rule.transient:
            self.state.pop("publish_id", None)
        elif response.status in GONE:
            raise Stop(failed(EXPIRED, f"{TITLE} no longer takes this upload (its URL lasts an hour): "
                                        f"{answer.message or answer.raw}"))
