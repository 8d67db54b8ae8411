"""The Bluesky emulator: the AT Protocol as a client of app passwords meets it, on loopback
and the emulator's clock (tests/emulators/README.md#bluesky has its behaviour and the
choices it makes).

One server plays every host: the entryway (bsky.social), plc.directory, the PDS the DID
documents name (`pds_host`, by default `pds.bsky.invalid`) and the video service
(video.bsky.app); FANOUT_PLATFORM_HOSTS sends them all to it (`hosts_setting`). Calls are
told apart by their path alone. Every XRPC error is `{"error", "message"}`. Identity and
sessions are in sessions.py, the repository in repo.py, the video service in video.py,
the records and error bodies in state.py.
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from ..base import EmulatorServer
from ..wire import Request, Response
from .repo import Repo, WRITE_LIMITS
from .sessions import SESSION_LIMITS, Sessions
from .state import POST, BlueskyAccount, Record, xrpc_response
from .video import Video

ENTRYWAY, PLC, VIDEO_HOST = "bsky.social", "plc.directory", "video.bsky.app"
PDS_HOST = "pds.bsky.invalid"
HOSTS = (ENTRYWAY, PLC, VIDEO_HOST, PDS_HOST)
XRPC = "/xrpc/"
DID_PLC = r"did:plc:[a-z2-7]{24}"


class BlueskyEmulator(Sessions, Repo, Video, EmulatorServer):
    name = "bluesky"
    DEFAULT_ACCOUNT = BlueskyAccount("did:plc:emu2bsky3account4default", "emu.bsky.social",
                                     app_passwords=("abcd-efgh-ijkl-mnop",), main_password="emu-main-password")

    def __init__(self, *, accounts: Iterable[BlueskyAccount] | None = None, pds_host: str = PDS_HOST,
                 image_max_bytes: int = 1_000_000, blob_upload_limit: int = 52_428_800,
                 blob_ttl: float | None = 3600, strict_facets: bool = True, strict_refs: bool = True,
                 refresh_grace: float = 0, processing_seconds: float = 10, video_max_bytes: int = 100_000_000,
                 video_max_seconds: float = 180, daily_videos: int = 25, daily_video_bytes: int = 10_000_000_000,
                 flat_upload_answer: bool = False, **server):
        super().__init__(**server)
        self.pds_host = pds_host
        self.image_max_bytes, self.blob_upload_limit, self.blob_ttl = image_max_bytes, blob_upload_limit, blob_ttl
        self.strict_facets, self.strict_refs, self.refresh_grace = strict_facets, strict_refs, refresh_grace
        self.processing_seconds = processing_seconds
        self.video_max_bytes, self.video_max_seconds = video_max_bytes, video_max_seconds
        self.daily_videos, self.daily_video_bytes = daily_videos, daily_video_bytes
        self.flat_upload_answer = flat_upload_answer
        self._secret = secrets.token_bytes(32)
        accounts = [self.DEFAULT_ACCOUNT] if accounts is None else list(accounts)
        self._accounts = {a.did: a for a in accounts}
        self._reset_state()
        for method, nsid, handler in (
            ("GET", "com.atproto.identity.resolveHandle", self._resolve_handle),
            ("POST", "com.atproto.server.createSession", self._create_session),
            ("POST", "com.atproto.server.refreshSession", self._refresh_session),
            ("GET", "com.atproto.server.getSession", self._get_session),
            ("POST", "com.atproto.server.deleteSession", self._delete_session),
            ("GET", "com.atproto.server.getServiceAuth", self._get_service_auth),
            ("POST", "com.atproto.repo.uploadBlob", self._upload_blob),
            ("POST", "com.atproto.repo.createRecord", self._create_record),
            ("POST", "com.atproto.repo.applyWrites", self._apply_writes),
            ("POST", "com.atproto.repo.deleteRecord", self._delete_record),
            ("GET", "com.atproto.repo.getRecord", self._get_record),
            ("GET", "com.atproto.repo.listRecords", self._list_records),
            ("POST", "app.bsky.video.uploadVideo", self._upload_video),
            ("GET", "app.bsky.video.getJobStatus", self._get_job_status),
            ("GET", "app.bsky.video.getUploadLimits", self._get_upload_limits),
        ):
            self.route(method, XRPC + nsid.replace(".", r"\."), handler)
        self.route("GET", rf"/(?P<did>{DID_PLC})", self._plc_document)
        self.controls.update(
            add_account=self.add_account, expire_tokens=self.expire_tokens, revoke_refresh=self.revoke_refresh,
            issue_session=self.issue_session, exhaust=self.exhaust, configure=self.configure,
            fail_xrpc=self.fail_xrpc, fail_next_video=self.fail_next_video,
        )
        self.views.update(posts=lambda: self.posts, accounts=lambda: self.accounts, blobs=lambda: self.blobs)

    def _reset_state(self) -> None:
        self._refresh: dict = {}
        self._access_issued: dict[str, list[str]] = {}
        self._expired_access: set[str] = set()
        self._session_hits: dict[str, list] = {}
        self._write_hits: dict[str, list] = {}
        self._upload_hits: dict[str, list] = {}
        self._video_hits: dict[str, list] = {}
        self._blobs: dict = {}
        self._referenced: set[str] = set()
        self._records: dict[tuple[str, str, str], Record] = {}
        self._jobs: dict = {}
        self._forced_failures: list = []
        self._rev_micros = 0

    @property
    def hosts_setting(self) -> str:
        """The FANOUT_PLATFORM_HOSTS value sending every Bluesky host here (each PDS too)."""
        with self.lock:
            pds = {self.pds_of(a) for a in self._accounts.values()}
        return ",".join(f"{host}={self.base_url}" for host in dict.fromkeys((*HOSTS, *sorted(pds))))

    @property
    def default_did(self) -> str:
        return next(iter(self._accounts))

    def not_found(self, request: Request) -> Response:
        if request.path.startswith(XRPC):
            return xrpc_response(501, "MethodNotImplemented", "Method Not Implemented")
        return xrpc_response(404, "NotFound", f"no route for {request.method} {request.path}")

    # --- accessors for tests ------------------------------------------------------------------

    @property
    def accounts(self) -> list[BlueskyAccount]:
        with self.lock:
            return list(self._accounts.values())

    @property
    def posts(self) -> dict[str, list[Record]]:
        """Post records by DID, in the order they were written; every account has an entry."""
        with self.lock:
            records = sorted((r for r in self._records.values() if r.collection == POST), key=lambda r: r.indexed_at)
            return {did: [r for r in records if r.did == did] for did in self._accounts}

    @property
    def blobs(self) -> list:
        with self.lock:
            return list(self._blobs.values())

    def thread(self, root_uri: str) -> list[Record]:
        """The posts of the thread under `root_uri`, root first, each after its parent."""
        with self.lock:
            records = [r for r in self._records.values() if r.collection == POST]
        chain, at = [], root_uri
        while True:
            current = next((r for r in records if r.uri == at), None)
            if current is None:
                return chain
            chain.append(current)
            children = [r for r in records if r.parent == current.uri]
            if not children:
                return chain
            at = children[0].uri

    # --- controls -----------------------------------------------------------------------------

    def add_account(self, handle: str, app_password: str, did: str | None = None, **fields) -> BlueskyAccount:
        """Another account (a did:plc is made up if none is given)."""
        with self.lock:
            if did is None:
                alphabet = "abcdefghijklmnopqrstuvwxyz234567"
                did = "did:plc:" + "".join(alphabet[b % 32] for b in secrets.token_bytes(24))
            if not re.fullmatch(DID_PLC, did):
                raise ValueError(f"{did!r} is not a did:plc (24 characters of a-z and 2-7)")
            account = BlueskyAccount(did, handle, app_passwords=(app_password,), **fields)
            self._accounts[did] = account
            return account

    def fail_xrpc(self, method: str | None, nsid: str, status: int, error: str, message: str = "", *,
                  times: int | None = 1, headers: dict | None = None):
        """The next matching XRPC calls answer that error, without effect."""
        return self.fail(method, XRPC + nsid.replace(".", r"\.") + "$", status,
                         {"error": error, "message": message or error}, times=times, headers=headers)

    def exhaust(self, what: str, did: str | None = None) -> None:
        """Use up a limit of the account now: "createSession" (its 300 a day), "writes" (its
        points of the hour), "videos" (its videos of the day)."""
        with self.lock:
            did = did or self.default_did
            now = self.clock.now()
            if what == "createSession":
                self._session_hits.setdefault(did, []).extend([now] * SESSION_LIMITS[-1][0])
            elif what == "writes":
                self._write_hits.setdefault(did, []).append((now, WRITE_LIMITS[0][0]))
            elif what == "videos":
                self._limits_of(did)
                self._video_hits[did].extend([(now, 0)] * self.daily_videos)
            else:
                raise ValueError(f"exhaust takes createSession, writes or videos, not {what!r}")


def at_uri_rkey(uri: str) -> str:
    return uri.rsplit("/", 1)[-1]


__all__ = ["HOSTS", "PDS_HOST", "BlueskyEmulator", "at_uri_rkey"]
